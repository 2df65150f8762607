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
 * First contact of a fleet of 50 instances of 4 closed-loop callers with a fixed window of 100 per
 * 60 s that answers bare 429s (no count, no {@code Retry-After}), 50 ms away, the store 1 ms away.
 */
@Timeout(300)
class FleetFirstContactWindowTest {
  private static final long ROUND_TRIP_MS = 250;

  /**
   * The window is spent in its first second; the fleet's holds double (1, 2, 4, 8, 16 s ...) until
   * the window ends. Each hold's end lets go at most the fleet's budget (two units, then its
   * rate), not every instance the hold held: at most a few 429s within a second of each hold's
   * end.
   *
   * <p>A known limit, not met yet: 65 429s within a second of the hold that ends 31.9 s in (120
   * in all). Every instance the hold held does lease from the fleet's budget when it ends; the
   * budget's rate, a floor of one request per hold, is doubled from 1 to 512 a second within the
   * 4 s that follow (the instances that read the floor near the hold's end raise it once per
   * what was left of the hold when they read it, and the check that the fleet is admitted at
   * half the rate, one instance's admitted responses times the instances, passes on one response
   * for a fleet of four or more), so the fresh window is spent with every caller in flight.
   * Traced again (main of the twenty-sixth session: 66 within a second, 135 in all): the fleet
   * does send from the budget at each doubled rate up to 64 a second (its bucket was never found
   * full), and the raises come a round trip apart or less, so counting the fleet's own admitted
   * responses would not stop the climb before the window runs dry; what stops it is a 429, with
   * the rate times the round trip in flight.
   */
  @Disabled("known limit: a hold's end lets the fleet's budget go at a rate doubled past what"
      + " the fleet is admitted at")
  @Test
  void aHoldsEndLetsGoTheFleetsBudgetNotEveryInstance() {
    VirtualClock clock = VirtualClock.create();
    InMemoryQuotaStore store = InMemoryQuotaStore.builder().clock(clock)
        .roundTrip(Duration.ofMillis(1), clock).build();
    SilentWindow window = new SilentWindow(clock, 100, Duration.ofSeconds(60));
    // The first window ends 25 s in: while the fleet is held by its fourth doubled hold.
    clock.advance(Duration.ofNanos(Duration.ofSeconds(35).toNanos()
        - Math.floorMod(clock.read(), Duration.ofSeconds(60).toNanos())));
    long start = clock.read();
    List<Long> refused = new ArrayList<>();
    SilentBucket.drive(clock, () -> {
      RateLimitSignal s = window.handle();
      if (s.status() == 429) {
        refused.add(clock.read() - start);
      }
      return s;
    }, SilentBucket.pacers(clock, store, 50, true), 4, 60, ROUND_TRIP_MS);
    long first = refused.get(0);
    // The largest volley after the first burst: the 429s within any second starting 2 s after
    // the first 429 (by then the fleet's first hold has ended).
    int volley = 0;
    long at = 0;
    for (int i = 0; i < refused.size(); i++) {
      if (refused.get(i) < first + Duration.ofSeconds(2).toNanos()) {
        continue;
      }
      int n = 0;
      for (int j = i; j < refused.size()
          && refused.get(j) - refused.get(i) < Duration.ofSeconds(1).toNanos(); j++) {
        n++;
      }
      if (n > volley) {
        volley = n;
        at = refused.get(i);
      }
    }
    assertThat(volley).as("429s within a second at %.2f s, at a hold's end (%d in all)",
        at / 1e9, window.throttled)
        .isLessThanOrEqualTo(4);
  }
}
