package dev.headway.okhttp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.RateLimitedException;
import dev.headway.okhttp.testing.Harness;
import dev.headway.okhttp.testing.Mode;
import dev.headway.okhttp.testing.Outcome;
import dev.headway.okhttp.testing.Reply;
import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Before a request is sent: the wait for a permit, and the fail-fast past maxWait. */
class PacingTest {
  private static Reply exhausted(int resetSeconds) {
    return Reply.status(200).body("last").headers(
        "RateLimit-Policy", "\"default\";q=2;w=60",
        "RateLimit", "\"default\";r=0;t=" + resetSeconds);
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void aResponseWithoutSignalsIsReturnedUntouchedAndNothingWaits(Mode mode) throws Exception {
    try (Harness h = Harness.start()) {
      h.fallback(Reply.status(200).header("X-Custom", "1").body("plain"));
      for (int i = 0; i < 3; i++) {
        Outcome outcome = h.send(mode, h.get("/plain"));
        assertThat(outcome.code()).isEqualTo(200);
        assertThat(outcome.body()).isEqualTo("plain");
        assertThat(outcome.headers().get("X-Custom")).isEqualTo("1");
      }
      assertThat(h.requestCount()).isEqualTo(3);
      assertThat(h.clock.elapsed()).isEqualTo(Duration.ZERO);
    }
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void theNextRequestWaitsUntilTheAdvertisedResetWhenNoQuotaRemains(Mode mode) throws Exception {
    try (Harness h = Harness.start()) {
      h.enqueue(exhausted(20)).fallback(Reply.status(200).body("next"));
      assertThat(h.send(mode, h.get("/a")).body()).isEqualTo("last");

      Outcome second = h.send(mode, h.get("/b"));

      assertThat(second.code()).isEqualTo(200);
      assertThat(h.sent()).hasSize(2);
      assertThat(h.sent().get(1).at()).isGreaterThanOrEqualTo(Duration.ofSeconds(20));
    }
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void aWaitLongerThanMaxWaitFailsAtOnceWithRateLimitedExceptionAndSendsNothing(Mode mode)
      throws Exception {
    try (Harness h = Harness.start()) {
      h.pacer(p -> p.maxWait(Duration.ofSeconds(5)));
      h.enqueue(exhausted(60));
      h.send(mode, h.get("/a"));

      Outcome second = h.send(mode, h.get("/b"));

      assertThat(second.failure()).isInstanceOf(RateLimitedException.class);
      assertThat(h.requestCount()).isEqualTo(1);
      assertThat(h.clock.elapsed()).isEqualTo(Duration.ZERO);
    }
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void theInterceptorsOwnMaxWaitBoundsTheWait(Mode mode) throws Exception {
    try (Harness h = Harness.start()) {
      h.interceptor(RateLimitInterceptor.builder(h.pacerBuilder().build())
          .maxWait(Duration.ofSeconds(5)).build());
      h.enqueue(exhausted(20));
      h.send(mode, h.get("/a"));

      Outcome second = h.send(mode, h.get("/b"));

      assertThat(second.failure()).isInstanceOf(RateLimitedException.class);
      assertThat(h.requestCount()).isEqualTo(1);
    }
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void unreadableSignalsChangeNothing(Mode mode) throws Exception {
    try (Harness h = Harness.start()) {
      h.fallback(Reply.status(200).body("ok").headers(
          "RateLimit", ";;;not a list",
          "RateLimit-Policy", "\"p\";q=-5;w=0",
          "X-RateLimit-Remaining", "lots",
          "X-RateLimit-Reset", "soon",
          "Retry-After", "tomorrow-ish"));
      for (int i = 0; i < 3; i++) {
        assertThat(h.send(mode, h.get("/x")).body()).isEqualTo("ok");
      }
      assertThat(h.requestCount()).isEqualTo(3);
      assertThat(h.clock.elapsed()).isEqualTo(Duration.ZERO);
    }
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void aServerErrorWithoutSignalsIsReturnedOnceAndNotRetried(Mode mode) throws Exception {
    try (Harness h = Harness.start()) {
      h.fallback(Reply.status(500).body("boom"));
      Outcome outcome = h.send(mode, h.get("/x"));
      assertThat(outcome.code()).isEqualTo(500);
      assertThat(outcome.body()).isEqualTo("boom");
      assertThat(h.requestCount()).isEqualTo(1);
    }
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void anOnlyIfCachedRequestNeverReachesTheNetworkAndIsNotPaced(Mode mode) throws Exception {
    try (Harness h = Harness.start()) {
      h.pacer(p -> p.maxWait(Duration.ofSeconds(5)));
      h.enqueue(exhausted(60));
      h.send(mode, h.get("/a"));
      okhttp3.Request cacheOnly = h.get("/b").newBuilder()
          .cacheControl(okhttp3.CacheControl.FORCE_CACHE).build();

      Outcome outcome = h.send(mode, cacheOnly);

      // No cache configured: OkHttp answers 504 itself; the spent quota does not fail the call.
      assertThat(outcome.failure()).isNull();
      assertThat(outcome.code()).isEqualTo(504);
      assertThat(h.requestCount()).isEqualTo(1);
      assertThat(h.clock.elapsed()).isEqualTo(Duration.ZERO);
    }
  }
}
