package dev.headway.signal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.HttpFields;
import dev.headway.QuotaLimit;
import dev.headway.QuotaPolicy;
import dev.headway.QuotaUnit;
import dev.headway.RateLimitSignal;
import dev.headway.SignalParser;
import dev.headway.SignalWarning;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Every dialect against the documented examples in src/test/resources/dialects/. */
class DialectFixturesTest {

  static RateLimitSignal parse(String fixture) {
    return Fixture.load(fixture).parse();
  }

  static QuotaPolicy policy(RateLimitSignal signal, String name) {
    return signal.policies().stream().filter(p -> p.name().equals(name)).findFirst()
        .orElseThrow(() -> new AssertionError("no policy " + name + " in " + signal));
  }

  static QuotaLimit limit(RateLimitSignal signal, String name) {
    return signal.limits().stream().filter(l -> l.policy().equals(name)).findFirst()
        .orElseThrow(() -> new AssertionError("no limit " + name + " in " + signal));
  }

  static Optional<Duration> seconds(long seconds) {
    return Optional.of(Duration.ofSeconds(seconds));
  }

  static Optional<Duration> millis(long millis) {
    return Optional.of(Duration.ofMillis(millis));
  }

  @Nested
  class IetfStructured {
    @Test
    void policyAndLimitJoinByName() {
      RateLimitSignal signal = parse("ietf-fixed-window.http");
      assertThat(signal.dialects()).containsExactly("ietf-structured");
      assertThat(signal.policies()).containsExactly(new QuotaPolicy("fixedwindow", 100,
          QuotaUnit.REQUESTS, seconds(60), Optional.empty(), "ietf-structured"));
      assertThat(signal.limits()).containsExactly(new QuotaLimit("fixedwindow", 99, seconds(50),
          Optional.empty(), "ietf-structured"));
      assertThat(signal.warnings()).isEmpty();
      assertThat(signal.throttled()).isFalse();
    }

    @Test
    void multiplePoliciesInOneField() {
      RateLimitSignal signal = parse("ietf-multiple-windows.http");
      assertThat(signal.policies()).extracting(QuotaPolicy::name).containsExactly("hour", "day");
      assertThat(policy(signal, "day").quota()).isEqualTo(5000);
      assertThat(policy(signal, "day").window()).isEqualTo(seconds(86400));
      assertThat(signal.mostRestrictive()).map(QuotaLimit::remaining).contains(100L);
      assertThat(limit(signal, "day").reset()).isEqualTo(seconds(36000));
    }

    @Test
    void severalFieldLinesAreJoinedAndUnknownParametersIgnored() {
      RateLimitSignal signal = parse("ietf-split-fields.http");
      assertThat(signal.policies()).extracting(QuotaPolicy::name)
          .containsExactly("sliding", "fixed");
      assertThat(policy(signal, "fixed").quota()).isEqualTo(5000);
      assertThat(limit(signal, "sliding").remaining()).isEqualTo(50);
      assertThat(signal.warnings()).isEmpty();
    }

    @Test
    void partitionKeyAndQuotaUnit() {
      RateLimitSignal signal = parse("ietf-partition-key.http");
      QuotaPolicy policy = policy(signal, "peruser");
      assertThat(policy.unit()).isEqualTo(QuotaUnit.CONTENT_BYTES);
      assertThat(policy.window()).isEqualTo(seconds(10));
      assertThat(policy.partitionKey()).isPresent();
      assertThat(limit(signal, "peruser").partitionKey()).isEqualTo(policy.partitionKey());
      assertThat(signal.policy("peruser", policy.partitionKey())).contains(policy);
    }

    @Test
    void itemWithoutRemainingKeepsItsResetAndPolicyWithAWarning() {
      RateLimitSignal signal = parse("ietf-missing-remaining.http");
      assertThat(policy(signal, "quota").quota()).isEqualTo(100);
      assertThat(signal.limits()).isEmpty();
      assertThat(signal.resets()).containsExactly(new dev.headway.QuotaReset("quota",
          Duration.ofSeconds(1), Optional.empty(), "ietf-structured"));
      assertThat(signal.warnings()).singleElement().satisfies(w -> {
        assertThat(w.field()).isEqualTo("ratelimit");
        assertThat(w.kind()).isEqualTo(SignalWarning.Kind.INCOMPLETE);
        assertThat(w.message()).contains("no r parameter");
      });
    }

    @Tag("json-body")

    @Test
    void retryAfterHttpDateIsRelativeToDateAndInvalidProblemJsonIsAWarning() {
      RateLimitSignal signal = parse("ietf-throttled-http-date.http");
      assertThat(signal.retryAfter()).isEqualTo(seconds(5));
      assertThat(limit(signal, "default").remaining()).isZero();
      assertThat(signal.throttled()).isTrue();
      assertThat(signal.problemType()).isEmpty();
      assertThat(signal.warnings()).singleElement().satisfies(w -> {
        assertThat(w.field()).isEqualTo("body");
        assertThat(w.kind()).isEqualTo(SignalWarning.Kind.MALFORMED);
      });
    }

    @Test
    void retryAfterAndResetAreBothReported() {
      RateLimitSignal signal = parse("ietf-retry-after-precedence.http");
      assertThat(signal.retryAfter()).isEqualTo(seconds(20));
      assertThat(limit(signal, "dynamic").reset()).isEqualTo(seconds(40));
      assertThat(signal.dialects()).containsExactly("ietf-structured", "retry-after");
    }

    @Test
    void redirectWithZeroRemainingIsNotThrottled() {
      RateLimitSignal signal = parse("ietf-redirect.http");
      assertThat(signal.status()).isEqualTo(301);
      assertThat(limit(signal, "problemPolicy").reset()).isEqualTo(seconds(10));
      assertThat(signal.throttled()).isFalse();
    }

    @Test
    void cloudflareLowerCaseNames() {
      RateLimitSignal signal = parse("cloudflare.http");
      assertThat(limit(signal, "default").remaining()).isEqualTo(50);
      assertThat(policy(signal, "burst").quota()).isEqualTo(100);
    }

    @Test
    void expressDraft8WithSpacesAndPartitionKey() {
      RateLimitSignal signal = parse("express-draft8.http");
      QuotaPolicy policy = policy(signal, "5-in-2hrs");
      assertThat(policy.quota()).isEqualTo(5);
      assertThat(policy.window()).isEqualTo(seconds(7200));
      assertThat(policy.partitionKey()).contains("MmMyNmI0NmI2OGZm");
      // The RateLimit item carries no pk, so it describes the unpartitioned quota.
      assertThat(limit(signal, "5-in-2hrs").remaining()).isEqualTo(4);
      assertThat(signal.warnings()).isEmpty();
    }
  }

  @Nested
  @Tag("json-body")
  class ProblemDetails {
    @Test
    void quotaExceeded() {
      RateLimitSignal signal = parse("problem-quota-exceeded.http");
      assertThat(signal.problemType())
          .contains("https://iana.org/assignments/http-problem-types#quota-exceeded");
      assertThat(signal.violatedPolicies()).containsExactly("daily", "bandwidth");
      assertThat(signal.throttled()).isTrue();
    }

    @Test
    void temporaryReducedCapacityMakesA503Throttled() {
      RateLimitSignal signal = parse("problem-temporary-reduced-capacity.http");
      assertThat(signal.problemType()).hasValueSatisfying(
          t -> assertThat(t).endsWith("#temporary-reduced-capacity"));
      assertThat(signal.violatedPolicies()).containsExactly("hourly");
      assertThat(signal.throttled()).isTrue();
    }

    @Test
    void abnormalUsage() {
      RateLimitSignal signal = parse("problem-abnormal-usage.http");
      assertThat(signal.problemType()).hasValueSatisfying(
          t -> assertThat(t).endsWith("#abnormal-usage-detected"));
      assertThat(signal.violatedPolicies()).containsExactly("hourly");
    }
  }

  @Nested
  class DraftPolli {
    @Test
    void expressDraft7Dictionary() {
      RateLimitSignal signal = parse("express-draft7.http");
      assertThat(signal.dialects()).containsExactly("draft-polli");
      assertThat(signal.policies()).containsExactly(new QuotaPolicy("default", 5,
          QuotaUnit.REQUESTS, seconds(60), Optional.empty(), "draft-polli"));
      assertThat(signal.limits()).containsExactly(
          new QuotaLimit("default", 4, seconds(60), Optional.empty(), "draft-polli"));
      assertThat(signal.warnings()).isEmpty();
    }

    @Test
    void expressDraft6() {
      RateLimitSignal signal = parse("express-draft6.http");
      assertThat(signal.policies()).containsExactly(new QuotaPolicy("default", 5,
          QuotaUnit.REQUESTS, seconds(60), Optional.empty(), "draft-polli"));
      assertThat(limit(signal, "default").remaining()).isEqualTo(4);
      assertThat(limit(signal, "default").reset()).isEqualTo(seconds(60));
    }

    @Test
    void expiringLimitWithMatchingQuotaPolicyAndMixedCaseNames() {
      RateLimitSignal signal = parse("polli-parameterized.http");
      assertThat(signal.policies()).containsExactly(new QuotaPolicy("default", 100,
          QuotaUnit.REQUESTS, seconds(60), Optional.empty(), "draft-polli"));
      assertThat(limit(signal, "default").remaining()).isEqualTo(99);
      assertThat(limit(signal, "default").reset()).isEqualTo(seconds(50));
    }

    @Test
    void loweredExpiringLimitKeepsTheNominalPolicy() {
      RateLimitSignal signal = parse("polli-dynamic.http");
      // 10 is this window's (lowered) limit; 100;w=60 the nominal policy, reported beside it.
      assertThat(signal.policies()).containsExactly(
          new QuotaPolicy("default", 10, QuotaUnit.REQUESTS, Optional.empty(), Optional.empty(),
              "draft-polli"),
          new QuotaPolicy("100;w=60", 100, QuotaUnit.REQUESTS, seconds(60), Optional.empty(),
              "draft-polli"));
      assertThat(limit(signal, "default").remaining()).isEqualTo(9);
    }

    /**
     * The drafts' "same scenario" (dialects.md section 3; draft-polli-02 section 6.3): the
     * expiring limit 15 is this window's quota, what the remaining 15 counts against; the quota
     * policy 100;w=60 is the nominal one, kept as its own informative policy. The window of
     * 100;w=60 must not be lent to the 15 (15 per minute is what neither says).
     */
    @Test
    void polli02To03Scenario() {
      RateLimitSignal signal = parse("polli-scenario.http");
      assertSameScenario(signal);
    }

    static void assertSameScenario(RateLimitSignal signal) {
      assertThat(signal.policies()).containsExactly(
          new QuotaPolicy("default", 15, QuotaUnit.REQUESTS, Optional.empty(), Optional.empty(),
              "draft-polli"),
          new QuotaPolicy("100;w=60", 100, QuotaUnit.REQUESTS, seconds(60), Optional.empty(),
              "draft-polli"));
      assertThat(signal.limits()).containsExactly(new QuotaLimit("default", 15, seconds(40),
          Optional.empty(), "draft-polli"));
      assertThat(signal.mostRestrictive()).map(QuotaLimit::policy).contains("default");
      assertThat(signal.retryAfter()).isEqualTo(seconds(20));
      assertThat(signal.dialects()).containsExactly("draft-polli", "retry-after");
      assertThat(signal.warnings()).isEmpty();
      assertThat(signal.throttled()).isTrue();
    }

    @Test
    void manyWindows() {
      RateLimitSignal signal = parse("polli-many-windows.http");
      assertThat(policy(signal, "default").window()).isEqualTo(seconds(1));
      assertThat(signal.policies()).extracting(QuotaPolicy::name)
          .containsExactly("default", "50;w=60", "1000;w=3600", "5000;w=86400");
      assertThat(policy(signal, "5000;w=86400").quota()).isEqualTo(5000);
    }

    @Test
    void quotaCommentsAreIgnored() {
      RateLimitSignal signal = parse("polli-burst-comment.http");
      assertThat(policy(signal, "default").window()).isEqualTo(seconds(1));
      assertThat(policy(signal, "1000;w=3600").quota()).isEqualTo(1000);
      assertThat(signal.warnings()).isEmpty();
    }

    @Test
    void throttledWithHttpDateRetryAfter() {
      RateLimitSignal signal = parse("polli-throttled-http-date.http");
      assertThat(signal.retryAfter()).isEqualTo(seconds(5));
      assertThat(limit(signal, "default").remaining()).isZero();
      assertThat(signal.throttled()).isTrue();
    }

    @Test
    void draft04Scenario() {
      assertSameScenario(parse("ietf-04-scenario.http"));
    }

    @Test
    void draft07Scenario() {
      assertSameScenario(parse("ietf-07-scenario.http"));
    }

    @Test
    void expiringLimitEqualToThePolicyQuotaTakesItsWindow() {
      RateLimitSignal signal = SignalParser.create().parse(200, HttpFields.of(
          "RateLimit-Limit", "100", "RateLimit-Policy", "100;w=60", "RateLimit-Remaining", "7"),
          Fixture.RECEIVED_AT);
      assertThat(signal.policies()).containsExactly(new QuotaPolicy("default", 100,
          QuotaUnit.REQUESTS, seconds(60), Optional.empty(), "draft-polli"));
    }

    @Test
    void sharePoint() {
      RateLimitSignal signal = parse("sharepoint-429.http");
      assertThat(policy(signal, "default").quota()).isEqualTo(1200);
      assertThat(limit(signal, "default").reset()).isEqualTo(seconds(31));
      assertThat(signal.retryAfter()).isEqualTo(seconds(31));
    }

    @Test
    void gitLabEpochResetUnderTheDraftName() {
      RateLimitSignal signal = parse("gitlab-429.http");
      assertThat(limit(signal, "default").reset()).isEqualTo(seconds(30));
      assertThat(signal.retryAfter()).isEqualTo(seconds(30));
      assertThat(signal.throttled()).isTrue();
    }

    @Test
    void dockerHubWindowOnLimitAndRemaining() {
      RateLimitSignal signal = parse("docker-hub.http");
      assertThat(policy(signal, "default").quota()).isEqualTo(100);
      assertThat(policy(signal, "default").window()).isEqualTo(seconds(21600));
      assertThat(limit(signal, "default").remaining()).isEqualTo(76);
      assertThat(limit(signal, "default").reset()).isEmpty();
      assertThat(signal.warnings()).isEmpty();
    }

    @Test
    void kongDraftFieldsPlusPerWindowFields() {
      RateLimitSignal signal = parse("kong-429.http");
      assertThat(signal.dialects()).containsExactly("draft-polli", "x-ratelimit", "retry-after");
      assertThat(policy(signal, "default").quota()).isEqualTo(5);
      assertThat(limit(signal, "default").reset()).isEqualTo(seconds(22));
      assertThat(policy(signal, "minute").window()).isEqualTo(seconds(60));
      assertThat(limit(signal, "minute").remaining()).isZero();
      assertThat(signal.retryAfter()).isEqualTo(seconds(22));
      assertThat(signal.bodyRetryAfter()).isEmpty();
    }
  }

  @Nested
  class XRateLimit {
    @Test
    void expressLegacyEpochResetAgainstDate() {
      RateLimitSignal signal = parse("express-legacy.http");
      assertThat(signal.dialects()).containsExactly("x-ratelimit");
      assertThat(limit(signal, "default").reset()).isEqualTo(seconds(60));
      assertThat(policy(signal, "default").quota()).isEqualTo(5);
    }

    @Test
    void gitHubDocumentedExampleWithoutResource() {
      RateLimitSignal signal = parse("github-primary.http");
      assertThat(policy(signal, "default").quota()).isEqualTo(60);
      assertThat(limit(signal, "default").remaining()).isZero();
      assertThat(limit(signal, "default").reset()).isEqualTo(seconds(1377013266L - 1377010241L));
      assertThat(signal.throttled()).as("403 with zero remaining").isTrue();
    }

    @Test
    void twitterHyphenatedNames() {
      RateLimitSignal signal = parse("x-twitter.http");
      assertThat(policy(signal, "default").quota()).isEqualTo(900);
      assertThat(limit(signal, "default").remaining()).isEqualTo(847);
      assertThat(limit(signal, "default").reset()).isEqualTo(seconds(600));
    }

    @Test
    void twitterThrottledWithoutDateUsesReceiptTime() {
      RateLimitSignal signal = parse("x-twitter-429.http");
      // 1705420800 is more than a day before RECEIVED_AT: a past reset is zero.
      assertThat(limit(signal, "default").reset()).isEqualTo(seconds(0));
      assertThat(signal.throttled()).isTrue();
    }

    @Test
    void kongResponseRateLimitingNamedWindows() {
      RateLimitSignal signal = parse("kong-response-ratelimiting.http");
      assertThat(policy(signal, "videos-minute").quota()).isEqualTo(10);
      assertThat(policy(signal, "videos-minute").window()).isEqualTo(seconds(60));
      assertThat(limit(signal, "videos-minute").remaining()).isEqualTo(9);
    }

    @Test
    void envoyDraft03List() {
      RateLimitSignal signal = parse("envoy-draft03.http");
      assertThat(policy(signal, "default").quota()).isEqualTo(1);
      assertThat(policy(signal, "default").window()).isEqualTo(seconds(60));
      assertThat(policy(signal, "second").window()).isEqualTo(seconds(3600));
      assertThat(limit(signal, "default").reset()).isEqualTo(seconds(35));
    }

    @Test
    void envoyThrottledWithoutHints() {
      RateLimitSignal signal = parse("envoy-429.http");
      assertThat(signal.throttled()).isTrue();
      assertThat(signal.isEmpty()).isTrue();
    }

    @Test
    void hapiUserNamesWithAnEpochMillisecondReset() {
      RateLimitSignal signal = parse("hapi.http");
      assertThat(signal.dialects()).containsExactly("x-ratelimit");
      assertThat(policy(signal, "user").quota()).isEqualTo(20);
      assertThat(limit(signal, "user").remaining()).isEqualTo(19);
      assertThat(limit(signal, "user").reset()).isEqualTo(millis(4126));
      assertThat(signal.warnings()).isEmpty();
    }

    @Test
    void hapiOverdrawnCountOnA429IsNoneLeft() {
      RateLimitSignal signal = parse("hapi-429.http");
      assertThat(signal.throttled()).isTrue();
      assertThat(limit(signal, "user").remaining()).isZero();
      assertThat(limit(signal, "user").reset()).isEqualTo(millis(3128));
      assertThat(signal.nextRequestDelay()).isEqualTo(millis(3128));
      assertThat(signal.warnings()).isEmpty();
    }

    @Test
    void aRateLimitResetThatIsAnEpochSecondIsReadAsOne() {
      // The drafts say delta seconds; some servers send an epoch second. Read against Date.
      RateLimitSignal signal = SignalParser.create().parse(200, HttpFields.of(
          "RateLimit-Limit", "20", "RateLimit-Remaining", "7",
          "RateLimit-Reset", "1795903550", "Date", "Sat, 28 Nov 2026 22:05:44 GMT"),
          Instant.EPOCH);
      assertThat(limit(signal, "default").reset()).isEqualTo(seconds(6));
    }

    @Test
    void aMinusOneOnASuccessfulResponseStaysUnknown() {
      RateLimitSignal signal = SignalParser.create().parse(200, HttpFields.of(
          "X-RateLimit-UserLimit", "20", "X-RateLimit-UserRemaining", "-1"), Instant.EPOCH);
      assertThat(signal.limits()).isEmpty();
      assertThat(signal.warnings()).extracting(SignalWarning::kind)
          .containsExactly(SignalWarning.Kind.SENTINEL);
    }

    @Test
    void atlassianNearLimitFlagIsNotALimit() {
      RateLimitSignal signal = SignalParser.create().parse(200, HttpFields.of(
          "X-RateLimit-NearLimit", "true"), Instant.EPOCH);
      assertThat(signal.policies()).isEmpty();
      assertThat(signal.warnings()).isEmpty();
    }

    @Test
    void fastifyDeltaResetAndJsonBodyWithoutHints() {
      RateLimitSignal signal = parse("fastify-429.http");
      assertThat(limit(signal, "default").reset()).isEqualTo(seconds(1));
      assertThat(signal.retryAfter()).isEqualTo(seconds(1));
      assertThat(signal.bodyRetryAfter()).isEmpty();
      assertThat(signal.warnings()).isEmpty();
    }
  }

  @Nested
  class GitHub {
    @Test
    void resourceNamesThePolicy() {
      RateLimitSignal signal = parse("github-resource.http");
      assertThat(signal.dialects()).containsExactly("github");
      assertThat(policy(signal, "core").quota()).isEqualTo(5000);
      assertThat(limit(signal, "core").remaining()).isEqualTo(4999);
      assertThat(limit(signal, "core").reset()).isEqualTo(seconds(3025));
      assertThat(signal.policies()).hasSize(1);
    }

    @Tag("json-body")

    @Test
    void secondaryLimit403WithRemainingWaitsTheDocumentedMinute() {
      RateLimitSignal signal = parse("github-secondary-403.http");
      assertThat(limit(signal, "search").remaining()).isEqualTo(14);
      // The body says "secondary rate limit": throttled although 14 remain and no retry-after;
      // GitHub documents "wait at least one minute" for this case.
      assertThat(signal.throttled()).isTrue();
      assertThat(signal.retryAfter()).isEmpty();
      assertThat(signal.documentedDelay()).isEqualTo(seconds(60));
      assertThat(signal.nextRequestDelay()).isEqualTo(seconds(60));
    }

    @Test
    void a403WithoutRateLimitWordsIsNotThrottledAndGivesNoWait() {
      Fixture permission = Fixture.parse("permission-403", ("HTTP/1.1 403 Forbidden\n"
          + "X-RateLimit-Limit: 5000\nX-RateLimit-Remaining: 4999\nX-RateLimit-Resource: core\n"
          + "Content-Type: application/json\n\n{\"message\": \"Resource not accessible\"}")
          .getBytes(java.nio.charset.StandardCharsets.UTF_8));
      RateLimitSignal signal = permission.parse();
      assertThat(signal.throttled()).isFalse();
      assertThat(signal.nextRequestDelay()).isEmpty();
    }

    @Test
    void secondaryLimit403WithRetryAfterIsThrottled() {
      RateLimitSignal signal = parse("github-secondary-retry-after.http");
      assertThat(signal.retryAfter()).isEqualTo(seconds(60));
      assertThat(signal.throttled()).isTrue();
    }
  }

  @Nested
  class OpenAi {
    @Test
    void requestsAndTokensAreTwoPolicies() {
      RateLimitSignal signal = parse("openai.http");
      assertThat(signal.dialects()).containsExactly("openai");
      assertThat(policy(signal, "requests")).isEqualTo(new QuotaPolicy("requests", 60,
          QuotaUnit.REQUESTS, Optional.empty(), Optional.empty(), "openai"));
      assertThat(policy(signal, "tokens").unit()).isEqualTo(QuotaUnit.TOKENS);
      assertThat(policy(signal, "tokens").quota()).isEqualTo(150000);
      assertThat(limit(signal, "requests").reset()).isEqualTo(seconds(1));
      assertThat(limit(signal, "tokens").reset()).isEqualTo(seconds(360));
      assertThat(limit(signal, "tokens").remaining()).isEqualTo(149984);
    }

    @Test
    void millisecondResets() {
      RateLimitSignal signal = parse("openai-capture-ms.http");
      assertThat(limit(signal, "requests").reset()).isEqualTo(millis(12));
      assertThat(limit(signal, "tokens").reset()).isEqualTo(millis(9));
    }

    @Test
    void retryAfterMsTakesPrecedence() {
      RateLimitSignal signal = parse("openai-429.http");
      assertThat(signal.retryAfter()).isEqualTo(millis(1500));
      assertThat(signal.throttled()).isTrue();
    }

    @Test
    void azureOpenAiMinusOneIsASentinel() {
      RateLimitSignal signal = parse("azure-openai.http");
      assertThat(signal.policies()).isEmpty();
      assertThat(signal.limits()).isEmpty();
      assertThat(signal.warnings()).extracting(SignalWarning::kind)
          .containsExactly(SignalWarning.Kind.SENTINEL, SignalWarning.Kind.SENTINEL);
      assertThat(signal.warnings()).extracting(SignalWarning::field)
          .containsExactly("x-ratelimit-limit-tokens", "x-ratelimit-remaining-tokens");
    }

    @Test
    void groqFractionalGoDurations() {
      RateLimitSignal signal = parse("groq.http");
      assertThat(limit(signal, "requests").reset()).isEqualTo(millis(179_560));
      assertThat(limit(signal, "tokens").reset()).isEqualTo(millis(7_660));
      assertThat(limit(signal, "requests").remaining()).isEqualTo(14370);
    }

    @Test
    void groq429() {
      RateLimitSignal signal = parse("groq-429.http");
      assertThat(signal.retryAfter()).isEqualTo(seconds(2));
      assertThat(signal.mostRestrictive()).map(QuotaLimit::policy).contains("requests");
    }
  }

  @Nested
  class Anthropic {
    @Test
    void rfc3339ResetsAndAResetBeforeDateIsZero() {
      RateLimitSignal signal = parse("anthropic-429.http");
      assertThat(signal.dialects()).containsExactly("anthropic", "retry-after");
      assertThat(limit(signal, "requests").remaining()).isZero();
      assertThat(limit(signal, "requests").reset()).isEqualTo(seconds(0));
      assertThat(limit(signal, "tokens").reset()).isEqualTo(seconds(6));
      assertThat(policy(signal, "input-tokens").unit()).isEqualTo(QuotaUnit.TOKENS);
      assertThat(policy(signal, "output-tokens").quota()).isEqualTo(8000);
      assertThat(signal.retryAfter()).isEqualTo(seconds(1));
      assertThat(signal.problemType()).as("type 'error' is not a problem type").isEmpty();
      assertThat(signal.warnings()).isEmpty();
    }
  }

  @Nested
  class Shopify {
    @Test
    void usedOverLimit() {
      RateLimitSignal signal = parse("shopify.http");
      assertThat(policy(signal, "api-call-limit").quota()).isEqualTo(40);
      assertThat(limit(signal, "api-call-limit").remaining()).isEqualTo(8);
    }

    @Test
    void throttledWithFractionalRetryAfter() {
      RateLimitSignal signal = parse("shopify-429.http");
      assertThat(limit(signal, "api-call-limit").remaining()).isZero();
      assertThat(signal.retryAfter()).isEqualTo(seconds(2));
      assertThat(signal.throttled()).isTrue();
    }
  }

  @Nested
  class Discord {
    @Tag("json-body")
    @Test
    void sharedScope429() {
      RateLimitSignal signal = parse("discord-shared-429.http");
      assertThat(signal.dialects()).containsExactly("discord", "retry-after", "json-body");
      assertThat(limit(signal, "abcd1234").remaining()).isEqualTo(9);
      assertThat(limit(signal, "abcd1234").reset()).isEqualTo(millis(64_570));
      assertThat(signal.retryAfter()).isEqualTo(seconds(1337));
      assertThat(signal.bodyRetryAfter()).isEqualTo(millis(1_336_570));
      assertThat(signal.throttled()).isTrue();
    }

    @Test
    void epochResetWithDecimals() {
      RateLimitSignal signal = parse("discord.http");
      assertThat(limit(signal, "abcd1234").reset()).isEqualTo(millis(3_123));
      assertThat(policy(signal, "abcd1234").quota()).isEqualTo(5);
    }

    @Tag("json-body")

    @Test
    void global429BodyFloat() {
      RateLimitSignal signal = parse("discord-global-429.http");
      assertThat(signal.retryAfter()).isEqualTo(seconds(65));
      assertThat(signal.bodyRetryAfter()).isEqualTo(millis(64_570));
    }
  }

  @Nested
  class Atlassian {
    @Test
    void cloudIsoResetNamedByReason() {
      RateLimitSignal signal = parse("atlassian-cloud-429.http");
      assertThat(signal.dialects()).containsExactly("atlassian", "retry-after");
      assertThat(policy(signal, "jira-quota-global-based").quota()).isEqualTo(100000);
      assertThat(limit(signal, "jira-quota-global-based").reset()).isEqualTo(seconds(1847));
      assertThat(signal.retryAfter()).isEqualTo(seconds(1847));
    }

    @Test
    void minutePrecisionTimestamp() {
      RateLimitSignal signal = parse("atlassian-minute-precision.http");
      assertThat(limit(signal, "jira-burst-based").reset()).isEqualTo(seconds(30));
    }

    @Test
    void dataCenterTokenBucket() {
      RateLimitSignal signal = parse("atlassian-datacenter.http");
      assertThat(policy(signal, "fill-rate").quota()).isEqualTo(10);
      assertThat(policy(signal, "fill-rate").window()).isEqualTo(seconds(1));
      assertThat(limit(signal, "default").remaining()).isEqualTo(97);
      assertThat(signal.retryAfter()).isEqualTo(seconds(0));
      assertThat(signal.throttled()).isFalse();
    }
  }

  @Nested
  class SpringCloudGateway {
    @Test
    void tokenBucket() {
      RateLimitSignal signal = parse("spring-cloud-gateway.http");
      assertThat(signal.dialects()).containsExactly("spring-cloud-gateway");
      assertThat(policy(signal, "default").quota()).isEqualTo(20);
      assertThat(policy(signal, "default").window()).isEqualTo(seconds(2));
      assertThat(limit(signal, "default").remaining()).isEqualTo(9);
      assertThat(signal.cost()).hasValue(1);
    }

    @Test
    void requestedTokensIsTheRequestsCost() {
      RateLimitSignal signal = SignalParser.create().parse(200, HttpFields.of(
          "X-RateLimit-Remaining", "14", "X-RateLimit-Replenish-Rate", "5",
          "X-RateLimit-Burst-Capacity", "20", "X-RateLimit-Requested-Tokens", "3"),
          Instant.EPOCH);
      assertThat(signal.cost()).hasValue(3);
      assertThat(policy(signal, "default").window()).isEqualTo(seconds(4));
    }

    @Test
    void redisDownSentinel() {
      RateLimitSignal signal = parse("spring-cloud-gateway-redis-down.http");
      assertThat(signal.limits()).isEmpty();
      assertThat(signal.warnings()).singleElement().satisfies(w -> {
        assertThat(w.kind()).isEqualTo(SignalWarning.Kind.SENTINEL);
        assertThat(w.field()).isEqualTo("x-ratelimit-remaining");
      });
    }
  }

  @Nested
  class Salesforce {
    @Test
    void perAppUsage() {
      RateLimitSignal signal = parse("salesforce-per-app.http");
      assertThat(policy(signal, "api-usage").window()).isEqualTo(Optional.of(Duration.ofDays(1)));
      assertThat(limit(signal, "api-usage").remaining()).isEqualTo(4975);
      assertThat(limit(signal, "per-app-api-usage").remaining()).isEqualTo(233);
    }

    @Test
    void bursts() {
      RateLimitSignal signal = parse("salesforce-bursts.http");
      assertThat(limit(signal, "api-usage").remaining()).isEqualTo(89982);
      assertThat(limit(signal, "api-bursts").remaining()).isEqualTo(749);
    }

    @Tag("json-body")

    @Test
    void marketingCloudBodyRetryAfter() {
      RateLimitSignal signal = parse("marketing-cloud-429.http");
      assertThat(signal.retryAfter()).isEqualTo(seconds(5));
      assertThat(signal.bodyRetryAfter()).isEqualTo(seconds(5));
    }
  }

  @Nested
  class Azure {
    @Test
    void remainingOnlyCounters() {
      RateLimitSignal signal = parse("azure-arm.http");
      assertThat(limit(signal, "subscription-reads").remaining()).isEqualTo(249);
      assertThat(limit(signal, "subscription-global-reads").remaining()).isEqualTo(3749);
      assertThat(signal.policies()).isEmpty();
    }

    @Test
    void resourceGraphClockDuration() {
      RateLimitSignal signal = parse("azure-resource-graph.http");
      assertThat(limit(signal, "user-quota").remaining()).isEqualTo(10);
      assertThat(limit(signal, "user-quota").reset()).isEqualTo(seconds(3));
    }

    @Test
    void sdkMillisecondsBeforeRetryAfterAndA503IsThrottled() {
      RateLimitSignal signal = parse("azure-sdk-503.http");
      assertThat(signal.retryAfter()).isEqualTo(millis(2500));
      assertThat(signal.throttled()).isTrue();
    }
  }

  @Nested
  @Tag("json-body")
  class RetryAndBodies {
    @Test
    void googleRetryDelay() {
      RateLimitSignal signal = parse("google-429.http");
      assertThat(signal.bodyRetryAfter()).isEqualTo(seconds(12));
      assertThat(signal.retryAfter()).isEmpty();
      assertThat(signal.dialects()).containsExactly("json-body");
    }

    @Test
    void slackRetryAfterOnly() {
      RateLimitSignal signal = parse("slack-429.http");
      assertThat(signal.retryAfter()).isEqualTo(seconds(30));
      assertThat(signal.policies()).isEmpty();
    }

    @Test
    void traefikRetryAfterBeforeGoDuration() {
      RateLimitSignal signal = parse("traefik-429.http");
      assertThat(signal.retryAfter()).isEqualTo(seconds(30));
    }

    @Test
    void djangoRestFrameworkBody() {
      RateLimitSignal signal = parse("django-429.http");
      assertThat(signal.bodyRetryAfter()).isEqualTo(seconds(58));
      assertThat(signal.retryAfter()).isEqualTo(seconds(58));
    }

    @Test
    void expressPlainTextBodyIsNotRead() {
      RateLimitSignal signal = parse("express-429.http");
      assertThat(signal.retryAfter()).isEqualTo(seconds(60));
      assertThat(signal.warnings()).isEmpty();
    }
  }
}
