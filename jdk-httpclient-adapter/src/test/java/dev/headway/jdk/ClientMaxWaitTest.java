package dev.headway.jdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.headway.RateLimitedException;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The wrapper's own {@code maxWait} and {@code maxAttempts} ({@link RateLimitedHttpClient#builder}),
 * as the other adapters' builders have them: a shorter budget for user-facing calls than the
 * pacer's, down to zero (never wait), on {@code send} and {@code sendAsync}.
 */
class ClientMaxWaitTest {
  /** A window of 2 per 10 s that the first request's answer says is spent for 10 s. */
  private static void spendTheWindow(Harness h, Mode mode) throws Exception {
    h.enqueue(200, "RateLimit-Policy", "\"default\";q=2;w=10", "RateLimit", "\"default\";r=0;t=10",
        "first");
    h.call(mode, h.get("/a"));
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void aClientMaxWaitShorterThanTheWaitFailsTheCallAtOnce(Mode mode) throws Exception {
    try (Harness h = new Harness(b -> b.maxWait(Duration.ofSeconds(30)))) {
      RateLimitedHttpClient client = RateLimitedHttpClient.builder(h.jdk, h.pacer)
          .maxWait(Duration.ofSeconds(2)).build();
      assertThat(client.maxWait()).isEqualTo(Duration.ofSeconds(2));
      spendTheWindow(h, mode);
      Duration before = h.clock.elapsed();

      assertThatThrownBy(() -> h.drive(mode.start(client, h.get("/b"),
          HttpResponse.BodyHandlers.ofString())))
          .isInstanceOfSatisfying(RateLimitedException.class, e ->
              assertThat(e.requiredWait()).isGreaterThan(Duration.ofSeconds(2)));

      assertThat(h.requests()).as("nothing sent").isEqualTo(1);
      assertThat(h.clock.elapsed()).as("no wait").isEqualTo(before);
      // The pacer's own budget (30 s) still serves the plain wrapper: it waits for the window.
      h.enqueue(200, "RateLimit-Policy", "\"default\";q=2;w=10", "RateLimit",
          "\"default\";r=1;t=10", "third");
      assertThat(h.call(mode, h.get("/c")).statusCode()).isEqualTo(200);
      assertThat(h.clock.elapsed()).isGreaterThan(before.plusSeconds(2));
    }
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void aZeroMaxWaitSendsWhatMayGoNowAndFailsTheRestAtOnce(Mode mode) throws Exception {
    try (Harness h = new Harness()) {
      RateLimitedHttpClient client = RateLimitedHttpClient.builder(h.jdk, h.pacer)
          .maxWait(Duration.ZERO).build();
      h.enqueue(200, "RateLimit-Policy", "\"default\";q=2;w=10", "RateLimit", "\"default\";r=0;t=10",
          "first");
      assertThat(h.drive(mode.start(client, h.get("/a"), HttpResponse.BodyHandlers.ofString()))
          .body()).as("a permit to be had at once").isEqualTo("first");
      Duration before = h.clock.elapsed();

      assertThatThrownBy(() -> h.drive(mode.start(client, h.get("/b"),
          HttpResponse.BodyHandlers.ofString())))
          .isInstanceOf(RateLimitedException.class);

      assertThat(h.requests()).as("nothing sent").isEqualTo(1);
      assertThat(h.clock.elapsed()).as("no wait").isEqualTo(before);
    }
  }

  @Test
  void theBuilderTakesTheLimitsAndRefusesWhatNoCallCouldUse() throws Exception {
    try (Harness h = new Harness(b -> b.maxWait(Duration.ofSeconds(7)).maxAttempts(5))) {
      RateLimitedHttpClient defaults = RateLimitedHttpClient.builder(h.jdk, h.pacer).build();
      assertThat(defaults.maxWait()).isEqualTo(Duration.ofSeconds(7));
      assertThat(defaults.maxAttempts()).isEqualTo(5);
      assertThat(RateLimitedHttpClient.wrap(h.jdk, h.pacer).maxWait())
          .isEqualTo(Duration.ofSeconds(7));
      RateLimitedHttpClient own = RateLimitedHttpClient.builder(h.jdk, h.pacer)
          .maxWait(Duration.ZERO).maxAttempts(1).build();
      assertThat(own.maxWait()).isZero();
      assertThat(own.maxAttempts()).isEqualTo(1);
      assertThatThrownBy(() -> RateLimitedHttpClient.builder(h.jdk, h.pacer)
          .maxWait(Duration.ofSeconds(-1)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("maxWait must not be negative but was PT-1S");
      assertThatThrownBy(() -> RateLimitedHttpClient.builder(h.jdk, h.pacer).maxAttempts(0))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxAttempts");
    }
  }
}
