package dev.headway.pacer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.HttpFields;
import dev.headway.Jitter;
import dev.headway.Pacer;
import dev.headway.RateLimitSignal;
import dev.headway.RequestInfo;
import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The server's verdict overrides retryDelay's rules in both directions, within its bounds. */
class RetryVerdictTest {
  static final URI ITEMS = URI.create("https://api.example.com/items");
  static final RequestInfo GET = RequestInfo.get(ITEMS);
  static final RequestInfo POST = RequestInfo.of("POST", ITEMS);

  private final VirtualClock clock = VirtualClock.create();
  private final Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
      .jitter(Jitter.none()).baseBackoff(Duration.ofMillis(500)).maxAttempts(3).build();

  private RateLimitSignal respond(RequestInfo request, int status, String... headers)
      throws Exception {
    return pacer.acquire(request).complete(status, HttpFields.of(headers), null);
  }

  @Test
  void shouldRetryFalseVetoesA429WithRetryAfter() throws Exception {
    RateLimitSignal signal = respond(GET, 429, "Retry-After", "1", "x-should-retry", "false");
    assertThat(pacer.retryDelay(GET, signal, 1)).isEmpty();
  }

  @Test
  void shouldRetryTrueRetriesA500AfterTheBackoff() throws Exception {
    RateLimitSignal signal = respond(GET, 500, "x-should-retry", "true");
    assertThat(pacer.retryDelay(GET, signal, 1)).contains(Duration.ofMillis(500));
    RateLimitSignal without = respond(GET, 500);
    assertThat(pacer.retryDelay(GET, without, 1)).isEmpty();
  }

  @Test
  void shouldRetryTrueRetriesA503ForAPostAfterItsRetryAfter() throws Exception {
    RateLimitSignal plain = respond(POST, 503, "Retry-After", "2");
    assertThat(pacer.retryDelay(POST, plain, 1)).isEmpty();
    clock.advance(Duration.ofSeconds(3));
    RateLimitSignal approved = respond(POST, 503, "Retry-After", "2",
        "Stripe-Should-Retry", "true");
    assertThat(pacer.retryDelay(POST, approved, 1)).contains(Duration.ofSeconds(2));
  }

  @Test
  void shouldRetryTrueStaysWithinMaxAttemptsAndTheWaitBudget() throws Exception {
    RateLimitSignal signal = respond(GET, 502, "x-should-retry", "true", "Retry-After", "20");
    assertThat(pacer.retryDelay(GET, signal, 3)).isEmpty(); // maxAttempts 3 reached
    assertThat(pacer.retryDelay(GET, signal, 1, Duration.ofSeconds(10))).isEmpty();
  }

  @Test
  void shouldRetryTrueOnASuccessIsNoRetry() throws Exception {
    RateLimitSignal signal = respond(GET, 200, "x-should-retry", "true");
    assertThat(pacer.retryDelay(GET, signal, 1)).isEmpty();
  }
}
