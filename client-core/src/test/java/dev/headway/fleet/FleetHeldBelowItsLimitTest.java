package dev.headway.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.RateLimitSignal;
import dev.headway.store.InMemoryQuotaStore;
import dev.headway.testing.VirtualClock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A run of 429s while the fleet's budget is held below the limit it found does not walk the
 * budget down: a bucket of 10 that gives one back every 600 ms (100 a minute), 50 ms away,
 * 10 instances of 4 closed-loop callers sharing a store 1 ms away. From 120 s to 240 s the
 * server refuses one request every 15 s whatever the pace (another client spent the bucket for
 * a moment: 8 429s that say nothing of the fleet's rate). In the minute after the run, the fleet
 * admits about what it admits in the same minute without it.
 */
@Timeout(300)
class FleetHeldBelowItsLimitTest {
  private static final long ROUND_TRIP_MS = 50;
  private static final long S = 1_000_000_000L;

  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  void aRunOf429sWhileHeldBelowTheLimitDoesNotWalkTheBudgetDown(boolean retryAfter) {
    long quiet = run(false, retryAfter);
    long afterRun = run(true, retryAfter);
    assertThat(afterRun).as("admitted from 240 s to 300 s after a run of foreign 429s, against"
        + " %d without it", quiet).isGreaterThanOrEqualTo(quiet * 85 / 100);
  }

  private static long run(boolean foreign429s, boolean retryAfter) {
    VirtualClock clock = VirtualClock.create();
    long start = clock.read();
    InMemoryQuotaStore store = InMemoryQuotaStore.builder().clock(clock)
        .roundTrip(Duration.ofMillis(1), clock).build();
    SilentBucket bucket = new SilentBucket(clock, 10, Duration.ofMillis(600), retryAfter);
    long[] nextForeign = {start + 120 * S};
    long[] okAfter = {0};
    SilentBucket.drive(clock, () -> {
      long now = clock.read();
      if (foreign429s && now >= nextForeign[0] && now < start + 240 * S) {
        nextForeign[0] += 15 * S;
        return new RateLimitSignal(429, List.of(), List.of(),
            retryAfter ? Optional.of(Duration.ofSeconds(1)) : Optional.empty(), Optional.empty(),
            Optional.empty(), List.of(), List.of(), List.of(), true);
      }
      RateLimitSignal s = bucket.handle();
      if (now - start >= 240 * S && s.status() != 429) {
        okAfter[0]++;
      }
      return s;
    }, SilentBucket.pacers(clock, store, 10, true), 4, 300, ROUND_TRIP_MS);
    return okAfter[0];
  }
}
