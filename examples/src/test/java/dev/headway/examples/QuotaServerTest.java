package dev.headway.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.testing.VirtualClock;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The demo's server enforces what it advertises, in both header styles. */
class QuotaServerTest {
  private static final Instant ORIGIN = Instant.parse("2025-01-01T00:00:00Z");

  private final VirtualClock clock = VirtualClock.startingAt(ORIGIN);
  private final HttpClient http = HttpClient.newHttpClient();

  private HttpResponse<String> get(QuotaServer server) throws Exception {
    return http.send(HttpRequest.newBuilder(server.uri().resolve("x")).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void fixedWindowAllowsItsQuotaThenAnswers429UntilTheWindowEnds() throws Exception {
    QuotaServer.Config config = new QuotaServer.Config(QuotaServer.Style.IETF, 5,
        Duration.ofSeconds(5), 0, 0, ORIGIN);
    try (QuotaServer server = QuotaServer.start(config, clock)) {
      List<Integer> statuses = new ArrayList<>();
      for (int i = 0; i < 6; i++) {
        statuses.add(get(server).statusCode());
      }
      assertThat(statuses).containsExactly(200, 200, 200, 200, 200, 429);

      clock.advance(Duration.ofMillis(1500));
      HttpResponse<String> throttled = get(server);
      assertThat(throttled.statusCode()).isEqualTo(429);
      assertThat(throttled.headers().firstValue("Retry-After")).contains("4");
      assertThat(throttled.headers().firstValue("RateLimit")).contains("\"fixed\";r=0;t=4");
      assertThat(throttled.headers().firstValue("RateLimit-Policy"))
          .contains("\"fixed\";q=5;w=5");

      clock.advance(Duration.ofMillis(3500));
      HttpResponse<String> next = get(server);
      assertThat(next.statusCode()).isEqualTo(200);
      assertThat(next.headers().firstValue("RateLimit")).contains("\"fixed\";r=4;t=5");
      assertThat(server.received()).isEqualTo(8);
      assertThat(server.succeeded()).isEqualTo(6);
      assertThat(server.throttled()).isEqualTo(2);
    }
  }

  @Test
  void tokenBucketLimitsBurstsAndRefills() throws Exception {
    QuotaServer.Config config = new QuotaServer.Config(QuotaServer.Style.IETF, 1000,
        Duration.ofSeconds(5), 3, 2, ORIGIN);
    try (QuotaServer server = QuotaServer.start(config, clock)) {
      List<Integer> statuses = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        statuses.add(get(server).statusCode());
      }
      assertThat(statuses).containsExactly(200, 200, 200, 429);

      clock.advance(Duration.ofMillis(500));
      HttpResponse<String> refilled = get(server);
      assertThat(refilled.statusCode()).isEqualTo(200);
      assertThat(refilled.headers().firstValue("RateLimit"))
          .contains("\"fixed\";r=996;t=5, \"burst\";r=0;t=2");
      assertThat(refilled.headers().firstValue("RateLimit-Policy"))
          .contains("\"fixed\";q=1000;w=5, \"burst\";q=3;w=2");
    }
  }

  @Test
  void legacyStyleSendsEpochSecondResetsAndRetryAfter() throws Exception {
    QuotaServer.Config config = new QuotaServer.Config(QuotaServer.Style.LEGACY, 2,
        Duration.ofSeconds(5), 0, 0, ORIGIN);
    try (QuotaServer server = QuotaServer.start(config, clock)) {
      HttpResponse<String> first = get(server);
      assertThat(first.headers().firstValue("X-RateLimit-Limit")).contains("2");
      assertThat(first.headers().firstValue("X-RateLimit-Remaining")).contains("1");
      assertThat(first.headers().firstValue("X-RateLimit-Reset"))
          .contains(Long.toString(ORIGIN.getEpochSecond() + 5));
      assertThat(first.headers().firstValue("RateLimit")).isEmpty();
      get(server);
      clock.advance(Duration.ofMillis(2200));
      HttpResponse<String> throttled = get(server);
      assertThat(throttled.statusCode()).isEqualTo(429);
      assertThat(throttled.headers().firstValue("Retry-After")).contains("3");
      assertThat(throttled.headers().firstValue("X-RateLimit-Remaining")).contains("0");
    }
  }
}
