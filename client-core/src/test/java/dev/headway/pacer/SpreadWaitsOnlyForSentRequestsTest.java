package dev.headway.pacer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
import dev.headway.Permit;
import dev.headway.RateLimitedException;
import dev.headway.testing.VirtualClock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A window a request of ours opened, with a whole-second epoch reset (express-rate-limit's
 * legacy headers), long enough that the pacing spreads the window's last units over many seconds:
 * the callers after a commit whose count may already hold requests in flight look again for
 * their answers, but only for requests already sent. Permits committed to a later time are in
 * flight too, yet the server cannot have counted them: waiting for their answers, the callers
 * waited seconds of their budget for nothing and some were refused (12 calls in the simulator's
 * fixed-window cell of 100 per minute, 8 callers).
 */
@Timeout(60)
class SpreadWaitsOnlyForSentRequestsTest {
  static final long MS = 1_000_000L;

  @Test
  void callersAreNotRefusedWhileTheWindowsLastUnitsAreSpread() {
    VirtualClock clock = VirtualClock.startingAt(Instant.parse("2026-11-28T22:00:00.250Z"));
    EpochSecondResetServersTest.Express server =
        new EpochSecondResetServersTest.Express(clock, 100, Duration.ofSeconds(60));
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock).jitterSeed(3)
        .build();
    AtomicLong refused = new AtomicLong();
    long until = Duration.ofSeconds(600).toNanos();
    for (int i = 0; i < 8; i++) {
      call(pacer, clock, server, refused, until);
    }
    while (clock.read() < until + Duration.ofSeconds(60).toNanos()) {
      clock.advance(Duration.ofMillis(5));
    }
    String what = String.format("%d admitted, %d 429s, %d calls refused by the pacer",
        server.admitted.size(), server.refused.size(), refused.get());
    assertThat(refused.get()).as(what).isZero();
    assertThat(server.refused).as(what).isEmpty();
    assertThat(server.admitted.size()).as(what).isGreaterThanOrEqualTo(1_000);
  }

  private static void call(Pacer pacer, VirtualClock clock, EpochSecondResetServersTest.Express
      server, AtomicLong refused, long untilNanos) {
    if (clock.read() >= untilNanos) {
      return;
    }
    pacer.acquireAsync(SlidingLogServersTest.GET).whenComplete((permit, error) -> {
      if (error != null) {
        Throwable cause = error instanceof CompletionException ? error.getCause() : error;
        if (cause instanceof RateLimitedException) {
          refused.incrementAndGet();
        }
        clock.schedule(() -> call(pacer, clock, server, refused, untilNanos),
            Duration.ofMillis(1));
        return;
      }
      clock.schedule(() -> {
        SlidingLogServersTest.Response response = server.handle();
        clock.schedule(() -> {
          Permit p = permit;
          p.complete(response.status(), response.headers(), null);
          call(pacer, clock, server, refused, untilNanos);
        }, Duration.ofMillis(25));
      }, Duration.ofMillis(25));
    });
  }
}
