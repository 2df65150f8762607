package dev.headway.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
import dev.headway.store.InMemoryQuotaStore;
import dev.headway.testing.VirtualClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An instance alone with its store does as well as without one against a sliding window counter
 * that announces the end of its current fixed window as the reset ({@code X-RateLimit} style, no
 * window given) and answers a spent window with a 429, a count of 0 and a {@code Retry-After} of
 * when the next unit is back: 380 per 90 s, one caller, 17 ms to the server, 15 minutes (the
 * simulator's seed 7313, scenario 29). Before, the instance found its own spent count in the
 * store and waited for that reset every window, where without the store it probed after the
 * {@code Retry-After} and went on: 2,257 admitted against 4,055. Virtual time.
 */
@Timeout(120)
class FleetLoneInstanceTest {
  private static final long RUN_NANOS = 900_000_000_000L;

  private final VirtualClock clock = VirtualClock.create();
  /** The run starts 62.466 s into a fixed window; answered as sent, back 17 ms later. */
  private final SlidingWindowLoop server = new SlidingWindowLoop(clock, 380, 90_000_000_000L,
      62_466_000_000L, false, "x-ratelimit", 0, 17_000_000L, RUN_NANOS);

  private long run(boolean shared) {
    Pacer.Builder b = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .jitterSeed(1);
    if (shared) {
      b.store(InMemoryQuotaStore.builder().clock(clock).roundTrip(Duration.ofMillis(1), clock)
          .build().instance("alone"));
    }
    Pacer pacer = b.build();
    server.loop(pacer);
    clock.advance(Duration.ofNanos(RUN_NANOS + 60_000_000_000L));
    return server.ok;
  }

  @Test
  void aLoneInstanceIsNotHeldUntilTheResetByTheSpentCountItsOwnResponseCarried() {
    FleetLoneInstanceTest plain = new FleetLoneInstanceTest();
    long without = plain.run(false);
    long with = run(true);
    assertThat(without).as("the server allows about 4,000 in 15 minutes").isGreaterThan(3_900);
    assertThat(with).as("admitted with the store (%d 429s) against %d without (%d 429s)",
        server.throttled, without, plain.server.throttled)
        .isGreaterThanOrEqualTo(without * 98 / 100);
    assertThat(server.throttled).isLessThanOrEqualTo(plain.server.throttled + 2);
  }
}
