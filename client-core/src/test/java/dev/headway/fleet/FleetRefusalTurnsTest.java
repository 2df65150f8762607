package dev.headway.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.testing.VirtualClock;
import dev.headway.testing.store.StoreFaults;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A refused instance asks the store again when the refusal says: fifty instances of four
 * callers, 61 ms from a sliding window counter of 100 per 60 s whose headers give the window
 * (draft-02), for 10 minutes, every caller sending its next request as soon as the last one
 * ends. The store learns the counter's refill rate from a window it started itself, and then
 * tells each instance it refuses its turn (when the rate has given the units back, after the
 * instances refused before it); before the rate, when the window's probes are back. Before,
 * refused instances asked every 250 ms, or every round trip while a window the store started
 * held its probes back, and each asked once per unit given back. Virtual time.
 */
@Timeout(120)
class FleetRefusalTurnsTest {
  private static final long RUN_NANOS = 600_000_000_000L;

  private final VirtualClock clock = VirtualClock.create();

  @Test
  void refusedInstancesAskAgainAtTheTurnTheStoreTellsThem() {
    SlidingWindowLoop server = new SlidingWindowLoop(clock, 100, 60_000_000_000L,
        47_842_000_000L, true, "draft-polli", 30_500_000L, 30_500_000L, RUN_NANOS).jitter(2);
    StoreFaults calls = new StoreFaults();
    server.fleet(50, 4, calls::wrap);
    clock.advance(Duration.ofNanos(RUN_NANOS + 60_000_000_000L));
    double perAdmitted = (double) calls.calls() / server.ok;
    System.out.printf("FleetRefusalTurnsTest: %d admitted, %d 429s, %.2f store calls each%n",
        server.ok, server.throttled, perAdmitted);
    assertThat(server.throttled).as("429s of %d admitted", server.ok).isZero();
    assertThat(server.ok).as("admitted").isGreaterThanOrEqualTo(1_000);
    assertThat(perAdmitted).as("store calls per admitted request").isLessThan(7);
  }
}
