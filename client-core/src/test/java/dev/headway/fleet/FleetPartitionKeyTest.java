package dev.headway.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.testing.VirtualClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A server that names its partition key ({@code pk}) on its policy, as express-rate-limit's
 * {@code draft-8} headers do ({@code RateLimit-Policy: "30-in-10sec"; q=30; w=10; pk=:...:}):
 * three instances of four callers, 1 ms from a fixed window of 30 per 10 s, share it through a
 * store for two minutes. Virtual time.
 */
@Timeout(60)
class FleetPartitionKeyTest {
  private static final long RUN_NANOS = 120_000_000_000L;

  private final VirtualClock clock = VirtualClock.create();

  /**
   * Before, the fleet told the store no count that carried a {@code pk}: each instance paced on
   * the counts of its own responses only, and once a window one of them sent a unit the others
   * had spent (a new user's trial against express-rate-limit, three JVMs through Redis: about one
   * 429 a window, and callers waiting past {@code maxWait} for the hold it brought).
   */
  @Test
  void aCountNamingItsPartitionKeyIsSharedAsAnyOther() {
    SlidingWindowLoop server = SlidingWindowLoop.fixedWindow(clock, 30, 10_000_000_000L,
        3_337_000_000L, "ietf-structured", 500_000L, 500_000L, RUN_NANOS).jitter(3)
        .partitionKey("MTJjYTE3YjQ5YWYy");
    server.fleet(3, 4);
    clock.advance(Duration.ofNanos(RUN_NANOS + 10_000_000_000L));
    // 13 windows touched by the run: the server allows 390.
    assertThat(server.throttled).as("429s of %d admitted", server.ok).isZero();
    assertThat(server.ok).as("admitted").isGreaterThanOrEqualTo(370);
  }
}
