package dev.headway.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.testing.VirtualClock;
import dev.headway.testing.store.StoreFaults;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What a fleet costs its store when the quota binds: fifty instances of four callers, 61 ms from
 * a fixed window of 100 per 60 s (draft-02 headers), for 10 minutes, every caller sending its
 * next request as soon as the last one ends. Store calls are counted for the whole fleet.
 * Virtual time.
 */
@Timeout(120)
class FleetStoreCostTest {
  private static final long RUN_NANOS = 600_000_000_000L;

  private final VirtualClock clock = VirtualClock.create();

  /**
   * An instance the store refuses because the server's count of a window is spent, the key
   * having shown it gives its quota back whole at its reset, waits for that reset (the store's
   * refusal says it) without asking again. Before, each asked every 250 ms until the reset:
   * about 100 store round trips per admitted request. And the store counts it in the fleet until
   * then (it was told to wait, it did not leave): otherwise, past the heartbeat, the first
   * instances back at the reset saw themselves alone and went on their own, and drew 429s.
   */
  @Test
  void instancesRefusedByASpentWindowWaitForItsResetWithoutAskingAgain() {
    SlidingWindowLoop server = SlidingWindowLoop.fixedWindow(clock, 100, 60_000_000_000L,
        47_842_000_000L, "draft-polli", 30_500_000L, 30_500_000L, RUN_NANOS).jitter(2);
    StoreFaults calls = new StoreFaults();
    server.fleet(50, 4, calls::wrap);
    clock.advance(Duration.ofNanos(RUN_NANOS + 60_000_000_000L));
    assertThat(server.throttled).as("429s of %d admitted", server.ok).isZero();
    assertThat(server.ok).as("admitted").isGreaterThanOrEqualTo(1_090);
    assertThat((double) calls.calls() / server.ok).as("store calls per admitted request")
        .isLessThan(25);
  }
}
