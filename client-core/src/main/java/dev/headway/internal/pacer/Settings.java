package dev.headway.internal.pacer;

import dev.headway.PacingStrategy;
import dev.headway.PartitionKeyResolver;
import dev.headway.RequestCost;
import dev.headway.SanityCaps;
import dev.headway.Scheduler;
import dev.headway.SignalParser;
import dev.headway.Ticker;
import dev.headway.RequestInfo;
import dev.headway.internal.signal.SignalReader;
import java.time.InstantSource;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import java.util.concurrent.Executor;

/**
 * The engine's configuration as its parts read it: the clocks, the scheduler, the parser and the
 * numbers of {@link EngineConfig}, times in nanoseconds, and the one {@link JitterSource}. Owns
 * nothing mutable; shared by every collaborator of the engine.
 */
final class Settings {
  final Ticker ticker;
  final InstantSource wallClock;
  final Scheduler scheduler;
  /**
   * Reads responses as the configured {@link SignalParser} does, also given what earlier answers
   * said of the server's clock (see {@link ServerClock}).
   */
  final SignalReader reader;
  final SanityCaps caps;
  final long maxWaitNanos;
  final int maxAttempts;
  final RequestCost cost;
  final PartitionKeyResolver resolver;
  final PacingStrategy strategy;
  final JitterSource jitter;
  /** How many requests may be in flight while the state is being learnt (probes). */
  final int probes;
  /**
   * Whether a fleet's store shares the quotas (a store is configured): its budget paces the
   * fleet, and what one instance was admitted or saw is not the fleet's.
   */
  final boolean fleet;
  /** How long a caller that cannot commit yet waits before it looks again; at least 1. */
  final long recheckNanos;
  final long baseBackoffNanos;
  final long maxBackoffNanos;
  /**
   * The first gap before a long block's check, doubled after each check throttled: {@code
   * maxWait}, and at least {@code baseBackoff} (a {@code maxWait} of a millisecond refuses
   * callers at once; it must not check a server every few milliseconds).
   */
  final long checkGapNanos;
  final boolean retryNonIdempotentOn503;
  /** The retry budget of each partition. */
  final dev.headway.RetryBudget retryBudget;
  private final @Nullable Function<? super RequestInfo, @Nullable String> scopeAttribute;
  /** Where user callbacks run: listeners, the completion of asynchronous acquires. */
  final Executor executor;
  /** How long a permit may stay committed (neither completed nor released) before reclaimed. */
  final long reclaimAfterNanos;

  Settings(EngineConfig config, Swallowed swallowed) {
    this.ticker = config.ticker();
    this.wallClock = config.wallClock();
    this.scheduler = config.scheduler();
    SignalParser parser = config.parser();
    this.reader = new SignalReader(parser.caps(), parser.dialects());
    this.caps = parser.caps();
    this.maxWaitNanos = Time.nanos(config.maxWait());
    this.maxAttempts = config.maxAttempts();
    // User code is guarded: whatever it throws, a request gets the default (see UserCode).
    this.cost = UserCode.cost(config.cost(), swallowed);
    this.resolver = UserCode.resolver(config.resolver(), swallowed, config.store() != null);
    this.fleet = config.store() != null;
    this.strategy = UserCode.strategy(config.strategy(), swallowed);
    this.jitter = new JitterSource(config.jitter() instanceof Jitters ? config.jitter()
        : UserCode.jitter(config.jitter(), swallowed), config.random(),
        Time.nanos(config.maxJitter()));
    this.probes = config.probes();
    this.recheckNanos = Math.max(1, Time.nanos(config.recheckInterval()));
    this.baseBackoffNanos = Time.nanos(config.baseBackoff());
    this.maxBackoffNanos = Time.nanos(config.maxBackoff());
    this.checkGapNanos = Math.max(maxWaitNanos, baseBackoffNanos);
    this.retryNonIdempotentOn503 = config.retryNonIdempotentOn503();
    this.retryBudget = config.retryBudget();
    this.reclaimAfterNanos = Math.max(1, Time.nanos(config.permitLease()));
    this.executor = config.executor();
    this.scopeAttribute = config.scopeAttribute();
  }

  /**
   * Returns the request's scope attribute, or null if none is configured or the function fails
   * or returns blank (a user function never breaks a request).
   */
  @Nullable String scopeAttribute(RequestInfo request) {
    if (scopeAttribute == null) {
      return null;
    }
    try {
      String value = scopeAttribute.apply(request);
      return value == null || value.isBlank() ? null : value;
    } catch (RuntimeException e) {
      return null;
    }
  }
}
