package dev.headway.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
import dev.headway.store.InMemoryQuotaStore;
import dev.headway.store.QuotaStore;
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
    InMemoryQuotaStore store = InMemoryQuotaStore.builder().clock(clock)
        .roundTrip(Duration.ofMillis(1), clock).build();
    for (int i = 0; i < 2; i++) {
      QuotaStore instance = store.instance("instance-" + i);
      Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
          .jitterSeed(i + 1).store(instance).build();
      for (int c = 0; c < 4; c++) {
        server.loop(pacer);
      }
    }
    clock.advance(Duration.ofNanos(RUN_NANOS + 60_000_000_000L));
    // The server allows 100 at first and then about 100 a minute: about 1,090 in 10 minutes.
    assertThat(server.ok).as("admitted (%d 429s)", server.throttled).isGreaterThan(1_000);
    assertThat(server.throttled).as("429s of %d admitted", server.ok).isLessThanOrEqualTo(2);
  }
}
