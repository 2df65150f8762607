package dev.headway.store;

import dev.headway.Scheduler;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
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
 * effect and completes after that delay on the builder's {@link Scheduler}; {@link
 * #unavailable(boolean)} makes every call fail, as a store that is down would. Without a round
 * trip, each call completes before it returns.
 *
 * <p>The state of at most {@link Builder#maxKeys} keys is kept (least recently used ones are
 * dropped first), at most {@value #MAX_LEASES_PER_KEY} leases per key (ended leases are merged
 * into at most 32 buckets; a lease is refused while that many are still valid). Thread-safe.
 */
public final class InMemoryQuotaStore implements QuotaStore {
  /** The most leases kept per key; beyond it the ones ending first are dropped. */
  public static final int MAX_LEASES_PER_KEY = 1024;

  private static final Duration MAX_HOLD = Duration.ofDays(1);
  private static final Duration RATE_TTL = Duration.ofDays(1);
  /** A count without reset nor window is believed this long. */
  private static final Duration COUNT_TTL = Duration.ofDays(1);
  /** Ended leases are merged into buckets this wide. */
  private static final long BUCKET_MILLIS = 100;
  /** Beyond this many buckets, they are merged into one. */
  private static final int MAX_BUCKETS = 32;
  /** Without a count, an ended lease is kept this long, for a count observed before it ended. */
  private static final Duration ENDED_LEASE_RETENTION = Duration.ofMinutes(1);
  /** A count claiming to be from further in the future than this is taken as observed now. */
  private static final Duration MAX_SKEW = Duration.ofMinutes(1);

  private final Shared shared;
  private final String instanceId;
  private final AtomicBoolean closed = new AtomicBoolean();

  private InMemoryQuotaStore(Shared shared, String instanceId) {
    this.shared = shared;
    this.instanceId = instanceId;
  }

  /** Returns a store on the system clock with the default bounds and no round trip. */
  public static InMemoryQuotaStore create() {
    return builder().build();
  }

  /** Returns a builder with the defaults described on its methods. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Returns another instance of the same fleet: a store sharing this one's state (and round trip,
   * and availability) under its own instance name, as another process would.
   *
   * @throws IllegalArgumentException if {@code name} is empty
   */
  public InMemoryQuotaStore instance(String name) {
    Objects.requireNonNull(name, "name");
    if (name.isEmpty()) {
      throw new IllegalArgumentException("name must not be empty");
    }
    return new InMemoryQuotaStore(shared, name);
  }

  /** Returns this instance's name. */
  public String instanceName() {
    return instanceId;
  }

  /**
   * Makes every call of every instance of this fleet fail with a {@link QuotaStoreException}
   * (after the round trip) while {@code down} is true, as a store whose server is down.
   */
  public void unavailable(boolean down) {
    shared.down = down;
  }

  /** Returns how many calls the instances of this fleet made (each one a round trip). */
  public long roundTrips() {
    return shared.roundTrips.get();
  }

  @Override
  public CompletionStage<SharedQuota> observe(QuotaKey key, ServerCount count) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(count, "count");
    return call(now -> shared.observe(key, count, instanceId, now));
  }

  @Override
  public CompletionStage<Lease> lease(QuotaKey key, long minUnits, long maxUnits) {
    Objects.requireNonNull(key, "key");
    checkLeaseBounds(minUnits, maxUnits);
    String id = instanceId + ":" + shared.leaseSequence.incrementAndGet();
    return call(now -> shared.lease(key, id, minUnits, maxUnits, instanceId, now));
  }

  @Override
  public CompletionStage<SharedQuota> release(Lease lease, long unusedUnits) {
    Objects.requireNonNull(lease, "lease");
    if (unusedUnits < 0) {
      throw new IllegalArgumentException("unusedUnits must not be negative but was " + unusedUnits);
    }
    return call(now -> shared.release(lease, unusedUnits, instanceId, now));
  }

  @Override
  public CompletionStage<SharedQuota> hold(QuotaKey key, Instant until) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(until, "until");
    return call(now -> shared.hold(key, until, instanceId, now));
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

  static void checkLeaseBounds(long minUnits, long maxUnits) {
    if (minUnits < 1 || minUnits > ServerCount.MAX_UNITS) {
      throw new IllegalArgumentException(
          "minUnits must be 1 to " + ServerCount.MAX_UNITS + " but was " + minUnits);
    }
    if (maxUnits < minUnits || maxUnits > ServerCount.MAX_UNITS) {
      throw new IllegalArgumentException("maxUnits must be " + minUnits + " to "
          + ServerCount.MAX_UNITS + " but was " + maxUnits);
    }
  }

  private <T> CompletionStage<T> call(Function<Instant, T> operation) {
    CompletableFuture<T> result = new CompletableFuture<>();
    Runnable run = () -> {
      if (closed.get()) {
        result.completeExceptionally(new QuotaStoreException("store closed"));
      } else if (shared.down) {
        result.completeExceptionally(new QuotaStoreException("store unavailable"));
      } else {
        result.complete(operation.apply(shared.clock.instant()));
      }
    };
    shared.roundTrips.incrementAndGet();
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

    /** Sets the wall clock; default {@link InstantSource#system()}. */
    public Builder clock(InstantSource clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * Makes each call take effect and complete {@code roundTrip} after it was made, waiting on
     * {@code scheduler}; default zero (each call completes before it returns).
     *
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
     * @throws IllegalArgumentException if not positive
     */
    public Builder maxLeaseUnits(long maxLeaseUnits) {
      if (maxLeaseUnits < 1 || maxLeaseUnits > ServerCount.MAX_UNITS) {
        throw new IllegalArgumentException(
            "maxLeaseUnits must be 1 to " + ServerCount.MAX_UNITS + " but was " + maxLeaseUnits);
      }
      this.maxLeaseUnits = maxLeaseUnits;
      return this;
    }

    /**
     * Sets the longest a lease is valid (never past the window's reset either); default 1 s.
     *
     * @throws IllegalArgumentException if not positive or longer than a day
     */
    public Builder maxLeaseDuration(Duration maxLeaseDuration) {
      this.maxLeaseDuration = positiveAtMostADay("maxLeaseDuration", maxLeaseDuration);
      return this;
    }

    /**
     * Sets how long an instance counts as alive after its last lease, for sizing leases;
     * default 10 s.
     *
     * @throws IllegalArgumentException if not positive or longer than a day
     */
    public Builder heartbeat(Duration heartbeat) {
      this.heartbeat = positiveAtMostADay("heartbeat", heartbeat);
      return this;
    }

    /**
     * Sets the most keys whose state is kept; default 10,000.
     *
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

    /** Returns a new store (one instance of a new fleet). */
    public InMemoryQuotaStore build() {
      return new InMemoryQuotaStore(new Shared(this), instanceName);
    }

    private static Duration positiveAtMostADay(String field, Duration value) {
      Objects.requireNonNull(value, field);
      if (value.isNegative() || value.isZero() || value.compareTo(Duration.ofDays(1)) > 0) {
        throw new IllegalArgumentException(
            field + " must be positive and at most a day but was " + value);
      }
      return value;
    }
  }

  /** The state every instance of one fleet shares. Guarded by its own monitor. */
  private static final class Shared {
    final InstantSource clock;
    final Duration roundTrip;
    final Scheduler scheduler;
    final long maxLeaseUnits;
    final Duration maxLeaseDuration;
    final Duration heartbeat;
    final int maxKeys;
    final AtomicLong roundTrips = new AtomicLong();
    final AtomicLong leaseSequence = new AtomicLong();
    volatile boolean down;
    private final LinkedHashMap<QuotaKey, KeyState> keys;

    Shared(Builder b) {
      clock = b.clock;
      roundTrip = b.roundTrip;
      scheduler = b.scheduler;
      maxLeaseUnits = b.maxLeaseUnits;
      maxLeaseDuration = b.maxLeaseDuration;
      heartbeat = b.heartbeat;
      maxKeys = b.maxKeys;
      keys = new LinkedHashMap<>(16, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<QuotaKey, KeyState> eldest) {
          return size() > maxKeys;
        }
      };
    }

    synchronized SharedQuota observe(QuotaKey key, ServerCount count, String instance,
        Instant now) {
      KeyState s = state(key, instance, now);
      ServerCount c = count;
      if (c.observedAt().isAfter(now.plus(MAX_SKEW))) {
        c = new ServerCount(c.remaining(), now, c.resetAt(), c.quota(), c.window());
      }
      if (s.count == null || !s.count.observedAt().isAfter(c.observedAt())) {
        s.count = c;
        s.normalize(now, this);
      }
      return s.snapshot(key);
    }

    synchronized Lease lease(QuotaKey key, String id, long minUnits, long maxUnits,
        String instance, Instant now) {
      KeyState s = state(key, instance, now);
      long upper = Math.max(minUnits, Math.min(maxUnits, maxLeaseUnits));
      Instant validUntil = now.plus(maxLeaseDuration);
      long granted;
      if (s.holdUntil != null) {
        granted = 0;
      } else if (s.count == null) {
        granted = upper;
      } else {
        long available = Math.max(0, s.count.remaining() - s.taken());
        if (available < minUnits) {
          granted = 0;
        } else {
          long share = available / s.instances.size();
          granted = Math.min(available, Math.max(minUnits, Math.min(upper, share)));
        }
        if (s.count.resetAt().isPresent() && s.count.resetAt().get().isBefore(validUntil)) {
          validUntil = s.count.resetAt().get();
        }
      }
      if (granted > 0 && !s.roomForLease()) {
        granted = 0;
      }
      if (granted > 0) {
        s.leases.put(id, new LeaseUnits(granted, validUntil));
      } else {
        validUntil = s.holdUntil != null ? s.holdUntil : now;
      }
      return new Lease(key, id, granted, validUntil, s.snapshot(key));
    }

    synchronized SharedQuota release(Lease lease, long unused, String instance, Instant now) {
      KeyState s = state(lease.key(), instance, now);
      LeaseUnits units = s.leases.get(lease.id());
      if (units != null) {
        long left = units.units - Math.min(unused, units.units);
        if (left == 0) {
          s.leases.remove(lease.id());
        } else {
          s.leases.put(lease.id(), new LeaseUnits(left, units.validUntil));
        }
      }
      return s.snapshot(lease.key());
    }

    synchronized SharedQuota hold(QuotaKey key, Instant until, String instance, Instant now) {
      KeyState s = state(key, instance, now);
      Instant capped = until.isAfter(now.plus(MAX_HOLD)) ? now.plus(MAX_HOLD) : until;
      if (capped.isAfter(now) && (s.holdUntil == null || capped.isAfter(s.holdUntil))) {
        s.holdUntil = capped;
      }
      return s.snapshot(key);
    }

    synchronized SharedQuota learnRate(QuotaKey key, RefillRate rate, String instance,
        Instant now) {
      KeyState s = state(key, instance, now);
      if (s.rate == null || !s.rate.learnedAt().isAfter(rate.learnedAt())) {
        s.rate = rate;
        s.normalize(now, this);
      }
      return s.snapshot(key);
    }

    synchronized SharedQuota read(QuotaKey key, String instance, Instant now) {
      return state(key, instance, now).snapshot(key);
    }

    private KeyState state(QuotaKey key, String instance, Instant now) {
      KeyState s = keys.computeIfAbsent(key, k -> new KeyState());
      s.instances.put(instance, now.plus(heartbeat));
      s.normalize(now, this);
      return s;
    }
  }

  private record LeaseUnits(long units, Instant validUntil) {}

  /** One key's state; guarded by {@link Shared}'s monitor. */
  private static final class KeyState {
    ServerCount count;
    final LinkedHashMap<String, LeaseUnits> leases = new LinkedHashMap<>();
    Instant holdUntil;
    RefillRate rate;
    final Map<String, Instant> instances = new LinkedHashMap<>();

    /** Expires what is due at {@code now}; starts the next window of a count whose reset passed. */
    void normalize(Instant now, Shared shared) {
      if (count != null) {
        count = current(count, now);
      }
      if (count != null) {
        Instant observedAt = count.observedAt();
        leases.values().removeIf(l -> !l.validUntil.isAfter(observedAt));
      } else {
        Instant forgetBefore = now.minus(ENDED_LEASE_RETENTION);
        leases.values().removeIf(l -> l.validUntil.isBefore(forgetBefore));
      }
      mergeEnded(now);
      if (holdUntil != null && !holdUntil.isAfter(now)) {
        holdUntil = null;
      }
      if (rate != null && !rate.learnedAt().plus(RATE_TTL).isAfter(now)) {
        rate = null;
      }
      instances.values().removeIf(until -> !until.isAfter(now));
    }

    /** Returns the count in force at {@code now}: this one, the next window's, or none. */
    private static ServerCount current(ServerCount c, Instant now) {
      if (c.resetAt().isEmpty()) {
        Duration ttl = c.window().orElse(COUNT_TTL);
        return c.observedAt().plus(ttl).isAfter(now) ? c : null;
      }
      Instant reset = c.resetAt().get();
      if (reset.isAfter(now)) {
        return c;
      }
      if (c.quota().isEmpty() || c.window().isEmpty()) {
        return null;
      }
      long windowNanos = c.window().get().toNanos();
      long behind = Duration.between(reset, now).toNanos();
      long windows = behind / windowNanos + 1;
      Instant next = reset.plusNanos(windowNanos * windows);
      return new ServerCount(c.quota().getAsLong(), next.minus(c.window().get()),
          Optional.of(next), c.quota(), c.window());
    }

    long taken() {
      if (count == null) {
        return 0;
      }
      long sum = 0;
      for (LeaseUnits l : leases.values()) {
        sum = Math.min(ServerCount.MAX_UNITS, sum + l.units);
      }
      return sum;
    }

    /**
     * Merges ended leases into buckets of 100 ms by their end ({@code e:<end>}), and more than 32
     * buckets into one with the latest end: their units stay taken (spent, or not returned) until
     * a count observed at or after the bucket's end, and the leases kept between two counts stay
     * few.
     */
    void mergeEnded(Instant now) {
      Map<String, LeaseUnits> merged = null;
      Iterator<Map.Entry<String, LeaseUnits>> it = leases.entrySet().iterator();
      while (it.hasNext()) {
        Map.Entry<String, LeaseUnits> e = it.next();
        LeaseUnits l = e.getValue();
        if (e.getKey().startsWith("e:") || l.validUntil.isAfter(now)) {
          continue;
        }
        it.remove();
        long millis = l.validUntil.toEpochMilli();
        long end = Math.floorDiv(millis + BUCKET_MILLIS - 1, BUCKET_MILLIS) * BUCKET_MILLIS;
        String bucket = "e:" + end;
        if (merged == null) {
          merged = new LinkedHashMap<>();
        }
        LeaseUnits before = merged.get(bucket);
        merged.put(bucket, new LeaseUnits(
            Math.min(ServerCount.MAX_UNITS, l.units + (before == null ? 0 : before.units)),
            Instant.ofEpochMilli(end)));
      }
      if (merged != null) {
        for (Map.Entry<String, LeaseUnits> e : merged.entrySet()) {
          LeaseUnits existing = leases.get(e.getKey());
          long units = e.getValue().units + (existing == null ? 0 : existing.units);
          leases.put(e.getKey(),
              new LeaseUnits(Math.min(ServerCount.MAX_UNITS, units), e.getValue().validUntil));
        }
      }
      // More than MAX_BUCKETS: one bucket with the latest end (kept until a count after it).
      long buckets = leases.keySet().stream().filter(k -> k.startsWith("e:")).count();
      if (buckets > MAX_BUCKETS) {
        long units = 0;
        Instant latest = Instant.EPOCH;
        Iterator<Map.Entry<String, LeaseUnits>> all = leases.entrySet().iterator();
        while (all.hasNext()) {
          Map.Entry<String, LeaseUnits> e = all.next();
          if (e.getKey().startsWith("e:")) {
            units = Math.min(ServerCount.MAX_UNITS, units + e.getValue().units);
            latest = e.getValue().validUntil.isAfter(latest) ? e.getValue().validUntil : latest;
            all.remove();
          }
        }
        leases.put("e:" + latest.toEpochMilli(), new LeaseUnits(units, latest));
      }
    }

    boolean roomForLease() {
      return leases.size() < MAX_LEASES_PER_KEY;
    }

    SharedQuota snapshot(QuotaKey key) {
      return new SharedQuota(key, Optional.ofNullable(count), taken(),
          Optional.ofNullable(holdUntil), Optional.ofNullable(rate), Math.max(1, instances.size()));
    }
  }
}
