package dev.headway.pacer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Jitter;
import dev.headway.Pacer;
import dev.headway.Permit;
import dev.headway.RateLimitSignal;
import dev.headway.RequestInfo;
import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A {@code Retry-After} longer than {@code maxWait} arrives while other requests are still in
 * flight (several callers against a spent fixed window): the callers that come back must be
 * refused, not sent one after the other as "probes" into the same spent window. Only the
 * single probe of a long block goes, once the block has lasted {@code maxWait}.
 */
@Timeout(30)
class LongHoldWithRequestsInFlightTest {
  static final RequestInfo GET = RequestInfo.get(URI.create("https://api.example.com/items"));

  private final VirtualClock clock = VirtualClock.create();

  private static RateLimitSignal retryAfter(long seconds) {
    return Signals.throttled(429, Optional.of(Duration.ofSeconds(seconds)), List.of(),
        Optional.empty());
  }

  @Test
  void callersComingBackDuringALongHoldAreRefusedNotSent() throws Exception {
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .jitter(Jitter.none()).maxWait(Duration.ofSeconds(2)).build();
    pacer.acquire(GET).complete(RateLimitSignal.none(200));
    Permit a = pacer.acquire(GET);
    Permit b = pacer.acquire(GET);
    Permit c = pacer.acquire(GET);
    // The window is spent: the first answer holds the partition for 10 s, past maxWait, while
    // two requests are still in flight.
    a.complete(retryAfter(10));
    CompletableFuture<Permit> again = pacer.acquireAsync(GET);
    assertThat(again).as("refused at once: the hold is longer than maxWait")
        .isCompletedExceptionally();
    b.complete(retryAfter(10));
    assertThat(pacer.acquireAsync(GET)).isCompletedExceptionally();
    c.complete(retryAfter(10));
    assertThat(pacer.acquireAsync(GET)).isCompletedExceptionally();
    // Once the block has lasted maxWait, one probe goes, and only one.
    clock.advance(Duration.ofSeconds(2));
    assertThat(pacer.tryAcquire(GET)).as("the probe").isPresent();
    assertThat(pacer.tryAcquire(GET)).as("a single probe").isEmpty();
  }
}
