package dev.headway.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
import dev.headway.testing.VirtualClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Instances of four callers share a sliding-window counter of 100 per 60 s that says its count
 * and reset in {@code X-RateLimit} headers and no window (Cloudflare's, Kong's: the reset is the
 * end of the current fixed window, when the count is not yet back), 25 ms each way, for 10
 * minutes, through a store and without one. The counts the server sends are the fleet's counts:
 * the fleet with the store must get at least what the same instances get without it. Virtual
 * time.
 */
@Timeout(120)
class FleetSlidingCountTest {
  private static final long RUN_NANOS = 600_000_000_000L;

  /**
   * Runs {@code instances} instances of four callers for the run (and a window more, for the
   * answers in flight), through a store if {@code store}; returns the server's loop.
   */
  private static SlidingWindowLoop run(int instances, boolean store) {
    return run(instances, store, 23_700_000_000L, 25_000_000L);
  }

  /**
   * As {@link #run(int, boolean)}, the run starting {@code phaseNanos} into a fixed window,
   * {@code wayNanos} each way.
   */
  private static SlidingWindowLoop run(int instances, boolean store, long phaseNanos,
      long wayNanos) {
    VirtualClock clock = VirtualClock.create();
    SlidingWindowLoop server = new SlidingWindowLoop(clock, 100, 60_000_000_000L,
        phaseNanos, false, "x-ratelimit", wayNanos, wayNanos, RUN_NANOS).jitter(7);
    if (store) {
      server.fleet(instances, 4);
    } else {
      for (int i = 0; i < instances; i++) {
        Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
            .jitterSeed(i + 1).build();
        for (int c = 0; c < 4; c++) {
          server.loop(pacer);
        }
      }
    }
    clock.advance(Duration.ofNanos(RUN_NANOS + 60_000_000_000L));
    return server;
  }

  /**
   * Five instances. One whose count's reset moved on by a window with the count still spent (a
   * 429 at the reset, whose {@code Retry-After} said the next unit was back long before it) paces
   * at that move, as a single client does: a sliding counter gives its units back over its
   * window. But the store was never told that rate (the move is no window it could take): it
   * kept the spent count until the reset and refused the others, every other window (600
   * admitted in 10 minutes, 4 429s; without the store 1,002 and 54 429s). The rate a policy is
   * paced at, move or window, is now the fleet's, once its counts showed half the quota spent
   * under one reset: 1,040 admitted, 1 429.
   */
  @Test
  void fiveInstancesShareTheRateAMovedResetPacesASlidingCounterAt() {
    SlidingWindowLoop fleet = run(5, true);
    SlidingWindowLoop plain = run(5, false);
    assertThat(fleet.ok).as("admitted with the store (%d 429s), without it %d (%d 429s)",
        fleet.throttled, plain.ok, plain.throttled).isGreaterThanOrEqualTo(plain.ok);
    assertThat(fleet.throttled).as("429s of %d admitted", fleet.ok).isLessThanOrEqualTo(2);
  }

  /**
   * Ten instances, 10 ms away, the run starting 46.8 s into a fixed window: the fleet spends the
   * first window in a burst, and at its reset the counter still holds all of it (the first
   * answer after the reset is admitted, with the count spent and the reset a window on). Each
   * instance had sent about a tenth of what the count held, so none took the count for a
   * sliding counter, which a single client does by its own units: the fleet waited for every
   * other reset (593 admitted in 10 minutes, against 1,064 for the same instances without the
   * store, in the simulator). In a fleet, the units the fleet was admitted under the reset that
   * passed are those the count held when it passed.
   */
  @Test
  void tenInstancesTakeACounterStillHoldingTheFleetsUnitsAtItsResetForASlidingCounter() {
    SlidingWindowLoop fleet = run(10, true, 46_755_000_000L, 10_000_000L);
    SlidingWindowLoop plain = run(10, false, 46_755_000_000L, 10_000_000L);
    assertThat(fleet.ok).as("admitted with the store (%d 429s), without it %d (%d 429s)",
        fleet.throttled, plain.ok, plain.throttled).isGreaterThanOrEqualTo(plain.ok);
    assertThat(fleet.throttled).as("429s of %d admitted", fleet.ok).isLessThanOrEqualTo(2);
  }
}
