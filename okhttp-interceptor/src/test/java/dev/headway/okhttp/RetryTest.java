package dev.headway.okhttp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.okhttp.testing.Harness;
import dev.headway.okhttp.testing.Mode;
import dev.headway.okhttp.testing.Outcome;
import dev.headway.okhttp.testing.Reply;
import java.io.IOException;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import okhttp3.MediaType;
import okhttp3.Request;
import okhttp3.RequestBody;
import okio.BufferedSink;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** After a throttled response: retries after the server's delay, within the attempt budget. */
class RetryTest {
  private static final Reply OK = Reply.status(200).body("ok");

  private static Reply tooManyRequests(String retryAfter) {
    return Reply.status(429).header("Retry-After", retryAfter).body("slow down");
  }

  private static Request post(Harness h, RequestBody body) {
    return new Request.Builder().url(h.url("/post")).post(body).build();
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void a429IsRetriedAfterRetryAfterSeconds(Mode mode) throws Exception {
    try (Harness h = Harness.start()) {
      h.enqueue(tooManyRequests("20"), OK);

      Outcome outcome = h.send(mode, h.get("/r"));

      assertThat(outcome.code()).isEqualTo(200);
      assertThat(h.requestCount()).isEqualTo(2);
      assertThat(h.sent().get(1).at()).isBetween(Duration.ofSeconds(20), Duration.ofSeconds(30));
    }
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void a429IsRetriedAfterRetryAfterHttpDate(Mode mode) throws Exception {
    try (Harness h = Harness.start()) {
      DateTimeFormatter http = DateTimeFormatter.RFC_1123_DATE_TIME.withZone(ZoneOffset.UTC);
      h.enqueue(Reply.status(429).headers(
          "Date", http.format(h.clock.instant()),
          "Retry-After", http.format(h.clock.instant().plusSeconds(30))), OK);

      Outcome outcome = h.send(mode, h.get("/r"));

      assertThat(outcome.code()).isEqualTo(200);
      assertThat(h.requestCount()).isEqualTo(2);
      assertThat(h.sent().get(1).at()).isBetween(Duration.ofSeconds(30), Duration.ofSeconds(45));
    }
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void afterMaxAttemptsTheLast429IsReturnedWithItsBody(Mode mode) throws Exception {
    try (Harness h = Harness.start()) {
      h.pacer(p -> p.maxAttempts(3));
      h.fallback(tooManyRequests("1"));

      Outcome outcome = h.send(mode, h.get("/r"));

      assertThat(outcome.code()).isEqualTo(429);
      assertThat(outcome.body()).isEqualTo("slow down");
      assertThat(h.requestCount()).isEqualTo(3);
    }
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void maxAttemptsOfOneDisablesRetries(Mode mode) throws Exception {
    try (Harness h = Harness.start()) {
      h.interceptor(RateLimitInterceptor.builder(h.pacerBuilder().build()).maxAttempts(1).build());
      h.enqueue(tooManyRequests("1"), OK);

      assertThat(h.send(mode, h.get("/r")).code()).isEqualTo(429);
      assertThat(h.requestCount()).isEqualTo(1);
    }
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void a503WithRetryAfterIsRetriedForGet(Mode mode) throws Exception {
    try (Harness h = Harness.start()) {
      h.enqueue(Reply.status(503).header("Retry-After", "5"), OK);

      assertThat(h.send(mode, h.get("/r")).code()).isEqualTo(200);
      assertThat(h.requestCount()).isEqualTo(2);
      assertThat(h.sent().get(1).at()).isGreaterThanOrEqualTo(Duration.ofSeconds(5));
    }
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void a503WithoutRetryAfterIsNotRetried(Mode mode) throws Exception {
    try (Harness h = Harness.start()) {
      h.enqueue(Reply.status(503).body("down"), OK);

      assertThat(h.send(mode, h.get("/r")).code()).isEqualTo(503);
      assertThat(h.requestCount()).isEqualTo(1);
    }
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void aPostIsRetriedAfter429WithTheSameBody(Mode mode) throws Exception {
    try (Harness h = Harness.start()) {
      h.enqueue(tooManyRequests("2"), OK);

      Outcome outcome = h.send(mode, post(h, RequestBody.create("payload",
          MediaType.get("text/plain"))));

      assertThat(outcome.code()).isEqualTo(200);
      assertThat(h.sent()).hasSize(2)
          .allSatisfy(s -> assertThat(s.request().body()).isEqualTo("payload"));
    }
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void aPostIsNotRetriedAfter503ByDefault(Mode mode) throws Exception {
    try (Harness h = Harness.start()) {
      h.enqueue(Reply.status(503).header("Retry-After", "2"), OK);

      Outcome outcome = h.send(mode, post(h, RequestBody.create("x", null)));

      assertThat(outcome.code()).isEqualTo(503);
      assertThat(h.requestCount()).isEqualTo(1);
    }
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void aPostIsRetriedAfter503WhenThePacerIsConfiguredTo(Mode mode) throws Exception {
    try (Harness h = Harness.start()) {
      h.pacer(p -> p.retryNonIdempotentOn503(true));
      h.enqueue(Reply.status(503).header("Retry-After", "2"), OK);

      Outcome outcome = h.send(mode, post(h, RequestBody.create("x", null)));

      assertThat(outcome.code()).isEqualTo(200);
      assertThat(h.requestCount()).isEqualTo(2);
    }
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void aOneShotBodyIsNeverRetried(Mode mode) throws Exception {
    try (Harness h = Harness.start()) {
      h.enqueue(tooManyRequests("1"), OK);
      RequestBody oneShot = new RequestBody() {
        @Override
        public MediaType contentType() {
          return MediaType.get("text/plain");
        }

        @Override
        public void writeTo(BufferedSink sink) throws IOException {
          sink.writeUtf8("stream");
        }

        @Override
        public boolean isOneShot() {
          return true;
        }
      };

      Outcome outcome = h.send(mode, post(h, oneShot));

      assertThat(outcome.code()).isEqualTo(429);
      assertThat(h.requestCount()).isEqualTo(1);
    }
  }
}
