package dev.headway.jdk;

import static java.net.http.HttpResponse.BodyHandlers.ofString;
import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Jitter;
import dev.headway.PacingStrategy;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code RateLimitedHttpClient.wrap} of a client it already wraps (one wrapper handed to code
 * that wraps what it is given): each request is paced once, by the outer wrapper, and a throttled
 * response retried by it alone. Time is virtual.
 */
class WrappedTwiceTest {
  private static Harness harness() throws Exception {
    return new Harness(b -> b.jitter(Jitter.none()).strategy(PacingStrategy.useAllThenWait())
        .maxWait(Duration.ofSeconds(10)).maxAttempts(3));
  }

  /** Before: the server saw 9 requests, the inner wrapper's 3 for each of the outer's 3. */
  @ParameterizedTest
  @EnumSource(Mode.class)
  void aServerThatAnswers429EveryTimeSeesMaxAttemptsRequests(Mode mode) throws Exception {
    try (Harness h = harness()) {
      for (int i = 0; i < 12; i++) {
        h.enqueue(429, "Retry-After", "1", "slow down");
      }
      RateLimitedHttpClient twice = RateLimitedHttpClient.wrap(h.client, h.pacer);

      HttpResponse<String> reply = h.drive(mode.start(twice, h.get("/a"), ofString()));

      assertThat(reply.statusCode()).isEqualTo(429);
      assertThat(h.requests()).isEqualTo(3);
    }
  }

  /** Before: each request took two permits; the last one a window allows waited for the next. */
  @ParameterizedTest
  @EnumSource(Mode.class)
  void theLastRequestAWindowAllowsGoesAtOnce(Mode mode) throws Exception {
    try (Harness h = harness()) {
      h.enqueue(200, "RateLimit-Policy", "\"fixed\";q=2;w=60", "RateLimit", "\"fixed\";r=1;t=60",
          "first");
      h.enqueue(200, "second");
      RateLimitedHttpClient twice = RateLimitedHttpClient.wrap(h.client, h.pacer);
      h.drive(mode.start(twice, h.get("/a"), ofString()));

      HttpResponse<String> second = h.drive(mode.start(twice, h.get("/b"), ofString()));

      assertThat(second.body()).isEqualTo("second");
      assertThat(h.clock.elapsed()).isLessThan(Duration.ofSeconds(1));
    }
  }
}
