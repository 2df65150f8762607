package dev.headway.internal.pacer;

import dev.headway.ClientPolicy;
import dev.headway.Jitter;
import dev.headway.PacerListener;
import dev.headway.PacingStrategy;
import dev.headway.PartitionKeyResolver;
import dev.headway.RequestCost;
import dev.headway.RequestInfo;
import dev.headway.Scheduler;
import dev.headway.SignalParser;
import dev.headway.Ticker;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.concurrent.Executor;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;

/**
 * Everything the {@link Engine} is built from; assembled and validated by
 * {@link PacerSettings} for {@code Pacer.Builder}.
 *
 * @param random the generator of jitter and random window starts, thread-safe (seeded for
 *     reproducible runs); null: a thread-local generator per thread
 * @param declaredForAll client policies every partition gets
 * @param declaredByPartition client policies of named partitions
 * @param scopeAttribute the request attribute that selects a server policy's scope (such as a
 *     model name), or null
 * @param scopes the scopes the user declared
 * @param permitLease how long a permit may stay committed before it is reclaimed
 * @param executor where listeners run and the futures of asynchronous acquires are completed
 * @param onClose stops what the pacer owns (its scheduler, its executor), after the engine closed
 * @param store where a fleet shares its quota state; null: this engine paces alone
 */
public record EngineConfig(
    Ticker ticker,
    InstantSource wallClock,
    Scheduler scheduler,
    SignalParser parser,
    Duration maxWait,
    int maxAttempts,
    RequestCost cost,
    PartitionKeyResolver resolver,
    PacingStrategy strategy,
    Jitter jitter,
    @Nullable RandomGenerator random,
    Duration maxJitter,
    int maxPartitions,
    int probes,
    Duration recheckInterval,
    Duration baseBackoff,
    Duration maxBackoff,
    boolean retryNonIdempotentOn503,
    dev.headway.RetryBudget retryBudget,
    List<PacerListener> listeners,
    List<ClientPolicy> declaredForAll,
    Map<String, List<ClientPolicy>> declaredByPartition,
    @Nullable Function<? super RequestInfo, @Nullable String> scopeAttribute,
    List<DeclaredScope> scopes,
    Duration permitLease,
    Executor executor,
    Runnable onClose,
    dev.headway.store.@Nullable QuotaStore store) {}
