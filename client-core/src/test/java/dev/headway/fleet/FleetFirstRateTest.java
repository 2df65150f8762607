package dev.headway.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.RateLimitSignal;
import dev.headway.store.InMemoryQuotaStore;
import dev.headway.testing.VirtualClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The fleet's first rate where the server says only {@code Retry-After}: a bucket of 100 that
 * gives one back every 600 ms (100 a minute), answering 429 with {@code Retry-After: 1}, 250 ms
 * away, 50 instances of 4 closed-loop callers sharing a store 1 ms away.
 */
@Timeout(300)
class FleetFirstRateTest {
  private static final long ROUND_TRIP_MS = 250;

  /**
   * After the first burst spent the bucket, a {@code Retry-After} of one second (shorter than the
   * time the burst took) says when the next token is back, not what the fleet may send: the
   * fleet starts at one request per hold and doubles from there, as one instance's learner does.
   * Before, it started at what the whole fleet sent in its first burst (36 to 92 a second
   * against 1.7) and halved from there once per hold, each hold ending in a volley of 429s: 50
   * instances drew 25 429s from 1 s to 20 s after the first (one instance: 4); now 8, with 142
   * admitted (148 before, one instance 146).
   */
  @Test
  void aShortRetryAfterStartsTheFleetAtOneRequestPerHold() {
    Counted one = run(1);
    Counted fleet = run(50);
    assertThat(fleet.bucket.firstBurst).as("the first burst's 429s").isPositive();
    assertThat(fleet.after).as("429s of 50 instances from 1 s to 20 s after the first, against"
        + " %d of one (admitted: %d and %d)", one.after, fleet.bucket.ok, one.bucket.ok)
        .isLessThanOrEqualTo(3 * one.after);
    assertThat(fleet.bucket.ok).as("admitted by 50 instances against one instance's")
        .isGreaterThanOrEqualTo(one.bucket.ok * 90 / 100);
  }

  private static Counted run(int instances) {
    VirtualClock clock = VirtualClock.create();
    InMemoryQuotaStore store = InMemoryQuotaStore.builder().clock(clock)
        .roundTrip(Duration.ofMillis(1), clock).build();
    Counted c = new Counted(clock, new SilentBucket(clock, 100, Duration.ofMillis(600), true));
    SilentBucket.drive(clock, c::handle, SilentBucket.pacers(clock, store, instances, true), 4,
        30, ROUND_TRIP_MS);
    return c;
  }

  /** Counts the 429s from 1 s to 20 s after the first. */
  private static final class Counted {
    final VirtualClock clock;
    final SilentBucket bucket;
    long first = -1;
    long after;

    Counted(VirtualClock clock, SilentBucket bucket) {
      this.clock = clock;
      this.bucket = bucket;
    }

    RateLimitSignal handle() {
      RateLimitSignal s = bucket.handle();
      long now = clock.read();
      if (s.status() == 429) {
        if (first < 0) {
          first = now;
        }
        long since = now - first;
        if (since >= 1_000_000_000L && since < 20_000_000_000L) {
          after++;
        }
      }
      return s;
    }
  }
}
