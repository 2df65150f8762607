package dev.headway.fuzz;

import dev.headway.store.InMemoryQuotaStore;
import dev.headway.store.Lease;
import dev.headway.store.QuotaKey;
import dev.headway.store.QuotaStore;
import dev.headway.store.RefillRate;
import dev.headway.store.ServerCount;
import dev.headway.store.SharedQuota;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.SplittableRandom;
import java.util.concurrent.CompletionStage;

/**
 * A shared store whose answers are often garbage, as a co-tenant, an older version or a
 * corrupted key could leave them: an {@link InMemoryQuotaStore} whose every answer is, one time
 * in {@code rate}, replaced by values valid in type but absurd in meaning (counts observed and
 * reset in the year 9999 or 1970, counts of 10<sup>12</sup>, refill rates of a unit per
 * nanosecond learnt in year 1, leases of 10<sup>12</sup> units valid until 9999, up to 2<sup>31</sup>
 * instances; holds of up to two minutes). Not thread-safe (the sequence tests run on one
 * thread).
 */
final class GarbageStore implements QuotaStore {
  private static final Instant[] FAR = {
      Instant.parse("9999-12-31T23:59:59Z"), Instant.EPOCH, Instant.parse("0001-01-01T00:00:00Z"),
      Instant.parse("2100-01-01T00:00:00Z")};

  private final InMemoryQuotaStore store;
  private final InstantSource clock;
  private final SplittableRandom random;
  private final int rate;
  /** Answers replaced by garbage so far. */
  long garbled;

  GarbageStore(InstantSource clock, long seed, int rate) {
    this.store = InMemoryQuotaStore.builder().clock(clock).build();
    this.clock = clock;
    this.random = new SplittableRandom(seed);
    this.rate = rate;
  }

  private boolean garble() {
    boolean now = random.nextInt(rate) == 0;
    if (now) {
      garbled++;
    }
    return now;
  }

  private Instant far() {
    return FAR[random.nextInt(FAR.length)];
  }

  /**
   * A hold: none, or one of up to two minutes. A hold in the store is the fleet's to share (a
   * co-tenant's 429), capped at a day like a server's: a far one would only stop the sequence.
   */
  private Optional<Instant> hold() {
    return random.nextBoolean() ? Optional.empty()
        : Optional.of(clock.instant().plusMillis(random.nextLong(0, 120_000)));
  }

  private SharedQuota garbage(SharedQuota real) {
    if (!garble()) {
      return real;
    }
    ServerCount count = new ServerCount(
        random.nextBoolean() ? ServerCount.MAX_UNITS : random.nextLong(0, 1_000),
        far(), Optional.of(far()),
        random.nextBoolean() ? OptionalLong.of(random.nextLong(1, ServerCount.MAX_UNITS))
            : OptionalLong.empty(),
        random.nextBoolean() ? Optional.of(Duration.ofNanos(random.nextLong(1, 1_000_000)))
            : Optional.of(Duration.ofDays(366)));
    Optional<RefillRate> refill = random.nextBoolean() ? Optional.empty()
        : Optional.of(new RefillRate(random.nextLong(1, ServerCount.MAX_UNITS),
            Duration.ofNanos(random.nextLong(1, 1_000_000_000L)), far()));
    return new SharedQuota(real.key(), Optional.of(count),
        random.nextLong(0, ServerCount.MAX_UNITS), hold(), refill,
        random.nextInt(1, Integer.MAX_VALUE));
  }

  private CompletionStage<SharedQuota> garbage(CompletionStage<SharedQuota> real) {
    return real.thenApply(this::garbage);
  }

  @Override
  public CompletionStage<SharedQuota> observe(QuotaKey key, ServerCount count) {
    return garbage(store.observe(key, count));
  }

  @Override
  public CompletionStage<SharedQuota> observe(QuotaKey key, ServerCount count, Lease lease,
      long units, Instant lastSentAt) {
    return garbage(store.observe(key, count, lease, units, lastSentAt));
  }

  @Override
  public CompletionStage<Lease> lease(QuotaKey key, long minUnits, long maxUnits) {
    return store.lease(key, minUnits, maxUnits).thenApply(real -> garble()
        ? new Lease(real.key(), real.id(), ServerCount.MAX_UNITS, far(), garbage(real.state()))
        : real);
  }

  @Override
  public CompletionStage<SharedQuota> spent(Lease lease, long units, Instant lastSentAt) {
    return garbage(store.spent(lease, units, lastSentAt));
  }

  @Override
  public CompletionStage<SharedQuota> release(Lease lease, long unusedUnits) {
    return garbage(store.release(lease, unusedUnits));
  }

  @Override
  public CompletionStage<SharedQuota> hold(QuotaKey key, Instant until) {
    return garbage(store.hold(key, until));
  }

  @Override
  public CompletionStage<SharedQuota> lift(QuotaKey key, Instant until) {
    return garbage(store.lift(key, until));
  }

  @Override
  public CompletionStage<SharedQuota> learnRate(QuotaKey key, RefillRate rate) {
    return garbage(store.learnRate(key, rate));
  }

  @Override
  public CompletionStage<SharedQuota> read(QuotaKey key) {
    return garbage(store.read(key));
  }

  @Override
  public void close() {
    store.close();
  }
}
