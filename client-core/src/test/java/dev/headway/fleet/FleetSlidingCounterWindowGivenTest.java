package dev.headway.fleet;

import dev.headway.testing.VirtualClock;
import java.time.Duration;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Instances of four callers share, through a store (1 ms away), a strict sliding-window counter
 * of 100 per 60 s whose headers give the window (its reset the end of its current fixed window,
 * moving on by the window each time it passes), for 10 minutes, each way up to 10% longer than
 * told. The store's budget paces the fleet; what one instance was admitted under the reset before,
 * and the answers it did not take, are its own share, not the fleet's. Virtual time.
 */
@Timeout(300)
class FleetSlidingCounterWindowGivenTest {
  private static final long RUN_NANOS = 600_000_000_000L;
  private static final long MS = 1_000_000L;

  /**
   * Runs {@code instances} instances sharing a store against the counter, the run starting
   * {@code phaseMillis} into a fixed window, {@code oneWayMillis} each way; returns the server.
   */
  private static SlidingWindowLoop run(int instances, long phaseMillis, long oneWayMillis,
      long seed) {
    VirtualClock clock = VirtualClock.create();
    SlidingWindowLoop server = new SlidingWindowLoop(clock, 100, 60_000_000_000L,
        phaseMillis * MS, true, "draft-polli", oneWayMillis * MS, oneWayMillis * MS, RUN_NANOS)
        .jitter(seed);
    server.fleet(instances, 4);
    clock.advance(Duration.ofNanos(RUN_NANOS + 60_000_000_000L));
    return server;
  }

  /**
   * Each instance once refill-paced such a counter at what it alone was admitted under the reset
   * before, a share of the fleet's, and spent again the units of its own answers not taken: a
   * pace that is not the fleet's, beside the budget that is. Before, 50 instances at 1 ms each
   * way drew 1 429 (1,085 admitted) and 2 instances at 42 ms drew 7 (1,053). Paced at the quota
   * per window from the fleet's count, and by the budget, no cell draws one (1,087 and 1,058).
   */
  @Test
  void aFleetSharingAStoreIsPacedByItsBudgetNotByOneInstancesWindowBefore() {
    long[][] cells = {{50, 34_564, 1, 1}, {50, 58_871, 11, 2}, {2, 36_819, 42, 4},
        {10, 16_489, 130, 5}};
    SoftAssertions soft = new SoftAssertions();
    for (long[] c : cells) {
      SlidingWindowLoop server = run((int) c[0], c[1], c[2], c[3]);
      String what = c[0] + " instances, phase " + c[1] + " ms, " + c[2] + " ms each way: "
          + server.ok + " admitted, " + server.throttled + " 429s";
      if (Boolean.getBoolean("fleetslide.trace")) {
        System.out.println(what);
      }
      soft.assertThat(server.throttled).as(what).isZero();
      soft.assertThat(server.ok).as(what).isGreaterThan(1_000);
    }
    soft.assertAll();
  }
}
