package dev.headway.signal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.HttpFields;
import dev.headway.QuotaLimit;
import dev.headway.QuotaPolicy;
import dev.headway.RateLimitSignal;
import dev.headway.SanityCaps;
import dev.headway.SignalParser;
import dev.headway.SignalWarning;
import dev.headway.dialect.Dialect;
import dev.headway.dialect.DialectContext;
import dev.headway.dialect.FieldValues;
import dev.headway.dialect.SignalSink;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The entry point's rules: caching, caps, throttling, bodies, plug-in dialects. */
class SignalParserTest {
  static final Instant NOW = Instant.parse("2025-01-01T00:00:00Z");
  final SignalParser parser = SignalParser.create();

  RateLimitSignal parse(int status, String... headers) {
    return parser.parse(status, HttpFields.of(headers), NOW);
  }

  RateLimitSignal parseBody(int status, String contentType, String body, String... headers) {
    HttpFields.Builder builder = HttpFields.builder().add("Content-Type", contentType);
    for (int i = 0; i < headers.length; i += 2) {
      builder.add(headers[i], headers[i + 1]);
    }
    return parser.parse(status, builder.build(), body.getBytes(StandardCharsets.UTF_8), NOW);
  }

  @Test
  void noSignalAtAll() {
    RateLimitSignal signal = parse(200, "Content-Type", "text/plain");
    assertThat(signal).isEqualTo(RateLimitSignal.none(200));
    assertThat(signal.isEmpty()).isTrue();
  }

  @Test
  void cachedResponseIgnoresRateLimitFieldsButKeepsRetryAfter() {
    RateLimitSignal signal = parse(429, "Age", "30", "RateLimit", "\"default\";r=0;t=50",
        "X-RateLimit-Remaining", "0", "Retry-After", "7");
    assertThat(signal.limits()).isEmpty();
    assertThat(signal.policies()).isEmpty();
    assertThat(signal.retryAfter()).contains(Duration.ofSeconds(7));
    assertThat(signal.warnings()).singleElement().satisfies(w -> {
      assertThat(w.kind()).isEqualTo(SignalWarning.Kind.CACHED);
      assertThat(w.field()).isEqualTo("age");
    });
  }

  @Test
  void ageZeroAndMalformedAgeDoNotIgnoreFields() {
    assertThat(parse(200, "Age", "0", "RateLimit", "\"d\";r=5").limits()).hasSize(1);
    assertThat(parse(200, "Age", "soon", "RateLimit", "\"d\";r=5").limits()).hasSize(1);
    assertThat(parse(200, "Age", "9".repeat(40), "RateLimit", "\"d\";r=5").limits()).isEmpty();
  }

  @Test
  void hostileRetryAfterIsCapped() {
    RateLimitSignal signal = parse(429, "Retry-After", "99999999");
    assertThat(signal.retryAfter()).contains(Duration.ofDays(1));
    assertThat(signal.warnings()).extracting(SignalWarning::kind)
        .containsExactly(SignalWarning.Kind.CAPPED);
  }

  @Test
  void aRetryAfterTooLargeForALongIsHeldAsLongAsAHugeOne() {
    // 8 digits is capped to a day; 23 digits (no long holds it) must not count for less
    for (String field : new String[] {"Retry-After", "retry-after-ms", "x-ms-retry-after-ms"}) {
      RateLimitSignal signal = parse(429, field, "99999999999999999999999");
      assertThat(signal.retryAfter()).as(field).contains(Duration.ofDays(1));
      assertThat(signal.warnings()).as(field).extracting(SignalWarning::kind)
          .containsOnly(SignalWarning.Kind.CAPPED);
      assertThat(signal.warnings()).as(field).extracting(SignalWarning::message)
          .anyMatch(m -> m.startsWith("number too large: \"99999999999999999999999\""));
    }
    assertThat(parse(429, "Retry-After", "99999999999999999999999.5").retryAfter())
        .contains(Duration.ofDays(1));
    assertThat(parse(429, "X-Retry-In", "99999999999999999999h").retryAfter())
        .contains(Duration.ofDays(1));
    assertThat(parse(429, "Retry-After", "99999999999999999999999.5x").retryAfter()).isEmpty();
  }

  @Test
  void aResetDeltaTooLargeForALongIsDroppedAsAHugeOneIs() {
    for (String prefix : new String[] {"X-RateLimit-", "RateLimit-"}) {
      RateLimitSignal signal = parse(200, prefix + "Limit", "10", prefix + "Remaining", "4",
          prefix + "Reset", "99999999999999999999999");
      assertThat(signal.limits()).as(prefix).singleElement().satisfies(l -> {
        assertThat(l.remaining()).isEqualTo(4);
        assertThat(l.reset()).as("past maxReset, as a 14-digit reset is").isEmpty();
      });
    }
  }

  @Test
  @Tag("json-body")
  void aBodyRetryAfterTooLargeIsHeldAsLongAsAHugeOne() {
    assertThat(parseBody(429, "application/json", "{\"retry_after\": 99999999999999999999999}")
        .bodyRetryAfter()).contains(Duration.ofDays(1));
    assertThat(parseBody(429, "application/json", "{\"retry_after\": 1e300}")
        .bodyRetryAfter()).contains(Duration.ofDays(1));
    assertThat(parseBody(429, "application/json",
        "{\"retry_after\": \"99999999999999999999999\"}").bodyRetryAfter())
        .contains(Duration.ofDays(1));
  }

  @Test
  void hostileStructuredFieldIsIgnoredAndTheRestUsed() {
    RateLimitSignal signal = parse(429, "RateLimit", "\"a\";r=-1;t=1e99",
        "RateLimit-Policy", "\"a\";q=10;w=60", "Retry-After", "3");
    assertThat(signal.limits()).isEmpty();
    assertThat(signal.policies()).extracting(QuotaPolicy::quota).containsExactly(10L);
    assertThat(signal.retryAfter()).contains(Duration.ofSeconds(3));
    assertThat(signal.warnings()).singleElement().satisfies(w -> {
      assertThat(w.field()).isEqualTo("ratelimit");
      assertThat(w.kind()).isEqualTo(SignalWarning.Kind.MALFORMED);
    });
  }

  @Test
  void negativeRemainingDropsTheItemOnly() {
    RateLimitSignal signal = parse(200, "RateLimit", "\"a\";r=-1;t=5, \"b\";r=2;t=5");
    assertThat(signal.limits()).extracting(QuotaLimit::policy).containsExactly("b");
    assertThat(signal.warnings()).extracting(SignalWarning::kind)
        .containsExactly(SignalWarning.Kind.DROPPED);
  }

  @Test
  void valuesPastTheCapsAreClampedAndAResetPastItsCapIsDropped() {
    RateLimitSignal signal = parse(200,
        "RateLimit-Policy", "\"p\";q=999999999999999;w=999999999999",
        "RateLimit", "\"p\";r=999999999999999;t=999999999");
    SanityCaps caps = SanityCaps.defaults();
    assertThat(signal.policies().get(0).quota()).isEqualTo(caps.maxQuota());
    assertThat(signal.policies().get(0).window()).contains(caps.maxWindow());
    assertThat(signal.limits().get(0).remaining()).isEqualTo(caps.maxRemaining());
    assertThat(signal.limits().get(0).reset()).as("the count kept, its reset not believed")
        .isEmpty();
    assertThat(signal.warnings()).extracting(SignalWarning::kind).containsExactly(
        SignalWarning.Kind.CAPPED, SignalWarning.Kind.CAPPED, SignalWarning.Kind.CAPPED,
        SignalWarning.Kind.DROPPED);
  }

  @Test
  void aResetPastTheCapIsDroppedInEveryDialect() {
    // year 5138 in epoch ms, epoch s in 2200, a delta of 2 days, RFC 3339 a year out
    assertThat(parse(200, "X-RateLimit-Limit", "10", "X-RateLimit-Remaining", "4",
        "X-RateLimit-Reset", "99999999999999").limits())
        .singleElement().satisfies(l -> {
          assertThat(l.remaining()).isEqualTo(4);
          assertThat(l.reset()).isEmpty();
        });
    assertThat(parse(200, "X-RateLimit-Limit", "10", "X-RateLimit-Remaining", "4",
        "X-RateLimit-Reset", "7258118400").limits().get(0).reset()).isEmpty();
    assertThat(parse(200, "RateLimit-Limit", "10", "RateLimit-Remaining", "4",
        "RateLimit-Reset", "172800").limits().get(0).reset()).isEmpty();
    assertThat(parse(200, "RateLimit", "\"p\";r=4;t=172800").limits().get(0).reset())
        .isEmpty();
    assertThat(parse(200, "anthropic-ratelimit-requests-limit", "10",
        "anthropic-ratelimit-requests-remaining", "4",
        "anthropic-ratelimit-requests-reset", "2026-01-06T10:00:00Z").limits().get(0).reset())
        .isEmpty();
    RateLimitSignal countless = parse(200, "RateLimit", "\"p\";t=172800");
    assertThat(countless.resets()).as("a reset without a count past the cap").isEmpty();
    assertThat(countless.warnings()).extracting(SignalWarning::kind)
        .contains(SignalWarning.Kind.DROPPED);
    // a reset within the cap is kept as it came
    assertThat(parse(200, "RateLimit", "\"p\";r=4;t=86400").limits().get(0).reset())
        .contains(Duration.ofDays(1));
  }

  @Test
  void customCaps() {
    SignalParser strict = SignalParser.builder()
        .caps(new SanityCaps(Duration.ofMinutes(10), Duration.ofMinutes(1), 1000, 1000))
        .build();
    RateLimitSignal signal = strict.parse(429,
        HttpFields.of("Retry-After", "120", "RateLimit", "\"p\";r=5;t=3600"), NOW);
    assertThat(signal.retryAfter()).as("a hold is capped").contains(Duration.ofMinutes(1));
    assertThat(signal.limits().get(0).reset()).as("a reset past the cap is dropped").isEmpty();
    assertThat(strict.parse(200, HttpFields.of("RateLimit", "\"p\";r=5;t=600"), NOW).limits()
        .get(0).reset()).contains(Duration.ofMinutes(10));
  }

  @Test
  void fortyDigitNumbersAreTheLargestAndOtherFieldsKept() {
    RateLimitSignal signal = parse(200, "X-RateLimit-Limit", "1".repeat(40),
        "X-RateLimit-Remaining", "7", "X-RateLimit-Reset", "9".repeat(40));
    assertThat(signal.policies()).extracting(QuotaPolicy::quota)
        .containsExactly(1_000_000_000_000L);
    assertThat(signal.limits()).singleElement().satisfies(l -> {
      assertThat(l.remaining()).isEqualTo(7);
      assertThat(l.reset()).isEmpty();
    });
    // the count is read as the largest count, then capped to maxQuota; the reset is read as the
    // longest delay, then dropped as past maxReset
    assertThat(signal.warnings()).extracting(SignalWarning::kind).containsExactlyInAnyOrder(
        SignalWarning.Kind.CAPPED, SignalWarning.Kind.CAPPED, SignalWarning.Kind.CAPPED,
        SignalWarning.Kind.DROPPED);
  }

  @Test
  void firstReportOfAPolicyWins() {
    // fastify-style: both header families with the same values
    RateLimitSignal signal = parse(200, "RateLimit-Limit", "10", "RateLimit-Remaining", "3",
        "X-RateLimit-Limit", "10", "X-RateLimit-Remaining", "3");
    assertThat(signal.limits()).hasSize(1);
    assertThat(signal.limits().get(0).dialect()).isEqualTo("draft-polli");
    assertThat(signal.dialects()).containsExactly("draft-polli", "x-ratelimit");
  }

  @Test
  void throttledClassification() {
    assertThat(parse(429).throttled()).isTrue();
    assertThat(parse(503).throttled()).isFalse();
    assertThat(parse(503, "Retry-After", "5").throttled()).isTrue();
    assertThat(parse(403).throttled()).isFalse();
    assertThat(parse(403, "Retry-After", "5").throttled()).isTrue();
    assertThat(parse(403, "X-RateLimit-Remaining", "0").throttled()).isTrue();
    assertThat(parse(403, "X-RateLimit-Remaining", "1").throttled()).isFalse();
    assertThat(parse(200, "RateLimit", "\"d\";r=0;t=5").throttled()).isFalse();
  }

  @Test
  @Tag("json-body")
  void bodyIsReadOnlyForThrottlingStatusesAndJson() {
    String body = "{\"retry_after\": 12.5}";
    assertThat(parseBody(429, "application/json", body).bodyRetryAfter())
        .contains(Duration.ofMillis(12_500));
    assertThat(parseBody(503, "application/vnd.acme+json; charset=utf-8", body).bodyRetryAfter())
        .contains(Duration.ofMillis(12_500));
    assertThat(parseBody(200, "application/json", body).bodyRetryAfter()).isEmpty();
    // Proxies and captures drop or replace the type: a body starting with '{' is JSON.
    assertThat(parseBody(429, "text/plain", body).bodyRetryAfter())
        .contains(Duration.ofMillis(12_500));
    assertThat(parseBody(429, "text/plain", "retry_after: 12").bodyRetryAfter()).isEmpty();
    assertThat(parseBody(429, "text/html", body).bodyRetryAfter()).isEmpty();
  }

  @Test
  @Tag("json-body")
  void bodyHints() {
    assertThat(parseBody(429, "application/json", "{\"retryAfter\": \"7\"}").bodyRetryAfter())
        .contains(Duration.ofSeconds(7));
    assertThat(parseBody(429, "application/json", "{\"error\": {\"retry_after\": 3}}")
        .bodyRetryAfter()).contains(Duration.ofSeconds(3));
    RateLimitSignal negative = parseBody(429, "application/json", "{\"retry_after\": -3}");
    assertThat(negative.bodyRetryAfter()).isEmpty();
    assertThat(negative.warnings()).extracting(SignalWarning::kind)
        .containsExactly(SignalWarning.Kind.DROPPED);
    RateLimitSignal huge = parseBody(429, "application/json", "{\"retry_after\": 99999999}");
    assertThat(huge.bodyRetryAfter()).contains(Duration.ofDays(1));
    assertThat(huge.warnings()).extracting(SignalWarning::kind)
        .containsExactly(SignalWarning.Kind.CAPPED);
  }

  @Test
  @Tag("json-body")
  void hostileBodiesAreWarningsNotExceptions() {
    String deep = "[".repeat(100_000);
    RateLimitSignal nested = parseBody(429, "application/json", deep);
    assertThat(nested.warnings()).extracting(SignalWarning::kind)
        .containsExactly(SignalWarning.Kind.DROPPED);
    String longBody = "{\"retry_after\": 5, \"pad\": \"" + "x".repeat(40_000) + "\"}";
    RateLimitSignal truncated = parseBody(429, "application/json", longBody);
    assertThat(truncated.bodyRetryAfter()).isEmpty();
    assertThat(truncated.warnings()).singleElement()
        .satisfies(w -> assertThat(w.message()).contains("truncated"));
    assertThat(parseBody(429, "application/json", "{\"retry_after\": 1e999}").bodyRetryAfter())
        .isEmpty();
    assertThat(parseBody(429, "application/problem+json",
        "{\"violated-policies\": \"daily\"}").warnings()).hasSize(1);
  }

  @Test
  void aPlugInDialect() {
    Dialect acme = new Dialect() {
      @Override
      public String name() {
        return "acme";
      }

      @Override
      public void read(DialectContext context, SignalSink sink) {
        context.headers().firstValue("acme-calls-left")
            .flatMap(v -> FieldValues.count("acme-calls-left", v, sink).stream().boxed()
                .findFirst())
            .ifPresent(left -> sink.limit(new QuotaLimit("acme", left, Optional.empty(),
                Optional.empty(), "acme")));
      }
    };
    SignalParser custom = SignalParser.builder().addDialect(acme).build();
    RateLimitSignal signal = custom.parse(200, HttpFields.of("Acme-Calls-Left", "12"), NOW);
    assertThat(signal.dialects()).containsExactly("acme");
    assertThat(signal.limits()).extracting(QuotaLimit::remaining).containsExactly(12L);
  }

  @Test
  void aThrowingDialectIsAWarningAndTheOthersStillRun() {
    Dialect broken = new Dialect() {
      @Override
      public String name() {
        return "broken";
      }

      @Override
      public void read(DialectContext context, SignalSink sink) {
        throw new IllegalStateException("boom");
      }
    };
    SignalParser custom = SignalParser.builder().addDialect(broken).build();
    RateLimitSignal signal = custom.parse(429, HttpFields.of("Retry-After", "4"), NOW);
    assertThat(signal.retryAfter()).contains(Duration.ofSeconds(4));
    assertThat(signal.warnings()).singleElement().satisfies(w -> {
      assertThat(w.field()).isEqualTo("*");
      assertThat(w.message()).contains("dialect broken failed");
      assertThat(w.message()).contains("boom");
    });
  }

  @Test
  void thousandsOfMembersAreBounded() {
    StringBuilder value = new StringBuilder();
    for (int i = 0; i < 10_000; i++) {
      value.append(i == 0 ? "" : ", ").append("\"p").append(i).append("\";r=").append(i);
    }
    RateLimitSignal signal = parse(200, "RateLimit", value.toString());
    assertThat(signal.limits()).hasSize(64);
    assertThat(signal.warnings()).extracting(SignalWarning::kind)
        .containsExactly(SignalWarning.Kind.DROPPED);
  }

  @Test
  void warningsAreBounded() {
    HttpFields.Builder headers = HttpFields.builder();
    for (int i = 0; i < 1000; i++) {
      headers.add("x-ratelimit-p" + i + "-remaining", "bad");
    }
    RateLimitSignal signal = parser.parse(200, headers.build(), NOW);
    assertThat(signal.warnings()).hasSizeLessThanOrEqualTo(33);
    assertThat(signal.warnings().get(signal.warnings().size() - 1).message())
        .contains("suppressed");
  }

  @Test
  void policyNamesAreBounded() {
    RateLimitSignal signal = parse(200, "RateLimit", "\"" + "n".repeat(100_000) + "\";r=1");
    assertThat(signal.limits()).isEmpty();
    assertThat(signal.warnings()).singleElement().satisfies(w -> {
      assertThat(w.kind()).isEqualTo(SignalWarning.Kind.DROPPED);
      assertThat(w.message().length()).isLessThan(300);
    });
  }

  @Test
  void statusOutOfRangeDoesNotThrow() {
    assertThat(parser.parse(0, HttpFields.empty(), NOW).status()).isZero();
    assertThat(parser.parse(-7, HttpFields.empty(), NOW).status()).isZero();
  }
}
