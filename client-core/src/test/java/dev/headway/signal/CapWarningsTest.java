package dev.headway.signal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.headway.HttpFields;
import dev.headway.RateLimitSignal;
import dev.headway.SignalParser;
import dev.headway.SignalWarning;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Regression: a capped value's warning named the policy ({@code default: reset PT2562047H capped
 * to PT24H}) instead of the field the value came from, and printed ISO-8601 durations. A warning's
 * field is the lower-cased field name (or {@code "body"}); durations are in seconds.
 */
class CapWarningsTest {
  static final Instant NOW = Instant.parse("2025-01-06T10:00:00Z");

  final SignalParser parser = SignalParser.create();

  RateLimitSignal parse(int status, String... nameValues) {
    return parser.parse(status, HttpFields.of(nameValues), NOW);
  }

  @Test
  void droppedResetNamesTheResetFieldAndSpeaksSeconds() {
    RateLimitSignal signal = parse(200, "X-RateLimit-Limit", "60", "X-RateLimit-Remaining", "5",
        "X-RateLimit-Reset", "315360000");
    assertThat(signal.warnings()).extracting(SignalWarning::field, SignalWarning::kind)
        .containsExactly(tuple("x-ratelimit-reset", SignalWarning.Kind.DROPPED));
    assertThat(signal.warnings().get(0).message())
        .isEqualTo("policy \"default\": reset 315360000 s is past maxReset (86400 s), ignored:"
            + " the count is paced as if it came with no reset");
  }

  @Test
  void cappedRemainingAndQuotaNameTheirOwnFields() {
    RateLimitSignal signal = parse(200, "X-RateLimit-Limit", "9999999999999",
        "X-RateLimit-Remaining", "9999999999999");
    assertThat(signal.warnings()).extracting(SignalWarning::field, SignalWarning::kind)
        .containsExactlyInAnyOrder(tuple("x-ratelimit-limit", SignalWarning.Kind.CAPPED),
            tuple("x-ratelimit-remaining", SignalWarning.Kind.CAPPED));
  }

  @Test
  void structuredFieldCapsNameTheStructuredFields() {
    RateLimitSignal signal = parse(200,
        "RateLimit-Policy", "\"p\";q=999999999999999;w=999999999999",
        "RateLimit", "\"p\";r=999999999999999;t=999999999");
    assertThat(signal.warnings()).extracting(SignalWarning::field, SignalWarning::message)
        .containsExactlyInAnyOrder(
            tuple("ratelimit-policy", "policy \"p\": quota 999999999999999 capped to "
                + "1000000000000"),
            tuple("ratelimit-policy", "policy \"p\": window 999999999999 s capped to 31622400 s"),
            tuple("ratelimit", "policy \"p\": remaining 999999999999999 capped to 1000000000000"),
            tuple("ratelimit", "policy \"p\": reset 999999999 s is past maxReset (86400 s), "
                + "ignored: the count is paced as if it came with no reset"));
  }

  @Test
  void draftPolliResetPastTheCapNamesRateLimitReset() {
    RateLimitSignal signal = parse(200, "RateLimit-Limit", "10", "RateLimit-Remaining", "3",
        "RateLimit-Reset", "999999");
    assertThat(signal.warnings()).extracting(SignalWarning::field, SignalWarning::message)
        .containsExactly(tuple("ratelimit-reset", "policy \"default\": reset 999999 s is past "
            + "maxReset (86400 s), ignored: the count is paced as if it came with no reset"));
  }

  @Test
  void cappedRetryAfterSpeaksSeconds() {
    RateLimitSignal signal = parse(429, "Retry-After", "999999999999");
    assertThat(signal.warnings()).extracting(SignalWarning::field, SignalWarning::message)
        .containsExactly(tuple("retry-after", "delay 999999999999 s capped to 86400 s"));
  }

  @Test
  void cappedRetryAfterMsNamesItsOwnFieldWithFractionalSeconds() {
    RateLimitSignal signal = parse(429, "retry-after-ms", "100000001500");
    assertThat(signal.warnings()).extracting(SignalWarning::field, SignalWarning::message)
        .containsExactly(tuple("retry-after-ms", "delay 100000001.5 s capped to 86400 s"));
  }

  @Test
  @Tag("json-body")
  void cappedBodyHintNamesTheBody() {
    RateLimitSignal signal = parser.parse(429, HttpFields.of("Content-Type", "application/json"),
        "{\"retry_after\": 99999999}".getBytes(StandardCharsets.UTF_8), NOW);
    assertThat(signal.warnings()).extracting(SignalWarning::field, SignalWarning::message)
        .containsExactly(tuple("body", "delay 99999999 s capped to 86400 s"));
  }
}
