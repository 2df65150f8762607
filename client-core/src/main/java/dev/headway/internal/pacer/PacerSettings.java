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
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Owns what {@code Pacer.Builder} collects: every setting with its default, the validation of
 * each value (an {@link IllegalArgumentException} naming the field and the value), and the
 * wiring of a pacer from them at {@link #build()}: the checks across settings, the declared
 * policies by partition as the resolver spells it, the jitter's generator, the pacer's own
 * scheduler and callback executor when none is given (and how {@code close()} stops them), and
 * the default permit lease. The public builder delegates every call here; the defaults and why
 * they were chosen are documented on it. Not thread-safe.
 */
public final class PacerSettings {
  private static final AtomicInteger PACERS = new AtomicInteger();

  private Ticker ticker = Ticker.system();
  private InstantSource wallClock = InstantSource.system();
  private @Nullable Scheduler scheduler;
  private @Nullable Executor executor;
  private SignalParser signalParser = SignalParser.create();
  private Duration maxWait = Duration.ofSeconds(30);
  private int maxAttempts = 3;
  private RequestCost cost = RequestCost.oneUnit();
  private PartitionKeyResolver partitionKeyResolver = PartitionKeyResolver.origin();
  private PacingStrategy strategy = PacingStrategy.burstThenSpread(0.2);
  private Jitter jitter = Jitter.full();
  private @Nullable Long jitterSeed;
  private Duration maxJitter = Duration.ofSeconds(1);
  private int maxPartitions = 10_000;
  private int probes = 2;
  private Duration recheckInterval = Duration.ofMillis(50);
  private Duration baseBackoff = Duration.ofSeconds(1);
  private Duration maxBackoff = Duration.ofSeconds(30);
  private boolean retryNonIdempotentOn503;
  private dev.headway.RetryBudget retryBudget = dev.headway.RetryBudget.off();
  private @Nullable Duration permitLease;
  private dev.headway.store.@Nullable QuotaStore store;
  private final List<PacerListener> listeners = new ArrayList<>();
  private final List<ClientPolicy> declaredForAll = new ArrayList<>();
  private final Map<String, List<ClientPolicy>> declaredByPartition = new LinkedHashMap<>();
  private @Nullable Function<? super RequestInfo, @Nullable String> scopeAttribute;
  private final List<DeclaredScope> scopes = new ArrayList<>();

  /** Starts from the defaults. */
  public PacerSettings() {}

  /** See {@code Pacer.Builder.ticker}. */
  public void ticker(Ticker ticker) {
    this.ticker = notNull(ticker, "ticker");
  }

  /** See {@code Pacer.Builder.wallClock}. */
  public void wallClock(InstantSource wallClock) {
    this.wallClock = notNull(wallClock, "wallClock");
  }

  /** See {@code Pacer.Builder.scheduler}. */
  public void scheduler(Scheduler scheduler) {
    this.scheduler = notNull(scheduler, "scheduler");
  }

  /** See {@code Pacer.Builder.executor}. */
  public void executor(Executor executor) {
    this.executor = notNull(executor, "executor");
  }

  /** See {@code Pacer.Builder.signalParser}. */
  public void signalParser(SignalParser signalParser) {
    this.signalParser = notNull(signalParser, "signalParser");
  }

  /** See {@code Pacer.Builder.maxWait}. */
  public void maxWait(Duration maxWait) {
    this.maxWait = checkMaxWait(maxWait);
  }

  /** See {@code Pacer.Builder.maxAttempts}. */
  public void maxAttempts(int maxAttempts) {
    this.maxAttempts = checkMaxAttempts(maxAttempts);
  }

  /**
   * Returns {@code maxWait} if it is positive: the rule for a pacer's {@code maxWait}, which also
   * paces the checks of a quota spent for longer (zero would check it at every call, drawing a
   * 429 each). A call's own {@code maxWait} and an adapter's may be zero.
   *
   * @throws IllegalArgumentException if not positive
   */
  public static Duration checkMaxWait(Duration maxWait) {
    notNull(maxWait, "maxWait");
    if (maxWait.isNegative()) {
      throw new IllegalArgumentException("maxWait must be positive but was " + maxWait);
    }
    if (maxWait.isZero()) {
      throw new IllegalArgumentException("maxWait must be positive but was " + maxWait
          + ": the pacer's maxWait also paces the checks of a quota spent for longer; for calls"
          + " that never wait, give zero to the call (acquire(request, Duration.ZERO), tryAcquire)"
          + " or to the adapter's builder");
    }
    return maxWait;
  }

  /**
   * Returns {@code maxAttempts} if it is at least 1: the rule for a pacer's and an adapter's
   * {@code maxAttempts}.
   *
   * @throws IllegalArgumentException if less than 1
   */
  public static int checkMaxAttempts(int maxAttempts) {
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("maxAttempts must be at least 1 but was " + maxAttempts);
    }
    return maxAttempts;
  }

  /** See {@code Pacer.Builder.cost}. */
  public void cost(RequestCost cost) {
    this.cost = notNull(cost, "cost");
  }

  /** See {@code Pacer.Builder.partitionKeyResolver}. */
  public void partitionKeyResolver(PartitionKeyResolver resolver) {
    this.partitionKeyResolver = notNull(resolver, "partitionKeyResolver");
  }

  /** See {@code Pacer.Builder.strategy}. */
  public void strategy(PacingStrategy strategy) {
    this.strategy = notNull(strategy, "strategy");
  }

  /** See {@code Pacer.Builder.jitter}. */
  public void jitter(Jitter jitter) {
    this.jitter = notNull(jitter, "jitter");
  }

  /** See {@code Pacer.Builder.jitterSeed}. */
  public void jitterSeed(long seed) {
    this.jitterSeed = seed;
  }

  /** See {@code Pacer.Builder.maxJitter}. */
  public void maxJitter(Duration maxJitter) {
    notNull(maxJitter, "maxJitter");
    if (maxJitter.isNegative()) {
      throw new IllegalArgumentException("maxJitter must not be negative but was " + maxJitter);
    }
    this.maxJitter = maxJitter;
  }

  /** See {@code Pacer.Builder.maxPartitions}. */
  public void maxPartitions(int maxPartitions) {
    if (maxPartitions < 1) {
      throw new IllegalArgumentException("maxPartitions must be at least 1 but was "
          + maxPartitions);
    }
    this.maxPartitions = maxPartitions;
  }

  /** See {@code Pacer.Builder.probes}. */
  public void probes(int probes) {
    if (probes < 1) {
      throw new IllegalArgumentException("probes must be at least 1 but was " + probes);
    }
    this.probes = probes;
  }

  /** See {@code Pacer.Builder.recheckInterval}. */
  public void recheckInterval(Duration recheckInterval) {
    this.recheckInterval = requirePositive("recheckInterval", recheckInterval);
  }

  /** See {@code Pacer.Builder.baseBackoff}. */
  public void baseBackoff(Duration baseBackoff) {
    this.baseBackoff = requirePositive("baseBackoff", baseBackoff);
  }

  /** See {@code Pacer.Builder.maxBackoff}. */
  public void maxBackoff(Duration maxBackoff) {
    this.maxBackoff = requirePositive("maxBackoff", maxBackoff);
  }

  /** See {@code Pacer.Builder.retryBudget}. */
  public void retryBudget(dev.headway.RetryBudget budget) {
    this.retryBudget = budget;
  }

  /** See {@code Pacer.Builder.retryNonIdempotentOn503}. */
  public void retryNonIdempotentOn503(boolean retry) {
    this.retryNonIdempotentOn503 = retry;
  }

  /** See {@code Pacer.Builder.permitLease}. */
  public void permitLease(Duration permitLease) {
    this.permitLease = requirePositive("permitLease", permitLease);
  }

  /** See {@code Pacer.Builder.store}. */
  public void store(dev.headway.store.QuotaStore store) {
    this.store = notNull(store, "store");
  }

  /** See {@code Pacer.Builder.listener}. */
  public void listener(PacerListener listener) {
    listeners.add(notNull(listener, "listener"));
  }

  /** See {@code Pacer.Builder.declare(ClientPolicy)}. */
  public void declare(ClientPolicy policy) {
    declaredForAll.add(notNull(policy, "policy"));
  }

  /** See {@code Pacer.Builder.declare(String, ClientPolicy)}. */
  public void declare(String partition, ClientPolicy policy) {
    notNull(partition, "partition");
    notNull(policy, "policy");
    if (partition.isBlank()) {
      throw new IllegalArgumentException("partition must not be blank");
    }
    declaredByPartition.computeIfAbsent(partition, k -> new ArrayList<>()).add(policy);
  }

  /** See {@code Pacer.Builder.declare(String, String, String)}. */
  public void declare(String partition, String route, String policy) {
    notNull(partition, "partition");
    notNull(route, "route");
    notNull(policy, "policy");
    scopes.add(DeclaredScope.of(partition, route, policy));
  }

  /** See {@code Pacer.Builder.scopeAttribute}. */
  public void scopeAttribute(Function<? super RequestInfo, @Nullable String> attribute) {
    this.scopeAttribute = notNull(attribute, "attribute");
  }

  /**
   * Returns {@code value}, the argument {@code name} of a call (such as its own
   * {@code maxWait}), checked.
   *
   * @throws IllegalArgumentException if it is negative
   */
  public static Duration notNegative(String name, Duration value) {
    notNull(value, name);
    if (value.isNegative()) {
      throw new IllegalArgumentException(name + " must not be negative but was " + value);
    }
    return value;
  }

  /**
   * Returns {@code value}, the argument {@code name} of a setter, if it is not null.
   *
   * @throws NullPointerException saying which argument was null
   */
  static <T> T notNull(@Nullable T value, String name) {
    if (value == null) {
      throw new NullPointerException(name + " must not be null");
    }
    return value;
  }

  private static Duration requirePositive(String name, Duration value) {
    notNull(value, name);
    if (value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(name + " must be positive but was " + value);
    }
    return value;
  }

  /**
   * Returns the configuration of a new pacer, with the scheduler and executor it will use
   * (its own, started on first use, when none was given).
   *
   * @throws IllegalArgumentException if {@code maxBackoff} is less than {@code baseBackoff}, or
   *     a partition given to {@link #declare(String, ClientPolicy)} can never match one of the
   *     resolver's partitions
   */
  public EngineConfig build() {
    if (maxBackoff.compareTo(baseBackoff) < 0) {
      throw new IllegalArgumentException("maxBackoff must be at least baseBackoff ("
          + baseBackoff + ") but was " + maxBackoff);
    }
    if (store != null && partitionKeyResolver instanceof CredentialResolver credentials
        && !credentials.stable()) {
      throw new IllegalArgumentException("partitionKeyResolver " + credentials + " salts keys"
          + " at random, so no two instances sharing the store would share a partition; use"
          + " PartitionKeyResolver.originAndCredential(headerName, fleetSecret)");
    }
    if (store != null && !(partitionKeyResolver instanceof OriginResolver)
        && !(partitionKeyResolver instanceof CredentialResolver)
        && CredentialResolver.callsRandomKey(partitionKeyResolver)) {
      throw new IllegalArgumentException("partitionKeyResolver " + partitionKeyResolver
          + " calls PartitionKeyResolver.originAndCredential(headerName), which salts keys at"
          + " random, so no two instances sharing the store would share a partition; use"
          + " PartitionKeyResolver.originAndCredential(headerName, fleetSecret)");
    }
    Map<String, List<ClientPolicy>> byPartition = new LinkedHashMap<>();
    declaredByPartition.forEach((k, v) -> byPartition.merge(
        PartitionNames.declared(k, partitionKeyResolver), List.copyOf(v), (a, b) -> {
          List<ClientPolicy> both = new ArrayList<>(a);
          both.addAll(b);
          return List.copyOf(both);
        }));
    // Seeded: one thread-safe generator (the same sequence for the same calls); otherwise each
    // thread draws from its own, with no lock.
    Random random = jitterSeed == null ? null : new Random(jitterSeed);
    int id = PACERS.incrementAndGet();
    SystemScheduler ownScheduler = scheduler == null
        ? new SystemScheduler("headway-scheduler-" + id) : null;
    Scheduler usedScheduler = scheduler != null ? scheduler : ownScheduler;
    ThreadPoolExecutor ownExecutor = executor == null && scheduler == null
        ? Callbacks.defaultExecutor("headway-callbacks-" + id) : null;
    Executor usedExecutor = executor != null ? executor
        : ownExecutor != null ? ownExecutor : Runnable::run;
    // Last: nothing after it may fail, or the store would stay taken by a pacer never built.
    StoresInUse.Taken taken = store == null ? null : StoresInUse.take(store);
    Runnable onClose = () -> {
      if (taken != null) {
        taken.giveBack().run();
      }
      if (ownScheduler != null) {
        ownScheduler.shutdown();
      }
      if (ownExecutor != null) {
        ownExecutor.shutdown(); // the callbacks already queued still run
      }
    };
    return new EngineConfig(ticker, wallClock, usedScheduler, signalParser, maxWait,
        maxAttempts, cost, partitionKeyResolver, strategy, jitter, random, maxJitter,
        maxPartitions, probes, recheckInterval, baseBackoff, maxBackoff,
        retryNonIdempotentOn503, retryBudget, List.copyOf(listeners), List.copyOf(declaredForAll),
        byPartition, scopeAttribute, List.copyOf(scopes), lease(), usedExecutor, onClose,
        taken == null ? null : taken.store());
  }

  private Duration lease() {
    if (permitLease != null) {
      return permitLease;
    }
    // Twice maxWait, saturating (a maxWait of centuries needs no doubling).
    Duration twiceMaxWait = maxWait.compareTo(Duration.ofDays(36_500)) > 0 ? maxWait
        : maxWait.multipliedBy(2);
    Duration fiveMinutes = Duration.ofMinutes(5);
    return twiceMaxWait.compareTo(fiveMinutes) > 0 ? twiceMaxWait : fiveMinutes;
  }
}
