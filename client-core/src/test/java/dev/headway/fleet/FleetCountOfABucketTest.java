package dev.headway.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
import dev.headway.store.InMemoryQuotaStore;
import dev.headway.testing.VirtualClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Ten instances of four callers share, through a store, a token bucket of 100 that gives one
 * back every 600 ms and tells its count as {@code X-RateLimit-Limit}, {@code -Remaining} and
 * {@code -Reset} (epoch seconds, rounded up) with no window: its reset is when it is full again.
 * The fleet's answers show the reset growing by 600 ms for each unit the count fell, as a
 * window's reset never does; before, the fleet took the reset for a window's end, spent the
 * bucket and waited for it to be full, again and again, and the units the bucket gave back in
 * the last minute went unused (simulator: 987 admitted of 1,099 in 10 minutes). Virtual time;
 * callers in a closed loop, each asking {@code acquireAsync}, 25 ms each way.
 */
@Timeout(120)
class FleetCountOfABucketTest {
  static final long SECOND = 1_000_000_000L;
  static final long QUOTA = 100;
  static final long PER_TOKEN = 600_000_000L;

  private final VirtualClock clock = VirtualClock.create();
  private XRateLimitBucket bucket;

  /** Ten instances of four callers for {@code seconds}, through one store if {@code store}. */
  private FleetCountOfABucketTest run(boolean store, long seconds) {
    bucket = new XRateLimitBucket(clock, QUOTA, PER_TOKEN);
    InMemoryQuotaStore shared = InMemoryQuotaStore.builder().clock(clock)
        .roundTrip(Duration.ofMillis(1), clock).build();
    long end = clock.read() + seconds * SECOND;
    Duration oneWay = Duration.ofMillis(25);
    for (int i = 0; i < 10; i++) {
      Pacer.Builder b = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
          .jitterSeed(i + 1);
      if (store) {
        b.store(shared.instance("i" + i));
      }
      bucket.callers(b.build(), 4, oneWay, end);
    }
    while (clock.read() < end + SECOND) {
      clock.advance(Duration.ofMillis(1));
    }
    return this;
  }

  @Test
  void aFleetPacesABucketWhoseResetIsWhenItIsFullAtItsRefillRate() {
    FleetCountOfABucketTest plain = new FleetCountOfABucketTest().run(false, 600);
    FleetCountOfABucketTest fleet = new FleetCountOfABucketTest().run(true, 600);
    long gives = QUOTA + 600 * SECOND / PER_TOKEN;
    assertThat(fleet.bucket.admitted)
        .as("admitted with the store (%d 429s) of the %d the bucket gives; without it %d (%d 429s)",
            fleet.bucket.throttled, gives, plain.bucket.admitted, plain.bucket.throttled)
        .isGreaterThanOrEqualTo(gives * 97 / 100);
    assertThat(fleet.bucket.throttled).as("429s with the store").isLessThanOrEqualTo(1);
  }
}
