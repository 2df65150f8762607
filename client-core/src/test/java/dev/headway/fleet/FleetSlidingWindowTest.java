package dev.headway.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.testing.VirtualClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Two instances of four callers share a sliding window counter (100 per 60 s, {@code RateLimit}
 * style with the window given, the reset announced the end of the current fixed window, 50 ms to
 * the server and back) through a store, for 10 minutes. Before, every fixed window's reset drew
 * a 429: one instance, whose own count said the window was spent, waited for the reset without
 * calling the store and left its heartbeat; the other, alone, paced on its own, and at the reset
 * both sent for the one unit the sliding window gave back. Virtual time.
 */
@Timeout(120)
class FleetSlidingWindowTest {
  private static final long RUN_NANOS = 600_000_000_000L;

  private final VirtualClock clock = VirtualClock.create();
  /** The run starts 23.7 s into a fixed window; 25 ms each way. */
  private final SlidingWindowLoop server = new SlidingWindowLoop(clock, 100, 60_000_000_000L,
      23_700_000_000L, true, "ietf", 25_000_000L, 25_000_000L, RUN_NANOS);

  @Test
  void twoInstancesDrawNo429AtTheSlidingWindowsResets() {
    server.fleet(2, 4);
    clock.advance(Duration.ofNanos(RUN_NANOS + 60_000_000_000L));
    // The server allows 100 at first and then about 100 a minute: about 1,090 in 10 minutes.
    assertThat(server.ok).as("admitted (%d 429s)", server.throttled).isGreaterThan(1_000);
    assertThat(server.throttled).as("429s of %d admitted", server.ok).isZero();
  }

  /**
   * Ten instances of four callers, 4 ms from a sliding window of 100 per 60 s, starting 49.3 s
   * into a fixed window (a round trip and phase nobody tuned on). A sliding window gives units
   * back at its previous fixed window's count per window, which a fleet at the limit keeps a
   * little below the quota: a store growing counts at 1/64 below quota per window lent units a few
   * milliseconds before the server had them back, and two instances' requests for one drew
   * 429s with a {@code Retry-After} of 0-18 ms (3 in this run). The fleet's rate is now at
   * least 1/16 below quota per window. The first fixed window's reset drew 2 more: the store's
   * assumed window lent its two probes at the reset, where a sliding window whose previous window
   * was full has none back yet; they now go as the quota per window gives them back.
   */
  @Test
  void tenInstancesPacedAtTheRefillRateStayBehindTheSlidingWindow() {
    SlidingWindowLoop near = new SlidingWindowLoop(clock, 100, 60_000_000_000L, 49_300_000_000L,
        true, "ietf", 2_000_000L, 2_000_000L, RUN_NANOS);
    near.fleet(10, 4);
    clock.advance(Duration.ofNanos(RUN_NANOS + 60_000_000_000L));
    assertThat(near.ok).as("admitted (%d 429s)", near.throttled).isGreaterThan(1_000);
    assertThat(near.throttled).as("429s of %d admitted", near.ok).isZero();
  }
}
