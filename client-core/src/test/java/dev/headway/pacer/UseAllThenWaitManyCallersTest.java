package dev.headway.pacer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
import dev.headway.PacingStrategy;
import dev.headway.Permit;
import dev.headway.RateLimitedException;
import dev.headway.RequestInfo;
import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Regression: with {@code useAllThenWait()}, 64 closed-loop callers of one pacer spend a fixed
 * window (100 per 60 s) at once. A 429 to one of the last requests holds the partition past
 * {@code maxWait} while the probes of the new window are still in flight; every caller that
 * came back during that hold was sent at once as a "probe" into the spent window, again and
 * again (the goodput simulator's fixed grid drew 36,576 429s in ten minutes instead of 4). Only
 * the single probe of a long block may go.
 */
@Timeout(60)
class UseAllThenWaitManyCallersTest {
  static final RequestInfo GET = RequestInfo.get(URI.create("https://api.example.com/items"));

  @Test
  void sixtyFourCallersSpendingAFixedWindowAtOnceDrawOnlyAHandfulOf429s() {
    VirtualClock clock = VirtualClock.create();
    clock.advance(Duration.ofMillis(23_700)); // start inside a server window, as the simulator
    FakeServer server = new FakeServer(clock, 100, 60);
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock).jitterSeed(7)
        .strategy(PacingStrategy.useAllThenWait()).build();
    AtomicInteger refused = new AtomicInteger();
    for (int i = 0; i < 64; i++) {
      call(pacer, clock, server, refused);
    }
    for (int step = 0; step < 30_000; step++) { // five minutes, five window ends
      clock.advance(Duration.ofMillis(10));
    }
    // Each window end may cost a probe's 429 or two; nothing like a caller's every attempt.
    assertThat(server.throttled()).as("429s in five minutes").isLessThanOrEqualTo(10);
    // The quota is used: 100 in each of the six windows touched (the first one partly).
    assertThat(server.received() - server.throttled()).as("admitted").isGreaterThan(500);
    assertThat(refused.get()).as("callers refused and coming back later").isPositive();
  }

  private static void call(Pacer pacer, VirtualClock clock, FakeServer server,
      AtomicInteger refused) {
    pacer.acquireAsync(GET).whenComplete((permit, error) -> {
      if (error != null) {
        Throwable cause = error instanceof CompletionException ? error.getCause() : error;
        RateLimitedException e = (RateLimitedException) cause;
        refused.incrementAndGet();
        clock.schedule(() -> call(pacer, clock, server, refused),
            e.requiredWait().plusMillis(1));
        return;
      }
      // The round trip: the server counts the request 25 ms after it is sent and answers at
      // once; then the caller starts its next call.
      clock.schedule(() -> {
        permit.complete(server.handle());
        call(pacer, clock, server, refused);
      }, Duration.ofMillis(25));
    });
  }
}
