package dev.headway.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.RateLimitSignal;
import dev.headway.store.InMemoryQuotaStore;
import dev.headway.testing.VirtualClock;
import java.time.Duration;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A fleet that found a silent server's limit does not keep drawing 429s by raising past it: a
 * bucket of 10 that gives one back every 600 ms (100 a minute), 50 ms away, 10 instances of 4
 * closed-loop callers sharing a store 1 ms away, for 300 s. After the first two minutes (first
 * contact and the budget's first cycles), the fleet's budget draws few 429s (before, one every 20
 * to 30 s: each cut to nine tenths was raised past the rate that drew the 429 within four or
 * five raise cycles) and is admitted about what the bucket gives.
 *
 * <p>A known limit: 8 429s in those 180 s with {@code Retry-After} and 8 bare. A ceiling at the
 * rate a 429 answered takes them to 3 and 4, but a ceiling is a memory of 429s, and 429s that say
 * nothing of the fleet's rate then hold it below its limit ({@code FleetHeldBelowItsLimitTest},
 * {@code FleetFirstHoldTest}).
 */
@Disabled("known limit: the budget's probing past its limit draws a 429 every 20-30 s")
@Timeout(300)
class FleetCeilingTest {
  private static final long ROUND_TRIP_MS = 50;
  private static final long S = 1_000_000_000L;

  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  void aFleetDoesNotRaiseItsBudgetPastTheRateThatDrewA429Again(boolean retryAfter) {
    VirtualClock clock = VirtualClock.create();
    long start = clock.read();
    InMemoryQuotaStore store = InMemoryQuotaStore.builder().clock(clock)
        .roundTrip(Duration.ofMillis(1), clock).build();
    SilentBucket bucket = new SilentBucket(clock, 10, Duration.ofMillis(600), retryAfter);
    long[] late = new long[2];
    SilentBucket.drive(clock, () -> {
      RateLimitSignal s = bucket.handle();
      if (clock.read() - start >= 120 * S) {
        late[s.status() == 429 ? 1 : 0]++;
      }
      return s;
    }, SilentBucket.pacers(clock, store, 10, true), 4, 300, ROUND_TRIP_MS);
    System.out.printf("retryAfter=%s: from 120 s to 300 s %d admitted, %d 429s (run: %d, %d)%n",
        retryAfter, late[0], late[1], bucket.ok, bucket.throttled);
    // 180 s at 100 a minute: 300 units.
    assertThat(late[1]).as("429s from 120 s to 300 s (%d admitted)", late[0])
        .isLessThanOrEqualTo(4);
    assertThat(late[0]).as("admitted from 120 s to 300 s").isGreaterThanOrEqualTo(285);
  }
}
