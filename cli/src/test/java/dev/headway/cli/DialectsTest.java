package dev.headway.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Documented responses of every dialect in dialects.md, fed as {@code curl -si} prints them
 * (fixtures under {@code src/test/resources/responses}), checked field by field.
 */
class DialectsTest {
  /** Asserts a JSON value: {@code null}, a number (compared numerically) or a string. */
  static void value(JsonNode node, Object expected, String what) {
    assertThat(node).as(what + " is present").isNotNull();
    if (expected == null) {
      assertThat(node.isNull()).as(what + " is null but was " + node).isTrue();
    } else if (expected instanceof Number number) {
      assertThat(node.isNumber()).as(what + " is a number but was " + node).isTrue();
      assertThat(node.decimalValue()).as(what)
          .isEqualByComparingTo(new BigDecimal(number.toString()));
    } else {
      assertThat(node.isTextual()).as(what + " is a string but was " + node).isTrue();
      assertThat(node.asText()).as(what).isEqualTo(expected);
    }
  }

  /** Asserts the policies in order; each row is {name, quota, unit, windowSeconds, pk}. */
  static void policies(JsonNode json, Object[]... rows) {
    JsonNode policies = json.get("policies");
    assertThat(policies).as("policies").hasSize(rows.length);
    for (int i = 0; i < rows.length; i++) {
      JsonNode p = policies.get(i);
      String at = "policies[" + i + "].";
      assertThat(p.size()).as(at + " field count").isEqualTo(5);
      value(p.get("name"), rows[i][0], at + "name");
      value(p.get("quota"), rows[i][1], at + "quota");
      value(p.get("unit"), rows[i][2], at + "unit");
      value(p.get("windowSeconds"), rows[i][3], at + "windowSeconds");
      value(p.get("partitionKey"), rows[i][4], at + "partitionKey");
    }
  }

  /** Asserts the limits in order; each row is {policy, remaining, resetSeconds, pk}. */
  static void limits(JsonNode json, Object[]... rows) {
    JsonNode limits = json.get("limits");
    assertThat(limits).as("limits").hasSize(rows.length);
    for (int i = 0; i < rows.length; i++) {
      JsonNode l = limits.get(i);
      String at = "limits[" + i + "].";
      assertThat(l.size()).as(at + " field count").isEqualTo(4);
      value(l.get("policy"), rows[i][0], at + "policy");
      value(l.get("remaining"), rows[i][1], at + "remaining");
      value(l.get("resetSeconds"), rows[i][2], at + "resetSeconds");
      value(l.get("partitionKey"), rows[i][3], at + "partitionKey");
    }
  }

  static void effective(JsonNode json, Object remaining, Object limit, Object resetSeconds) {
    JsonNode effective = json.get("effective");
    assertThat(effective.size()).as("effective field count").isEqualTo(3);
    value(effective.get("remaining"), remaining, "effective.remaining");
    value(effective.get("limit"), limit, "effective.limit");
    value(effective.get("resetSeconds"), resetSeconds, "effective.resetSeconds");
  }

  static void head(JsonNode json, int status, Object retryAfterSeconds, String... dialects) {
    assertThat(json.size()).as("top-level field count").isEqualTo(12);
    assertThat(json.get("action").isTextual()).as("action is a text").isTrue();
    assertThat(json.get("nextRequestSeconds")).as("nextRequestSeconds is present").isNotNull();
    assertThat(json.get("resets").isArray()).as("resets is an array").isTrue();
    value(json.get("status"), status, "status");
    assertThat(Cli.strings(json.get("dialects"))).as("dialects").containsExactly(dialects);
    value(json.get("retryAfterSeconds"), retryAfterSeconds, "retryAfterSeconds");
  }

  static void noWarnings(JsonNode json) {
    assertThat(Cli.strings(json.get("warnings"))).as("warnings").isEmpty();
  }

  static Object[] row(Object... values) {
    return values;
  }

  static Stream<String> fixtures() {
    return Stream.of("anthropic", "azure-arm", "azure-openai", "azure-resource-graph",
        "cloudflare", "discord-shared-429", "dockerhub", "envoy-429", "express-429",
        "express-draft-6", "express-draft-7", "express-draft-8", "fastify-429", "github-403",
        "github-secondary-403", "gitlab-429", "google-429", "groq-429", "ietf-04", "ietf-07",
        "ietf-08", "jira-429", "kong-429", "no-signal-200", "openai", "polli-03",
        "problem-quota-exceeded-429", "retry-after-http-date-429", "salesforce",
        "sharepoint-429", "shopify-200", "shopify-429", "slack-429", "spring-cloud-gateway",
        "traefik-429", "x-twitter", "zendesk-list-tickets", "akamai-purge-429", "prisjakt-429",
        "shopify-graphql-200", "ietf-07-no-remaining", "atlassian-reset-only-429",
        "ietf-missing-remaining", "dockerhub-api-429", "figma-429", "gitlab-application-limit-429",
        "google-fractional-retry-delay-429", "graph-429", "ietf-04-policy-only", "ietf-07-doc",
        "ietf-08-doc", "iso-reset-7-digits", "lemlist").map(name -> name + ".http");
  }

  @ParameterizedTest
  @MethodSource("fixtures")
  void crlfAndLfGiveTheSameExplanation(String fixture) {
    String lf = Cli.fixture(fixture);

    Cli.Result fromLf = Cli.run(lf, "explain", "--now", "1700000000");
    Cli.Result fromCrlf = Cli.run(Cli.crlf(lf), "explain", "--now", "1700000000");

    assertThat(fromLf.ok()).isEqualTo(fromCrlf.ok());
  }

  @ParameterizedTest
  @MethodSource("fixtures")
  void theTextFormatShowsTheSameNumbers(String fixture) {
    JsonNode json = Cli.explainFixture(fixture, "--now", "1700000000").ok();
    Cli.Result text = Cli.explainFixture(fixture, "--now", "1700000000", "--format", "text");

    assertThat(text.exitCode()).isZero();
    assertThat(text.stdout()).startsWith("status       " + json.get("status").asInt() + "\n");
    for (JsonNode limit : json.get("limits")) {
      assertThat(text.stdout()).contains(limit.get("policy").asText())
          .contains(limit.get("remaining").asText());
    }
    for (JsonNode warning : json.get("warnings")) {
      assertThat(text.stdout()).contains(Printable.of(warning.asText()));
    }
  }

  // --- IETF drafts, every version (dialects.md section 3) ---

  @Test
  void ietfDraft08To10() {
    JsonNode json = Cli.explainFixture("ietf-08.http").ok();

    head(json, 429, 20, "ietf-structured", "retry-after");
    policies(json, row("dynamic", 100, "requests", 60, null));
    limits(json, row("dynamic", 15, 40, null));
    effective(json, 15, 100, 40);
    noWarnings(json);
  }

  @Test
  void ietfDraft07Dictionary() {
    JsonNode json = Cli.explainFixture("ietf-07.http").ok();

    head(json, 429, 20, "draft-polli", "retry-after");
    sameScenario(json);
  }

  @Test
  void ietfDraft04To06() {
    JsonNode json = Cli.explainFixture("ietf-04.http").ok();

    head(json, 429, 20, "draft-polli", "retry-after");
    sameScenario(json);
  }

  @Test
  void draftPolli02To03WithMixedCaseNames() {
    JsonNode json = Cli.explainFixture("polli-03.http").ok();

    head(json, 429, 20, "draft-polli", "retry-after");
    sameScenario(json);
  }

  /**
   * The drafts' "same scenario" before -08 (dialects.md section 3), decided in docs/signals.md:
   * the quota of the current window is the expiring limit 15, which the remaining 15 counts
   * against; the quota policy 100;w=60 is the nominal policy, listed on its own. So
   * {@code effective.limit} is 15, not 100, and the 15 gets no window of 60 s.
   */
  static void sameScenario(JsonNode json) {
    policies(json, row("default", 15, "requests", null, null),
        row("100;w=60", 100, "requests", 60, null));
    limits(json, row("default", 15, 40, null));
    effective(json, 15, 15, 40);
    noWarnings(json);
  }

  @Test
  void retryAfterAsHttpDateIsMeasuredFromTheDateField() {
    JsonNode json = Cli.explainFixture("retry-after-http-date-429.http").ok();

    head(json, 429, 59, "retry-after");
    policies(json);
    limits(json);
    effective(json, null, null, null);
    noWarnings(json);
  }

  // --- gateways and libraries ---

  @Test
  void expressDraft8WithPartitionKey() {
    JsonNode json = Cli.explainFixture("express-draft-8.http").ok();

    head(json, 200, null, "ietf-structured");
    policies(json, row("5-in-2hrs", 5, "requests", 7200, "MmMyNmI0NmI2OGZm"));
    limits(json, row("5-in-2hrs", 4, 7200, "MmMyNmI0NmI2OGZm")); // the policy item's pk
    effective(json, 4, 5, 7200);
    noWarnings(json);
  }

  @Test
  void expressDraft7() {
    JsonNode json = Cli.explainFixture("express-draft-7.http").ok();

    head(json, 200, null, "draft-polli");
    policies(json, row("default", 5, "requests", 60, null));
    limits(json, row("default", 4, 60, null));
    effective(json, 4, 5, 60);
    noWarnings(json);
  }

  @Test
  void expressDraft6() {
    JsonNode json = Cli.explainFixture("express-draft-6.http").ok();

    head(json, 200, null, "draft-polli");
    policies(json, row("default", 5, "requests", 60, null));
    limits(json, row("default", 4, 60, null));
    effective(json, 4, 5, 60);
    noWarnings(json);
  }

  @Test
  void express429WithATextBody() {
    JsonNode json = Cli.explainFixture("express-429.http").ok();

    head(json, 429, 60, "retry-after");
    policies(json);
    limits(json);
    effective(json, null, null, null);
    noWarnings(json);
  }

  @Test
  void kongWithPerWindowHeaders() {
    JsonNode json = Cli.explainFixture("kong-429.http").ok();

    head(json, 429, 22, "draft-polli", "x-ratelimit", "retry-after");
    policies(json, row("default", 5, "requests", null, null),
        row("minute", 5, "requests", 60, null));
    limits(json, row("default", 0, 22, null));
    effective(json, 0, 5, 22);
    noWarnings(json);
  }

  @Test
  void envoyXPrefixedDraft03() {
    JsonNode json = Cli.explainFixture("envoy-429.http").ok();

    head(json, 429, null, "x-ratelimit");
    policies(json, row("default", 1, "requests", 60, null),
        row("first", 1, "requests", 60, null), row("second", 4, "requests", 3600, null));
    limits(json, row("default", 0, 30, null));
    effective(json, 0, 1, 30);
    noWarnings(json);
  }

  @Test
  void cloudflareWithUnpairedNames() {
    JsonNode json = Cli.explainFixture("cloudflare.http").ok();

    head(json, 200, null, "ietf-structured");
    policies(json, row("burst", 100, "requests", 60, null));
    limits(json, row("default", 50, 30, null));
    // The example's policy and limit names differ: there is no quota to pair with.
    effective(json, 50, null, 30);
    noWarnings(json);
  }

  @Test
  void fastifyDeltaResetUnderAnXName() {
    JsonNode json = Cli.explainFixture("fastify-429.http", "--now", "1700000000").ok();

    head(json, 429, 1, "x-ratelimit", "retry-after");
    policies(json, row("default", 2, "requests", null, null));
    limits(json, row("default", 0, 1, null));
    effective(json, 0, 2, 1);
    noWarnings(json);
  }

  @Test
  void springCloudGatewaySentinelIsAWarning() {
    JsonNode json = Cli.explainFixture("spring-cloud-gateway.http").ok();

    head(json, 200, null, "spring-cloud-gateway");
    policies(json, row("default", 20, "requests", 2, null));
    limits(json);
    // Partial information: the policy without a usable count still gives the limit.
    effective(json, null, 20, null);
    assertThat(Cli.strings(json.get("warnings")))
        .containsExactly("x-ratelimit-remaining: -1 means unknown");
  }

  @Test
  void traefikRetryAfter() {
    JsonNode json = Cli.explainFixture("traefik-429.http").ok();

    head(json, 429, 30, "retry-after");
    limits(json);
    noWarnings(json);
  }

  // --- vendors ---

  @Test
  void gitHubEpochResetMeasuredFromDate() {
    JsonNode json = Cli.explainFixture("github-403.http").ok();

    // The body's message ("API rate limit exceeded") makes the 403 a throttled response.
    head(json, 403, null, "x-ratelimit", "json-body");
    policies(json, row("default", 60, "requests", null, null));
    // 1377013266 - Tue, 20 Aug 2013 14:50:41 GMT
    limits(json, row("default", 0, 3025, null));
    effective(json, 0, 60, 3025);
    // No Retry-After: the reset of the exhausted limit says when the next request may go.
    value(json.get("nextRequestSeconds"), 3025, "nextRequestSeconds");
    noWarnings(json);
  }

  @Test
  void gitHubNowGivenAsTheDateGivesTheSameReset() {
    String withoutDate = Cli.fixture("github-403.http").replaceFirst("date: [^\n]*\n", "");

    JsonNode json = Cli.run(withoutDate, "explain", "--now", "2013-08-20T14:50:41Z").ok();

    limits(json, row("default", 0, 3025, null));
  }

  @Test
  void gitHubSecondaryLimitNamesTheResource() {
    JsonNode json = Cli.explainFixture("github-secondary-403.http").ok();

    head(json, 403, 60, "github", "retry-after");
    policies(json, row("search", 30, "requests", null, null));
    limits(json, row("search", 14, 60, null));
    effective(json, 14, 30, 60);
    noWarnings(json);
  }

  @Test
  void openAiGoDurations() {
    JsonNode json = Cli.explainFixture("openai.http").ok();

    head(json, 200, null, "openai");
    policies(json, row("requests", 60, "requests", null, null),
        row("tokens", 150000, "tokens", null, null));
    limits(json, row("requests", 59, 1, null), row("tokens", 149984, 360, null));
    effective(json, 59, 60, 1);
    noWarnings(json);
  }

  @Test
  void groqFractionalGoDurations() {
    JsonNode json = Cli.explainFixture("groq-429.http").ok();

    head(json, 429, 2, "openai", "retry-after");
    policies(json, row("requests", 14400, "requests", null, null),
        row("tokens", 18000, "tokens", null, null));
    limits(json, row("requests", 14370, 179.56, null), row("tokens", 17997, 7.66, null));
    effective(json, 14370, 14400, 179.56);
    noWarnings(json);
  }

  @Test
  void azureOpenAiSentinels() {
    JsonNode json = Cli.explainFixture("azure-openai.http").ok();

    // Only sentinels: the openai dialect recognised nothing, so it is not listed.
    head(json, 200, null);
    policies(json);
    limits(json);
    effective(json, null, null, null);
    assertThat(Cli.strings(json.get("warnings"))).containsExactly(
        "x-ratelimit-limit-tokens: -1 means unknown",
        "x-ratelimit-remaining-tokens: -1 means unknown");
  }

  @Test
  void anthropicRfc3339ResetsIncludingOneAlreadyPast() {
    JsonNode json = Cli.explainFixture("anthropic.http").ok();

    head(json, 200, null, "anthropic");
    policies(json, row("requests", 50, "requests", null, null),
        row("tokens", 40000, "tokens", null, null));
    // requests reset 12:40:59 is a second before the Date (12:41:00): it has already happened.
    limits(json, row("requests", 49, 0, null), row("tokens", 39000, 6, null));
    effective(json, 49, 50, 0);
  }

  @Test
  void shopifyUsedOverLimit() {
    JsonNode ok = Cli.explainFixture("shopify-200.http").ok();
    JsonNode throttled = Cli.explainFixture("shopify-429.http").ok();

    head(ok, 200, null, "shopify");
    policies(ok, row("api-call-limit", 40, "requests", null, null));
    limits(ok, row("api-call-limit", 8, null, null));
    effective(ok, 8, 40, null);
    head(throttled, 429, 2, "shopify", "retry-after");
    limits(throttled, row("api-call-limit", 0, null, null));
    effective(throttled, 0, 40, null);
    noWarnings(throttled);
  }

  @Test
  void discordSharedScopeWithBodyAndFloatResetAfter() {
    JsonNode json = Cli.explainFixture("discord-shared-429.http").ok();

    head(json, 429, 1337, "discord", "retry-after", "json-body");
    policies(json, row("abcd1234", 10, "requests", null, null));
    limits(json, row("abcd1234", 9, 64.57, null));
    effective(json, 9, 10, 64.57);
    noWarnings(json);
  }

  @Test
  void xEpochResetAgainstNow() {
    JsonNode json = Cli.explainFixture("x-twitter.http", "--now", "1705420000").ok();

    head(json, 200, null, "x-ratelimit");
    policies(json, row("default", 900, "requests", null, null));
    limits(json, row("default", 847, 800, null));
    effective(json, 847, 900, 800);
    noWarnings(json);
  }

  @Test
  void gitLabEpochResetUnderADraftName() {
    JsonNode json = Cli.explainFixture("gitlab-429.http").ok();

    head(json, 429, 30, "draft-polli", "retry-after");
    policies(json, row("default", 60, "requests", null, null));
    limits(json, row("default", 0, 30, null));
    effective(json, 0, 60, 30);
    noWarnings(json);
  }

  @Test
  void dockerHubWindowOnLimitAndRemaining() {
    JsonNode json = Cli.explainFixture("dockerhub.http").ok();

    head(json, 200, null, "draft-polli");
    policies(json, row("default", 100, "requests", 21600, null));
    limits(json, row("default", 76, null, null));
    effective(json, 76, 100, null);
    noWarnings(json);
  }

  @Test
  void salesforceUsedOverLimit() {
    JsonNode json = Cli.explainFixture("salesforce.http").ok();

    head(json, 200, null, "salesforce");
    policies(json, row("api-usage", 5000, "requests", 86400, null));
    limits(json, row("api-usage", 4982, null, null));
    effective(json, 4982, 5000, null);
    noWarnings(json);
  }

  @Test
  void jiraIsoResetWithoutSecondsTiedToRetryAfter() {
    JsonNode json = Cli.explainFixture("jira-429.http").ok();

    head(json, 429, 1847, "atlassian", "retry-after");
    policies(json, row("jira-quota-global-based", 100000, "requests", null, null));
    limits(json, row("jira-quota-global-based", 0, 1847, null));
    effective(json, 0, 100000, 1847);
    noWarnings(json);
  }

  @Test
  void sharePointDraft03Trio() {
    JsonNode json = Cli.explainFixture("sharepoint-429.http").ok();

    head(json, 429, 31, "draft-polli", "retry-after");
    policies(json, row("default", 1200, "requests", null, null));
    limits(json, row("default", 0, 31, null));
    effective(json, 0, 1200, 31);
    noWarnings(json);
  }

  @Test
  void azureRemainingOnlyCounters() {
    JsonNode arm = Cli.explainFixture("azure-arm.http").ok();
    JsonNode graph = Cli.explainFixture("azure-resource-graph.http").ok();

    head(arm, 200, null, "azure");
    policies(arm);
    limits(arm, row("subscription-reads", 11999, null, null));
    effective(arm, 11999, null, null);
    head(graph, 200, null, "azure");
    limits(graph, row("user-quota", 10, 3, null));
    effective(graph, 10, null, 3);
  }

  @Test
  void slackRetryAfterOnly() {
    JsonNode json = Cli.explainFixture("slack-429.http").ok();

    head(json, 429, 30, "retry-after");
    policies(json);
    limits(json);
    effective(json, null, null, null);
    noWarnings(json);
  }

  @Test
  void googleRetryDelayInTheBody() {
    JsonNode json = Cli.explainFixture("google-429.http").ok();

    head(json, 429, 12, "json-body");
    limits(json);
    noWarnings(json);
  }

  @Test
  void problemDetailsQuotaExceeded() {
    JsonNode json = Cli.explainFixture("problem-quota-exceeded-429.http").ok();

    head(json, 429, null, "ietf-structured", "json-body");
    policies(json, row("daily", 1000, "requests", 86400, null));
    limits(json, row("daily", 0, 3600, null));
    effective(json, 0, 1000, 3600);
    noWarnings(json);
  }

  @Test
  void noSignalAtAll() {
    JsonNode json = Cli.explainFixture("no-signal-200.http").ok();

    head(json, 200, null);
    policies(json);
    limits(json);
    effective(json, null, null, null);
    noWarnings(json);
  }
}
