package dev.headway.signal;

import static dev.headway.signal.DialectFixturesTest.limit;
import static dev.headway.signal.DialectFixturesTest.parse;
import static dev.headway.signal.DialectFixturesTest.policy;
import static dev.headway.signal.DialectFixturesTest.seconds;
import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.HttpFields;
import dev.headway.QuotaLimit;
import dev.headway.QuotaPolicy;
import dev.headway.QuotaReset;
import dev.headway.QuotaUnit;
import dev.headway.RateLimitSignal;
import dev.headway.SignalParser;
import dev.headway.SignalWarning;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Partial information, the header-name variants, body shapes and {@code nextRequestDelay()}: the
 * documented examples (fixtures under src/test/resources/dialects/, field by field) and made-up
 * vendors for each general rule.
 */
class PartialInformationTest {
  static final Instant NOW = Instant.parse("2025-01-01T00:00:00Z");

  static RateLimitSignal headers(int status, String... namesAndValues) {
    return SignalParser.create().parse(status, HttpFields.of(namesAndValues), NOW);
  }

  static RateLimitSignal body(int status, String contentType, String body,
      String... namesAndValues) {
    HttpFields.Builder fields = HttpFields.builder();
    if (contentType != null) {
      fields.add("Content-Type", contentType);
    }
    for (int i = 0; i < namesAndValues.length; i += 2) {
      fields.add(namesAndValues[i], namesAndValues[i + 1]);
    }
    return SignalParser.create().parse(status, fields.build(),
        body.getBytes(StandardCharsets.UTF_8), NOW);
  }

  static Optional<Duration> millis(long millis) {
    return Optional.of(Duration.ofMillis(millis));
  }

  @Nested
  class Partial {
    @Test
    void draft10ItemWithoutRemainingKeepsItsResetAndPolicy() {
      RateLimitSignal signal = parse("ietf-missing-remaining.http");
      assertThat(signal.policies()).containsExactly(new QuotaPolicy("quota", 100,
          QuotaUnit.REQUESTS, seconds(1), Optional.empty(), "ietf-structured"));
      assertThat(signal.limits()).isEmpty();
      assertThat(signal.resets()).containsExactly(new QuotaReset("quota", Duration.ofSeconds(1),
          Optional.empty(), "ietf-structured"));
      assertThat(signal.warnings()).extracting(SignalWarning::kind)
          .containsExactly(SignalWarning.Kind.INCOMPLETE);
      assertThat(signal.nextRequestDelay()).isEmpty(); // nothing says it is exhausted
    }

    @Test
    void draft7DictionaryWithoutRemaining() {
      RateLimitSignal signal = parse("ietf-07-no-remaining.http");
      assertThat(signal.policies()).containsExactly(new QuotaPolicy("default", 10,
          QuotaUnit.REQUESTS, seconds(1), Optional.empty(), "draft-polli"));
      assertThat(signal.limits()).isEmpty();
      assertThat(signal.resets()).containsExactly(new QuotaReset("default", Duration.ofSeconds(1),
          Optional.empty(), "draft-polli"));
      assertThat(signal.warnings()).singleElement().satisfies(w -> {
        assertThat(w.kind()).isEqualTo(SignalWarning.Kind.INCOMPLETE);
        assertThat(w.field()).isEqualTo("ratelimit");
        assertThat(w.message()).contains("remaining");
      });
    }

    @Test
    void atlassianMinutePrecisionResetWithoutACount() {
      RateLimitSignal signal = parse("atlassian-reset-only-429.http");
      assertThat(signal.dialects()).containsExactly("atlassian", "retry-after");
      assertThat(signal.resets()).containsExactly(new QuotaReset("jira-burst-based",
          Duration.ofSeconds(30), Optional.empty(), "atlassian"));
      assertThat(signal.retryAfter()).isEqualTo(seconds(30));
      assertThat(signal.nextRequestDelay()).isEqualTo(seconds(30));
      assertThat(signal.warnings()).extracting(SignalWarning::kind)
          .containsExactly(SignalWarning.Kind.INCOMPLETE);
    }

    @Test
    void madeUpVendorResetWithoutCountOnA429SaysWhenToGoAgain() {
      RateLimitSignal signal = headers(429, "X-RateLimit-Limit", "50",
          "X-RateLimit-Reset", "17");
      assertThat(signal.policies()).extracting(QuotaPolicy::quota).containsExactly(50L);
      assertThat(signal.limits()).isEmpty();
      assertThat(signal.resets()).extracting(QuotaReset::reset)
          .containsExactly(Duration.ofSeconds(17));
      assertThat(signal.nextRequestDelay()).isEqualTo(seconds(17));
      // The same reset on a 200 says nothing about being exhausted.
      assertThat(headers(200, "X-RateLimit-Reset", "17").nextRequestDelay()).isEmpty();
    }

    @Test
    void aResetBesideAMalformedOrSentinelCountIsNotKeptAlone() {
      RateLimitSignal signal = headers(200, "X-RateLimit-Remaining", "many",
          "X-RateLimit-Reset", "17");
      assertThat(signal.resets()).isEmpty();
      assertThat(signal.limits()).isEmpty();
    }

    @Test
    void aResetWithItsCountIsALimitNotAReset() {
      RateLimitSignal signal = headers(200, "RateLimit", "\"a\";r=5;t=10, \"b\";t=20");
      assertThat(signal.limits()).extracting(QuotaLimit::policy).containsExactly("a");
      assertThat(signal.resets()).extracting(QuotaReset::policy).containsExactly("b");
    }

    @Test
    void resetsPastTheCapAreDropped() {
      RateLimitSignal signal = headers(429, "RateLimit", "\"a\";t=999999999");
      assertThat(signal.resets()).isEmpty();
      assertThat(signal.warnings()).extracting(SignalWarning::kind)
          .contains(SignalWarning.Kind.DROPPED);
    }
  }

  @Nested
  class NextRequest {
    @Test
    void retryAfterTakesPrecedenceOverEverything() {
      RateLimitSignal signal = body(429, "application/json", "{\"retry_after\": 3}",
          "Retry-After", "20", "RateLimit", "\"d\";r=0;t=40");
      assertThat(signal.nextRequestDelay()).isEqualTo(seconds(20));
    }

    @Test
    void elseTheLatestResetOfAnExhaustedLimit() {
      RateLimitSignal signal = headers(429,
          "RateLimit", "\"a\";r=0;t=40, \"b\";r=0;t=90, \"c\";r=5;t=500");
      assertThat(signal.nextRequestDelay()).isEqualTo(seconds(90));
      // GitHub's documented primary-limit 403: remaining 0 and an epoch reset, no Retry-After.
      RateLimitSignal github = parse("github-primary.http");
      assertThat(github.retryAfter()).isEmpty();
      assertThat(github.nextRequestDelay()).isEqualTo(seconds(1377013266L - 1377010241L));
    }

    @Tag("json-body")

    @Test
    void elseTheBodyHint() {
      RateLimitSignal signal = body(429, "application/json", "{\"retry_after\": 3}",
          "RateLimit", "\"d\";r=2;t=40");
      assertThat(signal.nextRequestDelay()).isEqualTo(seconds(3));
    }

    @Test
    void elseNothingWhenTheResponseGivesNoReasonToWait() {
      assertThat(headers(200, "RateLimit", "\"d\";r=2;t=40").nextRequestDelay()).isEmpty();
      assertThat(headers(429).nextRequestDelay()).isEmpty();
      assertThat(headers(200).nextRequestDelay()).isEmpty();
    }

    @Test
    void aHealthy200WithAnExhaustedQuotaWaitsForItsReset() {
      assertThat(headers(200, "RateLimit", "\"d\";r=0;t=12").nextRequestDelay())
          .isEqualTo(seconds(12));
    }
  }

  @Nested
  class HeaderVariants {
    @Test
    void zendeskAccountLimitUnderTheBareName() {
      RateLimitSignal signal = parse("zendesk-account.http");
      assertThat(signal.dialects()).containsExactly("x-ratelimit");
      assertThat(signal.policies()).containsExactly(new QuotaPolicy("default", 700,
          QuotaUnit.REQUESTS, Optional.empty(), Optional.empty(), "x-ratelimit"));
      assertThat(signal.limits()).containsExactly(new QuotaLimit("default", 699,
          Optional.empty(), Optional.empty(), "x-ratelimit"));
      assertThat(signal.warnings()).isEmpty();
    }

    @Test
    void zendeskEndpointListIsASecondPolicy() {
      RateLimitSignal signal = parse("zendesk-list-tickets.http");
      assertThat(signal.dialects()).containsExactly("draft-polli", "x-ratelimit", "vendor-list");
      assertThat(policy(signal, "default").quota()).isEqualTo(700);
      assertThat(limit(signal, "default").remaining()).isEqualTo(699);
      assertThat(limit(signal, "default").reset()).isEqualTo(seconds(41));
      assertThat(policy(signal, "tickets-index")).isEqualTo(new QuotaPolicy("tickets-index", 100,
          QuotaUnit.REQUESTS, Optional.empty(), Optional.empty(), "vendor-list"));
      assertThat(limit(signal, "tickets-index")).isEqualTo(new QuotaLimit("tickets-index", 99,
          seconds(41), Optional.empty(), "vendor-list"));
      assertThat(signal.mostRestrictive()).map(QuotaLimit::policy).contains("tickets-index");
      assertThat(signal.warnings()).isEmpty();
    }

    @Test
    void madeUpVendorKeyValueLists() {
      RateLimitSignal signal = headers(200,
          "Acme-RateLimit-Search", "limit=30, remaining=0, reset=12",
          "Globex-Rate-Limit-Export", "total=5;remaining=4",
          "Initech-RateLimit-Notes", "this is not a list");
      assertThat(limit(signal, "search").remaining()).isZero();
      assertThat(limit(signal, "search").reset()).isEqualTo(seconds(12));
      assertThat(policy(signal, "search").quota()).isEqualTo(30);
      assertThat(policy(signal, "export").quota()).isEqualTo(5);
      assertThat(limit(signal, "export").remaining()).isEqualTo(4);
      assertThat(signal.policies()).extracting(QuotaPolicy::name).doesNotContain("notes");
      assertThat(signal.nextRequestDelay()).isEqualTo(seconds(12));
      assertThat(signal.warnings()).isEmpty();
    }

    @Tag("json-body")

    @Test
    void akamaiNamedLimitsAndBodyMembers() {
      RateLimitSignal signal = parse("akamai-purge-429.http");
      assertThat(signal.dialects()).containsExactly("x-ratelimit", "json-body");
      assertThat(signal.policies()).containsExactly(
          new QuotaPolicy("default", 100, QuotaUnit.REQUESTS, Optional.empty(), Optional.empty(),
              "x-ratelimit"),
          new QuotaPolicy("objects", 10000, QuotaUnit.REQUESTS, Optional.empty(),
              Optional.empty(), "x-ratelimit"));
      assertThat(signal.limits()).containsExactly(
          new QuotaLimit("default", 0, Optional.empty(), Optional.empty(), "x-ratelimit"),
          new QuotaLimit("objects", 9904, Optional.empty(), Optional.empty(), "x-ratelimit"));
      assertThat(signal.throttled()).isTrue();
      assertThat(signal.nextRequestDelay()).isEmpty(); // nothing says how long
      assertThat(signal.warnings()).isEmpty();
    }

    @Test
    void madeUpVendorNamedLimitWithItsOwnRetryAfter() {
      RateLimitSignal signal = headers(429,
          "X-RateLimit-Limit-Uploads", "10", "X-RateLimit-Remaining-Uploads", "0",
          "Retry-After-Uploads", "25",
          "X-RateLimit-Limit-Reads", "1000", "X-RateLimit-Remaining-Reads", "870");
      assertThat(limit(signal, "uploads")).isEqualTo(new QuotaLimit("uploads", 0, seconds(25),
          Optional.empty(), "x-ratelimit"));
      assertThat(limit(signal, "reads").remaining()).isEqualTo(870);
      assertThat(policy(signal, "uploads").quota()).isEqualTo(10);
      assertThat(signal.retryAfter()).isEmpty();
      assertThat(signal.nextRequestDelay()).isEqualTo(seconds(25));
    }

    @Test
    void madeUpVendorWordBeforeRemaining() {
      RateLimitSignal signal = headers(200, "X-RateLimit-Graph-Limit", "200",
          "X-RateLimit-Graph-Remaining", "150", "X-RateLimit-Graph-Reset", "30");
      assertThat(limit(signal, "graph")).isEqualTo(new QuotaLimit("graph", 150, seconds(30),
          Optional.empty(), "x-ratelimit"));
      assertThat(policy(signal, "graph").quota()).isEqualTo(200);
    }

    @Test
    void discordResetAfterIsNotANamedLimit() {
      RateLimitSignal signal = parse("discord.http");
      assertThat(signal.policies()).extracting(QuotaPolicy::name).doesNotContain("after");
      assertThat(signal.resets()).extracting(QuotaReset::policy).doesNotContain("after");
    }
  }

  @Nested
  class MillisecondResets {
    @Test
    void prisjaktDocumentedMillisecondDelay() {
      RateLimitSignal signal = parse("prisjakt-429.http");
      assertThat(signal.policies()).containsExactly(new QuotaPolicy("default", 10000,
          QuotaUnit.REQUESTS, Optional.empty(), Optional.empty(), "x-ratelimit"));
      assertThat(signal.limits()).containsExactly(new QuotaLimit("default", 0, seconds(600),
          Optional.empty(), "x-ratelimit"));
      assertThat(signal.nextRequestDelay()).isEqualTo(seconds(600));
      assertThat(signal.warnings()).singleElement().satisfies(w -> {
        assertThat(w.kind()).isEqualTo(SignalWarning.Kind.REINTERPRETED);
        assertThat(w.field()).isEqualTo("x-rate-limit-reset");
      });
    }

    @Test
    void aKnownWindowDecides() {
      // Within a minute window, 90000 cannot be seconds but is 90 s as milliseconds? No: 90 s is
      // past the window too, so it stays seconds and is capped by nothing (under a day).
      RateLimitSignal minute = headers(200, "X-RateLimit-Limit-Minute", "60",
          "X-RateLimit-Remaining-Minute", "3", "X-RateLimit-Reset-Minute", "45000");
      assertThat(limit(minute, "minute").reset()).isEqualTo(seconds(45));
      RateLimitSignal plain = headers(200, "X-RateLimit-Remaining", "3",
          "X-RateLimit-Reset", "45000");
      assertThat(limit(plain, "default").reset()).isEqualTo(seconds(45000));
      assertThat(plain.warnings()).isEmpty();
    }

    @Test
    void epochSecondsAndFractionsAreNeverMilliseconds() {
      RateLimitSignal epoch = headers(200, "X-RateLimit-Remaining", "3",
          "X-RateLimit-Reset", Long.toString(NOW.getEpochSecond() + 120));
      assertThat(limit(epoch, "default").reset()).isEqualTo(seconds(120));
      RateLimitSignal fraction = headers(200, "X-RateLimit-Remaining", "3",
          "X-RateLimit-Reset", "600000.5");
      assertThat(limit(fraction, "default").reset()).as("seconds, past maxReset: dropped")
          .isEmpty();
    }
  }

  @Nested
  @Tag("json-body")
  class Bodies {
    @Test
    void shopifyGraphQlCostOnA200() {
      RateLimitSignal signal = parse("shopify-graphql-200.http");
      assertThat(signal.dialects()).containsExactly("json-body");
      assertThat(signal.policies()).containsExactly(new QuotaPolicy("graphql-cost", 1000,
          QuotaUnit.REQUESTS, seconds(20), Optional.empty(), "json-body"));
      assertThat(signal.limits()).containsExactly(new QuotaLimit("graphql-cost", 954,
          millis(920), Optional.empty(), "json-body"));
      assertThat(signal.throttled()).isFalse();
      assertThat(signal.nextRequestDelay()).isEmpty();
      assertThat(signal.warnings()).isEmpty();
    }

    @Test
    void madeUpGraphQlThrottledQueryWaitsForTheMissingPoints() {
      String json = "{\"errors\": [{\"message\": \"Throttled\", \"extensions\":"
          + " {\"code\": \"THROTTLED\"}}], \"extensions\": {\"cost\": {\"requestedQueryCost\": 202,"
          + " \"actualQueryCost\": null, \"throttleStatus\": {\"maximumAvailable\": 1000.0,"
          + " \"currentlyAvailable\": 118, \"restoreRate\": 50.0}}}}";
      RateLimitSignal signal = body(200, "application/json", json);
      assertThat(signal.throttled()).isTrue();
      assertThat(signal.bodyRetryAfter()).isEqualTo(millis(1680));
      assertThat(signal.nextRequestDelay()).isEqualTo(millis(1680));
      assertThat(limit(signal, "graphql-cost").remaining()).isEqualTo(118);
    }

    @Test
    void a200BodyWithoutThrottleStatusIsNotParsed() {
      RateLimitSignal signal = body(200, "application/json", "{\"retry_after\": 5, \"oops\": ");
      assertThat(signal.isEmpty()).isTrue();
      assertThat(signal.warnings()).isEmpty();
    }

    @Test
    void jsonWithoutContentTypeIsReadOnThrottlingStatuses() {
      RateLimitSignal signal = body(429, null, "  {\"retry_after\": 4}");
      assertThat(signal.bodyRetryAfter()).isEqualTo(seconds(4));
      assertThat(body(503, "text/plain", "{\"retryAfter\": \"2.5\"}").bodyRetryAfter())
          .isEqualTo(millis(2500));
      assertThat(body(429, null, "Too many requests, retry_after 4").isEmpty()).isTrue();
      assertThat(body(429, "text/html", "{\"retry_after\": 4}").isEmpty()).isTrue();
    }

    @Test
    void madeUpProblemDetailsWithRateLimitExtensionMembers() {
      String json = "{\"type\": \"https://example.com/probs/too-many\", \"title\": \"Slow down\","
          + " \"status\": 429, \"rateLimit\": 60, \"rateLimitRemaining\": 0,"
          + " \"rateLimitNext\": \"2025-01-01T00:00:42Z\"}";
      RateLimitSignal signal = body(429, "application/problem+json", json);
      assertThat(signal.problemType()).contains("https://example.com/probs/too-many");
      assertThat(signal.policies()).containsExactly(new QuotaPolicy("default", 60,
          QuotaUnit.REQUESTS, Optional.empty(), Optional.empty(), "json-body"));
      assertThat(signal.limits()).containsExactly(new QuotaLimit("default", 0, seconds(42),
          Optional.empty(), "json-body"));
      assertThat(signal.nextRequestDelay()).isEqualTo(seconds(42));
    }

    @Test
    void rateLimitNextAloneIsAReset() {
      RateLimitSignal signal = body(429, null,
          "{\"error\": {\"rateLimitNext\": \"2025-01-01T00:01:00Z\"}}");
      assertThat(signal.resets()).containsExactly(new QuotaReset("default",
          Duration.ofSeconds(60), Optional.empty(), "json-body"));
      assertThat(signal.nextRequestDelay()).isEqualTo(seconds(60));
    }

    @Test
    void googleRetryInfo() {
      RateLimitSignal signal = parse("google-429.http");
      assertThat(signal.bodyRetryAfter()).isEqualTo(seconds(12));
      assertThat(signal.nextRequestDelay()).isEqualTo(seconds(12));
    }

    @Test
    void hostileBodyValuesAreWarnings() {
      RateLimitSignal signal = body(429, null, "{\"rateLimit\": -5, \"rateLimitRemaining\":"
          + " \"x\", \"rateLimitNext\": 12, \"extensions\": {\"cost\": {\"throttleStatus\":"
          + " {\"maximumAvailable\": 1e400, \"currentlyAvailable\": 1, \"restoreRate\": 0}}}}");
      assertThat(signal.policies()).isEmpty();
      assertThat(signal.limits()).isEmpty();
      assertThat(signal.warnings()).hasSizeGreaterThanOrEqualTo(3);
    }
  }
}
