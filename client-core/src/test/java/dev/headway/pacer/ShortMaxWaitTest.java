package dev.headway.pacer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
import dev.headway.RateLimitSignal;
import dev.headway.RequestInfo;
import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A {@code maxWait} shorter than the server's window (a user-facing call that fails fast rather
 * than wait): a fixed window whose {@code RateLimit} and {@code RateLimit-Policy} say exactly when
 * it resets, spent by this client's own admitted requests, is waited out by refusing the
 * callers, not checked by requests that draw the 429s the server announced. Found by a new
 * user's trial: {@code maxWait} 1 s against 10 per 20 s drew 9 429s in 45 s, up to four in each
 * spent window.
 *
 * <p>Both failed before a window our own admitted requests spent was believed (18 429s in the
 * first case, 6 in the second: checks after {@code maxWait}, 2x, 4x, ...).
 */
class ShortMaxWaitTest {
  static final RequestInfo GET = RequestInfo.get(URI.create("https://api.example.com/items"));
  static final long SECOND = 1_000_000_000L;

  private static ModelServerLoop.Counts run(Duration maxWait, long quota, long windowSeconds,
      int callers, long seconds) {
    VirtualClock clock = VirtualClock.create();
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock).jitterSeed(7)
        .maxWait(maxWait).build();
    FakeServer server = new FakeServer(clock, quota, windowSeconds);
    long start = clock.read();
    return ModelServerLoop.run(pacer, clock, GET, callers, 25_000_000L,
        start + seconds * SECOND, start, now -> {
          RateLimitSignal signal = server.handle();
          return new ModelServerLoop.Response(signal.status(), permit -> permit.complete(signal));
        });
  }

  @Test
  void aFixedWindowToldExactlyDrawsNo429WhenMaxWaitIsShorterThanItsWindow() {
    ModelServerLoop.Counts counts = run(Duration.ofSeconds(1), 10, 20, 1, 120);
    assertThat(counts.throttled()).as("429s").isZero();
    assertThat(counts.admitted()).as("admitted in 6 windows").isGreaterThanOrEqualTo(59);
  }

  @Test
  void anHourlyQuotaSpentDrawsNo429WithTheDefaultMaxWait() {
    ModelServerLoop.Counts counts = run(Duration.ofSeconds(30), 100, 3600, 4, 3 * 3600);
    assertThat(counts.throttled()).as("429s").isZero();
    assertThat(counts.admitted()).as("admitted in 3 windows").isGreaterThanOrEqualTo(299);
  }

  /**
   * express-rate-limit's way: a window of 20 per 5 s opened by the first request, draft-8 fields on
   * every response and {@code Retry-After} on the 429. Another client spends most
   * of the first window, so the first calls meet 429s. A pacer {@code maxWait} of 1 ms checked
   * the hold of each 429 after 1, 2, 4, ... 32 ms (a new user's trial: 147 429s of 205 requests in
   * 12 s).
   */
  @Test
  void aMaxWaitOfAMillisecondDoesNotCheckTheServerEveryFewMilliseconds() {
    VirtualClock clock = VirtualClock.create();
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock).jitterSeed(7)
        .maxWait(Duration.ofMillis(1)).build();
    long start = clock.read();
    long[] window = {Long.MIN_VALUE, 0};
    ModelServerLoop.Counts counts = ModelServerLoop.run(pacer, clock, GET, 4, 25_000_000L,
        start + 60 * SECOND, start, now -> {
          if (window[0] == Long.MIN_VALUE || now - window[0] >= 5 * SECOND) {
            window[1] = window[0] == Long.MIN_VALUE ? 19 : 0; // others used the first window
            window[0] = now;
          }
          long reset = (window[0] + 5 * SECOND - now + SECOND - 1) / SECOND;
          boolean over = window[1] >= 20;
          if (!over) {
            window[1]++;
          }
          RateLimitSignal limit = Signals.limit(over ? 429 : 200, 20, 5, 20 - window[1], reset);
          RateLimitSignal signal = !over ? limit : new RateLimitSignal(429, limit.policies(),
              limit.limits(), java.util.Optional.of(Duration.ofSeconds(reset)),
              java.util.Optional.empty(), java.util.Optional.empty(), java.util.List.of(),
              java.util.List.of("ietf"), java.util.List.of(), true);
          return new ModelServerLoop.Response(signal.status(), permit -> permit.complete(signal));
        });
    assertThat(counts.throttled()).as("429s in 60 s").isLessThanOrEqualTo(3);
    assertThat(counts.admitted()).as("admitted in about 12 windows").isGreaterThanOrEqualTo(200);
  }
}
