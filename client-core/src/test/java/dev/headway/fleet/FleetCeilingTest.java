package dev.headway.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.RateLimitSignal;
import dev.headway.store.InMemoryQuotaStore;
import dev.headway.testing.VirtualClock;
import java.time.Duration;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A fleet that found a silent server's limit does not keep drawing 429s by raising past it: a
 * bucket of 10 that gives one back every 600 ms (100 a minute), 50 ms away, 10 instances of 4
 * closed-loop callers sharing a store 1 ms away, for 600 s (the simulator's run). After the first
 * two minutes (first contact and the budget's first cycles), the fleet's budget drew a 429 every
 * 20 to 30 s (each cut to nine tenths was raised past the rate that drew the 429 within four or
 * five raise cycles): 21 from 120 s to 600 s, with and without {@code Retry-After}. With the
 * rate a 429 answered kept as a ceiling, 13 and 12, for as many admitted (about what the bucket
 * gives: 800 in those 480 s).
 */
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
    }, SilentBucket.pacers(clock, store, 10, true), 4, 600, ROUND_TRIP_MS);
    assertThat(late[1]).as("429s from 120 s to 600 s (%d admitted)", late[0])
        .isLessThanOrEqualTo(16);
    assertThat(late[0]).as("admitted from 120 s to 600 s").isGreaterThanOrEqualTo(780);
  }
}
