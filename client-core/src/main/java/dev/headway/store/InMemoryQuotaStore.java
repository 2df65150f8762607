package dev.headway.store;

import dev.headway.Scheduler;
import dev.headway.internal.store.StoreArguments;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * A {@link QuotaStore} in this JVM's memory: quota state shared by the pacers of one process,
 * and the store of tests and simulations, where it runs in virtual time.
 *
 * <p>{@link #create()} and {@link #builder()} return one instance of a fleet; {@link
 * #instance(String)} returns another instance sharing the same state (as a separate process would
 * share a Redis store), so that a test or a simulation can run a fleet in one JVM. Leases are
 * sized from the instances that called {@link #lease} within the {@linkplain
 * Builder#heartbeat heartbeat}.
 *
 * <p>Time comes from the builder's {@link InstantSource} (the system clock by default). With a
 * {@linkplain Builder#roundTrip round trip} the store behaves like a remote one: each call takes
 * effect and completes after that delay on the builder's {@link Scheduler}. Without a round
 * trip, each call completes before it returns. (To make a store fail as one that is down would,
 * or to count its calls, wrap it with {@code StoreFaults} of the {@code headway-testing}
 * artifact.)
 *
 * <p>The state of at most {@link Builder#maxKeys} keys is kept (least recently used ones are
 * dropped first), at most {@value #MAX_LEASES_PER_KEY} leases per key (ended leases are merged
 * into at most 32 buckets; a lease is refused while that many are still valid). Thread-safe.
 */
public final class InMemoryQuotaStore implements QuotaStore {
  /** The most leases kept per key; beyond it the ones ending first are dropped. */
  public static final int MAX_LEASES_PER_KEY = 1024;
  /** Numbers the names of {@link #anotherInstance()}'s instances. */
  private static final AtomicLong OTHER_INSTANCES = new AtomicLong();


  private final FleetMemory shared;
  private final String instanceId;
  private final AtomicBoolean closed = new AtomicBoolean();

  private InMemoryQuotaStore(FleetMemory shared, String instanceId) {
    this.shared = shared;
    this.instanceId = instanceId;
  }

  /**
   * Returns a store on the system clock with the default bounds and no round trip.
   *
   * @return a new store (one instance of a new fleet)
   */
  public static InMemoryQuotaStore create() {
    return builder().build();
  }

  /**
   * Returns a builder with the defaults described on its methods.
   *
   * @return a new builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Returns another instance of the same fleet: a store sharing this one's state (and round trip)
   * under its own instance name, as another process would.
   *
   * @param name the other instance's name; not empty
   * @return the other instance
   * @throws IllegalArgumentException if {@code name} is empty
   */
  public InMemoryQuotaStore instance(String name) {
    Objects.requireNonNull(name, "name");
    if (name.isEmpty()) {
      throw new IllegalArgumentException("name must not be empty");
    }
    return new InMemoryQuotaStore(shared, name);
  }

  /**
   * Returns another instance of the same fleet, as {@link #instance(String)} does, named after
   * this one ({@code <name>~<n>}).
   *
   * @return the other instance
   */
  @Override
  public InMemoryQuotaStore anotherInstance() {
    return new InMemoryQuotaStore(shared, instanceId + "~" + OTHER_INSTANCES.incrementAndGet());
  }

  /**
   * Returns this instance's name.
   *
   * @return the name
   */
  public String instanceName() {
    return instanceId;
  }

  @Override
  public CompletionStage<SharedQuota> observe(QuotaKey key, ServerCount count) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(count, "count");
    return call(now -> shared.observe(key, count, null, 0, count.observedAt(), instanceId, now));
  }

  @Override
  public CompletionStage<SharedQuota> observe(QuotaKey key, ServerCount count, Lease lease,
      long units, Instant sentAt) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(count, "count");
    Objects.requireNonNull(lease, "lease");
    Objects.requireNonNull(sentAt, "sentAt");
    StoreArguments.notNegative("units", units);
    return call(now -> shared.observe(key, count, lease, units, sentAt, instanceId, now));
  }

  @Override
  public CompletionStage<Lease> lease(QuotaKey key, long minUnits, long maxUnits) {
    Objects.requireNonNull(key, "key");
    StoreArguments.leaseBounds(minUnits, maxUnits);
    // Never "e:...", the buckets' names, whatever the instance is called.
    String id = shared.leaseSequence.incrementAndGet() + "@" + instanceId;
    return call(now -> shared.lease(key, id, minUnits, maxUnits, instanceId, now));
  }

  @Override
  public CompletionStage<SharedQuota> spent(Lease lease, long units, Instant lastSentAt) {
    Objects.requireNonNull(lease, "lease");
    Objects.requireNonNull(lastSentAt, "lastSentAt");
    StoreArguments.notNegative("units", units);
    return call(now -> shared.spent(lease, units, lastSentAt, instanceId, now));
  }

  @Override
  public CompletionStage<SharedQuota> release(Lease lease, long unusedUnits) {
    Objects.requireNonNull(lease, "lease");
    StoreArguments.notNegative("unusedUnits", unusedUnits);
    return call(now -> shared.release(lease, unusedUnits, instanceId, now));
  }

  @Override
  public CompletionStage<SharedQuota> hold(QuotaKey key, Instant until) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(until, "until");
    return call(now -> shared.hold(key, until, instanceId, now));
  }

  @Override
  public CompletionStage<SharedQuota> lift(QuotaKey key, Instant until) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(until, "until");
    return call(now -> shared.lift(key, until, instanceId, now));
  }

  @Override
  public CompletionStage<SharedQuota> learnRate(QuotaKey key, RefillRate rate) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(rate, "rate");
    return call(now -> shared.learnRate(key, rate, instanceId, now));
  }

  @Override
  public CompletionStage<SharedQuota> read(QuotaKey key) {
    Objects.requireNonNull(key, "key");
    return call(now -> shared.read(key, instanceId, now));
  }

  @Override
  public void close() {
    closed.set(true);
  }

  @Override
  public String toString() {
    return "InMemoryQuotaStore[" + instanceId + "]";
  }

  private <T> CompletionStage<T> call(Function<Instant, T> operation) {
    CompletableFuture<T> result = new CompletableFuture<>();
    Runnable run = () -> {
      if (closed.get()) {
        result.completeExceptionally(new QuotaStoreException("store closed"));
      } else {
        result.complete(operation.apply(shared.clock.instant()));
      }
    };
    if (shared.roundTrip.isZero()) {
      run.run();
    } else {
      shared.scheduler.schedule(run, shared.roundTrip);
    }
    return result;
  }

  /**
   * Builds an {@link InMemoryQuotaStore}. Not thread-safe; {@link #build} copies what it was
   * given.
   */
  public static final class Builder {
    private InstantSource clock = InstantSource.system();
    private Duration roundTrip = Duration.ZERO;
    private Scheduler scheduler = Scheduler.system();
    private long maxLeaseUnits = 16;
    private Duration maxLeaseDuration = Duration.ofSeconds(1);
    private Duration heartbeat = Duration.ofSeconds(10);
    private int maxKeys = 10_000;
    private String instanceName = "instance-1";

    private Builder() {}

    /**
     * Sets the wall clock; default {@link InstantSource#system()}.
     *
     * @param clock the clock
     * @return this builder
     */
    public Builder clock(InstantSource clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * Makes each call take effect and complete {@code roundTrip} after it was made, waiting on
     * {@code scheduler}; default zero (each call completes before it returns).
     *
     * @param roundTrip the delay of every call
     * @param scheduler where calls complete after the delay
     * @return this builder
     * @throws IllegalArgumentException if {@code roundTrip} is negative or longer than a minute
     */
    public Builder roundTrip(Duration roundTrip, Scheduler scheduler) {
      Objects.requireNonNull(roundTrip, "roundTrip");
      if (roundTrip.isNegative() || roundTrip.compareTo(Duration.ofMinutes(1)) > 0) {
        throw new IllegalArgumentException(
            "roundTrip must be 0 to 1 minute but was " + roundTrip);
      }
      this.roundTrip = roundTrip;
      this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
      return this;
    }

    /**
     * Sets the most units one lease grants (unless a single request costs more); default 16.
     *
     * @param maxLeaseUnits the most units per lease
     * @return this builder
     * @throws IllegalArgumentException if not positive
     */
    public Builder maxLeaseUnits(long maxLeaseUnits) {
      this.maxLeaseUnits = StoreArguments.maxLeaseUnits(maxLeaseUnits);
      return this;
    }

    /**
     * Sets the longest a lease is valid (never past the window's reset either); default 1 s.
     *
     * @param maxLeaseDuration the longest a lease is valid
     * @return this builder
     * @throws IllegalArgumentException if not positive or longer than a day
     */
    public Builder maxLeaseDuration(Duration maxLeaseDuration) {
      this.maxLeaseDuration =
          StoreArguments.positive("maxLeaseDuration", maxLeaseDuration, Duration.ofDays(1));
      return this;
    }

    /**
     * Sets how long an instance counts as alive after its last lease, for sizing leases;
     * default 10 s.
     *
     * @param heartbeat how long an instance counts as alive
     * @return this builder
     * @throws IllegalArgumentException if not positive or longer than a day
     */
    public Builder heartbeat(Duration heartbeat) {
      this.heartbeat = StoreArguments.positive("heartbeat", heartbeat, Duration.ofDays(1));
      return this;
    }

    /**
     * Sets the most keys whose state is kept; default 10,000.
     *
     * @param maxKeys the most keys kept
     * @return this builder
     * @throws IllegalArgumentException if not positive
     */
    public Builder maxKeys(int maxKeys) {
      if (maxKeys < 1) {
        throw new IllegalArgumentException("maxKeys must be positive but was " + maxKeys);
      }
      this.maxKeys = maxKeys;
      return this;
    }

    /**
     * Sets the name of the instance {@link #build} returns; default {@code instance-1}.
     *
     * @param instanceName the name; not empty
     * @return this builder
     * @throws IllegalArgumentException if empty
     */
    public Builder instanceName(String instanceName) {
      Objects.requireNonNull(instanceName, "instanceName");
      if (instanceName.isEmpty()) {
        throw new IllegalArgumentException("instanceName must not be empty");
      }
      this.instanceName = instanceName;
      return this;
    }

    /**
     * Returns a new store (one instance of a new fleet).
     *
     * @return the store
     */
    public InMemoryQuotaStore build() {
      return new InMemoryQuotaStore(new FleetMemory(clock, roundTrip, scheduler, maxLeaseUnits,
          maxLeaseDuration, heartbeat, maxKeys), instanceName);
    }
  }
}
