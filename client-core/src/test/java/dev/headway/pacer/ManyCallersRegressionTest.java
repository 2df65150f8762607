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
 * Regression: responses were ordered by commit sequence, so the response to a reservation
 * (committed early, sent late) was taken for an old one and ignored; the quota estimate stayed
 * high and, in the goodput simulator, 64 closed-loop callers of one pacer drew 429s from a
 * single fixed window. The second test reproduces the mechanism exactly; the first is the
 * simulator's scenario, kept as a guard.
 */
@Timeout(60)
class ManyCallersRegressionTest {
  static final RequestInfo GET = RequestInfo.get(URI.create("https://api.example.com/items"));

  @Test
  void sixtyFourAsyncCallersAgainstOneFixedWindowAreNeverThrottled() {
    VirtualClock clock = VirtualClock.create();
    clock.advance(Duration.ofMillis(23_700)); // start inside a server window
    FakeServer server = new FakeServer(clock, 100, 60);
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock).jitterSeed(7)
        .strategy(PacingStrategy.burstThenSpread(0.2)).build();
    AtomicInteger refused = new AtomicInteger();
    for (int i = 0; i < 64; i++) {
      call(pacer, clock, server, refused);
    }
    for (int step = 0; step < 20_000; step++) {
      clock.advance(Duration.ofMillis(10));
    }
    assertThat(server.throttled()).as("429s").isZero();
    assertThat(server.received()).isGreaterThan(300);
  }

  @Test
  void theResponseToAReservationSentAfterAnImmediateRequestIsNotTakenForAnOldOne()
      throws Exception {
    VirtualClock clock = VirtualClock.create();
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .strategy(PacingStrategy.spread()).build();
    URI uri = URI.create("https://api.example.com/upload");
    pacer.acquire(GET).complete(bytes(1_000, 60));
    RequestInfo post = new RequestInfo("POST", uri, dev.headway.HttpFields.empty(),
        java.util.OptionalLong.of(100));
    pacer.acquire(post).complete(bytes(900, 60)); // spacing 60 s / 1000 bytes: next at 6 s
    java.util.concurrent.CompletableFuture<Permit> reserved = pacer.acquireAsync(post);
    assertThat(reserved).isNotDone(); // committed first, sent at 6 s
    pacer.acquire(GET).complete(bytes(900, 60)); // costs no bytes: goes now, answers first
    clock.advance(Duration.ofSeconds(6));
    reserved.join().complete(bytes(800, 54));
    assertThat(pacer.quota(uri).policy("bytes").orElseThrow().remaining())
        .isEqualTo(java.util.OptionalLong.of(800));
  }

  private static dev.headway.RateLimitSignal bytes(long remaining, long reset) {
    return new dev.headway.RateLimitSignal(200,
        java.util.List.of(new dev.headway.QuotaPolicy("bytes", 1_000,
            dev.headway.QuotaUnit.CONTENT_BYTES, java.util.Optional.of(Duration.ofSeconds(60)),
            java.util.Optional.empty(), "ietf")),
        java.util.List.of(new dev.headway.QuotaLimit("bytes", remaining,
            java.util.Optional.of(Duration.ofSeconds(reset)), java.util.Optional.empty(), "ietf")),
        java.util.Optional.empty(), java.util.Optional.empty(), java.util.Optional.empty(),
        java.util.List.of(), java.util.List.of(), java.util.List.of(), false);
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
      // The response comes back 25 ms later; then the caller starts its next call.
      clock.schedule(() -> {
        Permit p = permit;
        p.complete(server.handle());
        call(pacer, clock, server, refused);
      }, Duration.ofMillis(25));
    });
  }
}
