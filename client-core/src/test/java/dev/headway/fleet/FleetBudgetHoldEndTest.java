package dev.headway.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.RateLimitSignal;
import dev.headway.store.InMemoryQuotaStore;
import dev.headway.testing.VirtualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A fleet of 50 instances of 4 closed-loop callers against a fixed window of 100 per 60 s that
 * answers bare 429s, 250 ms away, the store 1 ms away: once the window is spent, the fleet probes
 * it from its own budget (policy {@code learned}), a bucket of two units.
 */
@Timeout(300)
class FleetBudgetHoldEndTest {
  private static final long ROUND_TRIP_MS = 250;

  /**
   * After a silence of a second or more (the fleet held), the requests that reach the server
   * before any answer can come back are at most the two units of the fleet's budget (plus what
   * its rate gives back meanwhile). Before, the store moved the full bucket to the instant of the
   * lease that found it full, and the unit that lease lent, told as sent at that same
   * millisecond, counted as held by the moved count: it was lent again, and three or more
   * requests went at a hold's end, each refused.
   *
   * <p>A known limit, not met yet (largest burst 3 in the first window). Telling such a unit as
   * sent just after the count it was lent from brings it to 2, but against a bucket 300 ms away
   * ({@code FleetNeverWorseTest.aFleetBudgetIsLentAtItsRateAFarServer}) the fleet was then
   * admitted 1,142 times, under the bound of 1,426 it meets before: the units lent again had been
   * making up for a budget whose leases were refused about 40 times for each one granted once
   * its rate was 1,024 a second (its count moved every few milliseconds, some units always
   * taken). Not understood yet.
   */
  @Disabled("known limit: a unit lent by the lease that moved the fleet's budget is lent again")
  @Test
  void aHoldsEndLetsGoNoMoreThanTheBudgetsTwoUnits() {
    VirtualClock clock = VirtualClock.create();
    InMemoryQuotaStore store = InMemoryQuotaStore.builder().clock(clock)
        .roundTrip(Duration.ofMillis(1), clock).build();
    SilentWindow window = new SilentWindow(clock, 100, Duration.ofSeconds(60));
    long start = clock.read();
    List<Long> arrivals = new ArrayList<>();
    SilentBucket.drive(clock, () -> {
      arrivals.add(clock.read() - start);
      return window.handle();
    }, SilentBucket.pacers(clock, store, 50, true), 4, 60, ROUND_TRIP_MS);
    // After the first window (spent at first contact): every burst that follows a second or
    // more without a request, counted over 10 ms.
    int largest = 0;
    int bursts = 0;
    long second = Duration.ofSeconds(1).toNanos();
    for (int i = 1; i < arrivals.size(); i++) {
      if (arrivals.get(i) < Duration.ofSeconds(10).toNanos()
          || arrivals.get(i) - arrivals.get(i - 1) < second) {
        continue;
      }
      int n = 0;
      for (int j = i; j < arrivals.size()
          && arrivals.get(j) - arrivals.get(i) < Duration.ofMillis(10).toNanos(); j++) {
        n++;
      }
      bursts++;
      largest = Math.max(largest, n);
    }
    System.out.printf("admitted %d, 429s %d, bursts after a silence %d, largest %d%n",
        window.ok, window.throttled, bursts, largest);
    assertThat(bursts).as("bursts after a silence").isPositive();
    assertThat(largest).as("requests within 10 ms after a silence (%d 429s in all)",
        window.throttled).isLessThanOrEqualTo(2);
  }
}
