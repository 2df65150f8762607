package dev.headway.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
import dev.headway.store.InMemoryQuotaStore;
import dev.headway.testing.VirtualClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An instance alone with its store does as well as without one against a token bucket that
 * tells its count as {@code X-RateLimit-Limit}, {@code -Remaining} and {@code -Reset} (epoch
 * seconds, rounded up) with no window: its reset is when it is full again, a second or two
 * ahead while in use. Without a store, the times already given to waiting callers follow the
 * answers that show the bucket's units back, and a spent count is not waited out to its reset;
 * with a store, a lone instance did neither (the fleet's budget was taken to pace it, but alone
 * it paces as without a store), and its callers waited up to the reset: 20 per second, 5
 * callers, 15 ms each way (the simulator's seed 11813). Virtual time; callers in a closed loop,
 * each asking {@code acquireAsync}.
 */
@Timeout(120)
class FleetLoneBucketTest {
  static final long SECOND = 1_000_000_000L;
  private long quota = 20;
  private long perTokenNanos = SECOND / 20;
  private int callers = 5;
  private long oneWayNanos = 15_000_000L;

  /** A bucket of {@code quota} giving one back every {@code perTokenNanos}, and its callers. */
  private static FleetLoneBucketTest of(long quota, long perTokenNanos, int callers,
      long oneWayNanos) {
    FleetLoneBucketTest test = new FleetLoneBucketTest();
    test.quota = quota;
    test.perTokenNanos = perTokenNanos;
    test.callers = callers;
    test.oneWayNanos = oneWayNanos;
    return test;
  }

  private final VirtualClock clock = VirtualClock.create();

  private XRateLimitBucket bucket;

  /** 5 callers in a closed loop for {@code seconds}, 15 ms each way to the server. */
  private FleetLoneBucketTest run(boolean store, long seconds) {
    bucket = new XRateLimitBucket(clock, quota, perTokenNanos);
    Pacer.Builder b = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .jitterSeed(7);
    if (store) {
      b.store(InMemoryQuotaStore.builder().clock(clock).roundTrip(Duration.ofMillis(1), clock)
          .build().instance("alone"));
    }
    Pacer pacer = b.build();
    long end = clock.read() + seconds * SECOND;
    bucket.callers(pacer, callers, Duration.ofNanos(oneWayNanos), end);
    while (clock.read() < end + SECOND) {
      clock.advance(Duration.ofMillis(1));
    }
    return this;
  }

  @Test
  void aLoneInstanceWithItsStoreUsesABucketsUnitsAsItsAnswersShowThemBack() {
    FleetLoneBucketTest plain = new FleetLoneBucketTest().run(false, 60);
    FleetLoneBucketTest shared = new FleetLoneBucketTest().run(true, 60);
    assertThat(plain.bucket.admitted).as("the bucket gives about 20 a second").isGreaterThan(1_100);
    assertThat(shared.bucket.admitted)
        .as("admitted with the store (longest wait %d ms) against %d without (%d ms)",
            shared.bucket.longestWaitNanos / 1_000_000, plain.bucket.admitted,
            plain.bucket.longestWaitNanos / 1_000_000)
        .isGreaterThanOrEqualTo(plain.bucket.admitted * 98 / 100);
    assertThat(shared.bucket.longestWaitNanos).as("the longest wait for a permit, with the store")
        .isLessThanOrEqualTo(plain.bucket.longestWaitNanos + 50_000_000L);
    assertThat(shared.bucket.throttled).isLessThanOrEqualTo(plain.bucket.throttled + 1);
  }

  /**
   * A slow bucket, 5 units giving one back every 58 s, 3 callers 2 ms away (the simulator's seed
   * 12007): its reset grows by 58 s with each unit spent, the pace a fleet's instances tell the
   * store as the bucket's rate; alone, an instance reads it as without a store, by the units it
   * sees come back.
   */
  @Test
  void aLoneInstanceWithItsStoreReadsASlowBucketAsWithout() {
    FleetLoneBucketTest plain = FleetLoneBucketTest.of(5, 58 * SECOND, 3, 1_000_000L)
        .run(false, 600);
    FleetLoneBucketTest shared = FleetLoneBucketTest.of(5, 58 * SECOND, 3, 1_000_000L)
        .run(true, 600);
    assertThat(shared.bucket.admitted)
        .as("admitted with the store (%d 429s, %d refused) against %d without (%d 429s, "
            + "%d refused)", shared.bucket.throttled, shared.bucket.refused,
            plain.bucket.admitted, plain.bucket.throttled, plain.bucket.refused)
        .isGreaterThanOrEqualTo(plain.bucket.admitted);
    assertThat(shared.bucket.throttled).isLessThanOrEqualTo(plain.bucket.throttled);
    assertThat(shared.bucket.refused).isLessThanOrEqualTo(plain.bucket.refused);
  }
}
