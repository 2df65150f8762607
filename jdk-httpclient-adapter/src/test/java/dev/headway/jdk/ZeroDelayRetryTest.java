package dev.headway.jdk;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A throttled response that asks for a retry at once (a delay of zero) is retried, and the call
 * ends with the retry's response: never with a {@code CancellationException}.
 */
class ZeroDelayRetryTest {
  static Stream<Arguments> zeroDelays() {
    return Stream.of(Mode.values()).flatMap(mode -> Stream.of(
        Arguments.of(mode, "Retry-After", "0"),
        Arguments.of(mode, "Retry-After", "Wed, 21 Oct 2015 07:28:00 GMT"),
        Arguments.of(mode, "RateLimit", "\"default\";r=0;t=0")));
  }

  @ParameterizedTest(name = "{0} {1}: {2}")
  @MethodSource("zeroDelays")
  void aRetryDueAtOnceGoesOutAndItsResponseIsReturned(Mode mode, String name, String value)
      throws Exception {
    try (Harness h = new Harness()) {
      h.enqueue(429, name, value, "slow down");
      h.enqueue(200, "ok");

      HttpResponse<String> response = h.call(mode, h.get("/zero"));

      assertThat(response.statusCode()).isEqualTo(200);
      assertThat(response.body()).isEqualTo("ok");
      assertThat(h.requests()).isEqualTo(2);
    }
  }

  @ParameterizedTest(name = "{0}")
  @org.junit.jupiter.params.provider.EnumSource(Mode.class)
  void aServerThatAlwaysAsksForAnImmediateRetryGetsItsLastThrottledResponseBack(Mode mode)
      throws Exception {
    try (Harness h = new Harness()) {
      int attempts = h.pacer.maxAttempts();
      for (int i = 0; i < attempts + 2; i++) {
        h.enqueue(429, "Retry-After", "0", "throttled " + i);
      }

      HttpResponse<String> response = h.call(mode, h.get("/zero"));

      assertThat(response.statusCode()).isEqualTo(429);
      assertThat(h.requests()).isBetween(1, attempts);
      assertThat(response.body()).isEqualTo("throttled " + (h.requests() - 1));
    }
  }
}
