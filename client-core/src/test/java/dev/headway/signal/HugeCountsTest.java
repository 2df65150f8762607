package dev.headway.signal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.HttpFields;
import dev.headway.QuotaLimit;
import dev.headway.QuotaPolicy;
import dev.headway.RateLimitSignal;
import dev.headway.SignalParser;
import dev.headway.SignalWarning;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * A count too large for a {@code long} in a header is the largest count, capped like any huge
 * one (docs/signals.md, "Sanity caps"): never dropped while a merely huge count is capped. One
 * test per header family; the structured fields follow RFC 8941 instead.
 */
class HugeCountsTest {
  static final Instant NOW = Instant.parse("2025-01-01T00:00:00Z");
  static final String HUGE = "1234567890123456789012345678901234567890";
  static final long CAP = 1_000_000_000_000L;
  final SignalParser parser = SignalParser.create();

  RateLimitSignal parse(String... headers) {
    return parser.parse(200, HttpFields.of(headers), NOW);
  }

  @Test
  void draft02FieldsCapAHugeLimitAndRemaining() {
    assertCapped(parse("RateLimit-Limit", HUGE, "RateLimit-Remaining", HUGE,
        "RateLimit-Reset", "60"));
  }

  @Test
  void xRateLimitFieldsCapAHugeLimitAndRemaining() {
    assertCapped(parse("X-RateLimit-Limit", HUGE, "X-RateLimit-Remaining", HUGE,
        "X-RateLimit-Reset", "60"));
  }

  @Test
  void vendorFieldsCapAHugeLimitAndRemaining() {
    assertCapped(parse("x-ratelimit-limit-requests", HUGE, "x-ratelimit-remaining-requests",
        HUGE, "x-ratelimit-reset-requests", "1s"));
  }

  @Test
  void aHugeCountUsedLeavesNothing() {
    RateLimitSignal signal = parse("X-RateLimit-Limit", "60", "X-RateLimit-Used", HUGE,
        "X-RateLimit-Reset", "60");
    assertThat(signal.limits()).extracting(QuotaLimit::remaining).containsExactly(0L);
    assertThat(signal.warnings()).extracting(SignalWarning::message)
        .anyMatch(m -> m.startsWith("number too large: "));
  }

  @Test
  void structuredFieldsFollowRfc8941AnIntegerOfMoreThan15DigitsIsInvalid() {
    RateLimitSignal signal = parse("RateLimit-Policy", "\"default\";q=" + HUGE + ";w=60",
        "RateLimit", "\"default\";r=" + HUGE + ";t=60");
    assertThat(signal.policies()).isEmpty();
    assertThat(signal.limits()).isEmpty();
    assertThat(signal.warnings()).extracting(SignalWarning::kind)
        .containsOnly(SignalWarning.Kind.MALFORMED);
  }

  private static void assertCapped(RateLimitSignal signal) {
    assertThat(signal.policies()).extracting(QuotaPolicy::quota).containsExactly(CAP);
    assertThat(signal.limits()).extracting(QuotaLimit::remaining).containsExactly(CAP);
    assertThat(signal.warnings()).extracting(SignalWarning::kind)
        .containsOnly(SignalWarning.Kind.CAPPED);
    assertThat(signal.warnings()).extracting(SignalWarning::message)
        .anyMatch(m -> m.startsWith("number too large: "));
  }
}
