package dev.headway.nojackson;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.HttpFields;
import dev.headway.Pacer;
import dev.headway.Permit;
import dev.headway.RateLimitSignal;
import dev.headway.RequestInfo;
import dev.headway.SignalParser;
import dev.headway.testing.CapturedLogs;
import dev.headway.testing.VirtualClock;
import java.lang.System.Logger.Level;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * Without Jackson a 429's JSON body is ignored: its hint is lost, everything the headers say is
 * kept, and one INFO line per process says why (Jackson is optional: its absence is no fault).
 */
class BodiesWithoutJacksonTest {
  private static final Instant NOW = Instant.parse("2025-01-01T00:00:00Z");
  private static final HttpFields HEADERS = HttpFields.of(
      "Content-Type", "application/problem+json",
      "RateLimit-Policy", "\"default\";q=100;w=60",
      "RateLimit", "\"default\";r=0;t=20");
  private static final byte[] BODY = ("{\"type\": \"https://iana.org/assignments/"
      + "http-problem-types#quota-exceeded\", \"retry_after\": 5,"
      + " \"violated-policies\": [\"default\"]}").getBytes(StandardCharsets.UTF_8);

  @Test
  void a429JsonBodyIsIgnoredAndTheHeadersAreRead() {
    SignalParser parser = SignalParser.create();
    assertThat(SignalParser.readsBody(429, HEADERS)).as("the rule needs no JSON library").isTrue();

    for (int i = 0; i < 3; i++) {
      RateLimitSignal signal = parser.parse(429, HEADERS, BODY, NOW);
      assertThat(signal.throttled()).isTrue();
      assertThat(signal.policies()).singleElement()
          .satisfies(policy -> assertThat(policy.quota()).isEqualTo(100));
      assertThat(signal.limits()).singleElement()
          .satisfies(limit -> assertThat(limit.remaining()).isZero());
      assertThat(signal.nextRequestDelay()).contains(Duration.ofSeconds(20));
      assertThat(signal.bodyRetryAfter()).isEmpty();
      assertThat(signal.problemType()).isEmpty();
      assertThat(signal.violatedPolicies()).isEmpty();
      assertThat(signal.warnings()).as("no warning per response").isEmpty();
    }
    assertThat(CapturedLogs.lines("dev.headway.signal"))
        .filteredOn(line -> line.message().contains("jackson-databind is not available"))
        .as("one line per process, however many bodies are skipped")
        .singleElement()
        .satisfies(line -> {
          assertThat(line.level()).as("Jackson is optional: not a WARNING").isEqualTo(Level.INFO);
          assertThat(line.message()).as("says what a user loses")
              .contains("a 429 that says when to retry only in its body");
        });
  }

  @Test
  void aPacerStillPacesOnTheHeadersOfA429WithAJsonBody() throws Exception {
    VirtualClock clock = VirtualClock.create();
    try (Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .build()) {
      RequestInfo request = RequestInfo.get(URI.create("https://api.example.com/items"));
      RateLimitSignal signal;
      try (Permit permit = pacer.acquire(request)) {
        signal = permit.complete(429, HEADERS, BODY);
      }
      assertThat(signal.bodyRetryAfter()).isEmpty();
      assertThat(pacer.quota(request.uri()).policies()).singleElement()
          .satisfies(policy -> assertThat(policy.remaining()).hasValue(0));
      assertThat(pacer.retryDelay(request, signal, 1)).hasValueSatisfying(delay ->
          assertThat(delay).isGreaterThanOrEqualTo(Duration.ofSeconds(20)));
    }
  }
}
