package dev.headway.cli;

import static dev.headway.cli.DialectsTest.effective;
import static dev.headway.cli.DialectsTest.head;
import static dev.headway.cli.DialectsTest.limits;
import static dev.headway.cli.DialectsTest.noWarnings;
import static dev.headway.cli.DialectsTest.policies;
import static dev.headway.cli.DialectsTest.row;
import static dev.headway.cli.DialectsTest.value;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code nextRequestSeconds}, {@code resets} and partial information, through the command, field
 * by field: documented responses (fixtures under src/test/resources/responses) and made-up
 * vendors for each rule.
 */
class NextRequestTest {
  static void next(JsonNode json, Object seconds) {
    value(json.get("nextRequestSeconds"), seconds, "nextRequestSeconds");
  }

  /** Asserts the resets in order; each row is {policy, resetSeconds, pk}. */
  static void resets(JsonNode json, Object[]... rows) {
    JsonNode resets = json.get("resets");
    assertThat(resets).as("resets").hasSize(rows.length);
    for (int i = 0; i < rows.length; i++) {
      JsonNode r = resets.get(i);
      String at = "resets[" + i + "].";
      assertThat(r.size()).as(at + " field count").isEqualTo(3);
      value(r.get("policy"), rows[i][0], at + "policy");
      value(r.get("resetSeconds"), rows[i][1], at + "resetSeconds");
      value(r.get("partitionKey"), rows[i][2], at + "partitionKey");
    }
  }

  static JsonNode explain(String response) {
    return Cli.run(response, "explain", "--now", "2025-01-01T00:00:00Z").ok();
  }

  /** Every documented fixture, with when the next request may go according to it alone. */
  static Stream<Arguments> documented() {
    return Stream.of(
        Arguments.of("anthropic.http", null),             // 200, nothing exhausted
        Arguments.of("azure-arm.http", null),
        Arguments.of("azure-openai.http", null),          // -1 sentinels only
        Arguments.of("azure-resource-graph.http", null),
        Arguments.of("cloudflare.http", null),            // 50 remaining
        Arguments.of("discord-shared-429.http", 1337),    // Retry-After, though 9 remain
        Arguments.of("dockerhub.http", null),
        Arguments.of("envoy-429.http", 30),               // exhausted, reset 30 s, no Retry-After
        Arguments.of("express-429.http", 60),             // Retry-After
        Arguments.of("express-draft-6.http", null),
        Arguments.of("express-draft-7.http", null),
        Arguments.of("express-draft-8.http", null),
        Arguments.of("fastify-429.http", 1),
        Arguments.of("github-403.http", 3025),            // primary limit: remaining 0, epoch reset
        Arguments.of("github-secondary-403.http", 60),    // Retry-After: 60
        Arguments.of("gitlab-429.http", 30),
        Arguments.of("google-429.http", 12),              // RetryInfo.retryDelay in the body
        Arguments.of("groq-429.http", 2),
        Arguments.of("ietf-04.http", 20),
        Arguments.of("ietf-07.http", 20),
        Arguments.of("ietf-08.http", 20),
        Arguments.of("jira-429.http", 1847),
        Arguments.of("kong-429.http", 22),
        Arguments.of("no-signal-200.http", null),
        Arguments.of("openai.http", null),
        Arguments.of("polli-03.http", 20),
        Arguments.of("problem-quota-exceeded-429.http", 3600), // exhausted "daily", reset 3600
        Arguments.of("retry-after-http-date-429.http", 59),
        Arguments.of("salesforce.http", null),
        Arguments.of("sharepoint-429.http", 31),
        Arguments.of("shopify-200.http", null),
        Arguments.of("shopify-429.http", 2),
        Arguments.of("slack-429.http", 30),
        Arguments.of("spring-cloud-gateway.http", null),
        Arguments.of("traefik-429.http", 30),
        Arguments.of("x-twitter.http", null),
        Arguments.of("zendesk-list-tickets.http", null),
        Arguments.of("akamai-purge-429.http", null),      // exhausted, but no reset given
        Arguments.of("prisjakt-429.http", 600),           // 600000 ms
        Arguments.of("shopify-graphql-200.http", null),
        Arguments.of("ietf-07-no-remaining.http", null),
        Arguments.of("atlassian-reset-only-429.http", 30),
        Arguments.of("ietf-missing-remaining.http", null));
  }

  @ParameterizedTest
  @MethodSource("documented")
  void nextRequestSecondsOfEveryDocumentedResponse(String fixture, Integer seconds) {
    JsonNode json = Cli.explainFixture(fixture).ok();
    next(json, seconds);
    Cli.Result text = Cli.explainFixture(fixture, "--format", "text");
    String shown = seconds != null ? "in " + seconds + " s"
        : json.get("status").asInt() == 429 ? "-" : "now"; // throttled without a figure
    assertThat(text.stdout()).contains("next         " + shown + "\n");
  }

  @Test
  void zendeskEndpointListIsASecondPolicy() {
    JsonNode json = Cli.explainFixture("zendesk-list-tickets.http").ok();
    head(json, 200, null, "draft-polli", "x-ratelimit", "vendor-list");
    policies(json, row("default", 700, "requests", null, null),
        row("tickets-index", 100, "requests", null, null));
    limits(json, row("default", 699, 41, null), row("tickets-index", 99, 41, null));
    resets(json);
    effective(json, 99, 100, 41);
    next(json, null);
    noWarnings(json);
  }

  @Test
  void akamaiNamedLimitsAndProblemBody() {
    JsonNode json = Cli.explainFixture("akamai-purge-429.http").ok();
    head(json, 429, null, "x-ratelimit", "json-body");
    policies(json, row("default", 100, "requests", null, null),
        row("objects", 10000, "requests", null, null));
    limits(json, row("default", 0, null, null), row("objects", 9904, null, null));
    effective(json, 0, 100, null);
    next(json, null);
    noWarnings(json);
  }

  @Test
  void prisjaktMillisecondReset() {
    JsonNode json = Cli.explainFixture("prisjakt-429.http").ok();
    head(json, 429, null, "x-ratelimit");
    policies(json, row("default", 10000, "requests", null, null));
    limits(json, row("default", 0, 600, null));
    effective(json, 0, 10000, 600);
    next(json, 600);
    assertThat(Cli.strings(json.get("warnings"))).containsExactly(
        "x-rate-limit-reset: reset 600000 read as milliseconds: as seconds it would be longer"
            + " than 86400 s");
  }

  @Test
  void shopifyGraphQlCostOnA200() {
    JsonNode json = Cli.explainFixture("shopify-graphql-200.http").ok();
    head(json, 200, null, "json-body");
    policies(json, row("graphql-cost", 1000, "requests", 20, null));
    limits(json, row("graphql-cost", 954, 0.92, null));
    effective(json, 954, 1000, 0.92);
    next(json, null);
    noWarnings(json);
  }

  @Test
  void draft7WithoutRemainingFillsEffectiveFromPartialInformation() {
    JsonNode json = Cli.explainFixture("ietf-07-no-remaining.http").ok();
    head(json, 200, null, "draft-polli");
    policies(json, row("default", 10, "requests", 1, null));
    limits(json);
    resets(json, row("default", 1, null));
    effective(json, null, 10, 1);
    next(json, null);
    assertThat(Cli.strings(json.get("warnings"))).singleElement().asString()
        .startsWith("ratelimit: policy \"default\": reset kept without a remaining count");
  }

  @Test
  void draft10ItemWithoutR() {
    JsonNode json = Cli.explainFixture("ietf-missing-remaining.http").ok();
    head(json, 200, null, "ietf-structured");
    policies(json, row("quota", 100, "requests", 1, null));
    limits(json);
    resets(json, row("quota", 1, null));
    effective(json, null, 100, 1);
    assertThat(Cli.strings(json.get("warnings"))).containsExactly(
        "ratelimit: policy \"quota\": reset kept without a remaining count (no r parameter)");
  }

  @Test
  void atlassianResetWithoutCount() {
    JsonNode json = Cli.explainFixture("atlassian-reset-only-429.http").ok();
    head(json, 429, 30, "atlassian", "retry-after");
    policies(json);
    limits(json);
    resets(json, row("jira-burst-based", 30, null));
    effective(json, null, null, 30);
    next(json, 30);
  }

  @Test
  void madeUpVendorExhaustedWithAnEpochResetAndNoRetryAfter() {
    JsonNode json = explain("HTTP/1.1 429 Too Many Requests\nAcme-Quota: x\n"
        + "X-RateLimit-Limit: 10\nX-RateLimit-Remaining: 0\nX-RateLimit-Reset: 1735689645\n\n");
    head(json, 429, null, "x-ratelimit");
    limits(json, row("default", 0, 45, null));
    next(json, 45);
  }

  @Test
  void madeUpVendorResetWithoutCountOnlyMattersWhenThrottled() {
    String head = "X-RateLimit-Limit: 10\nX-RateLimit-Reset: 12\n\n";
    JsonNode throttled = explain("HTTP/1.1 429 Too Many Requests\n" + head);
    resets(throttled, row("default", 12, null));
    effective(throttled, null, 10, 12);
    next(throttled, 12);
    JsonNode fine = explain("HTTP/1.1 200 OK\n" + head);
    resets(fine, row("default", 12, null));
    next(fine, null);
  }

  @Test
  void madeUpVendorBodyHintWithoutContentType() {
    JsonNode json = explain("HTTP/1.1 503 Service Unavailable\n\n{\"retryAfter\": 7}");
    head(json, 503, 7, "json-body");
    next(json, 7);
  }

  @Test
  void madeUpVendorNamedLimitWithItsOwnRetryAfter() {
    JsonNode json = explain("HTTP/1.1 429 Too Many Requests\nX-RateLimit-Limit-Uploads: 5\n"
        + "X-RateLimit-Remaining-Uploads: 0\nRetry-After-Uploads: 25\n\n");
    policies(json, row("uploads", 5, "requests", null, null));
    limits(json, row("uploads", 0, 25, null));
    value(json.get("retryAfterSeconds"), null, "retryAfterSeconds");
    next(json, 25);
  }

  @Test
  void aBare429GivesNoFigure() {
    JsonNode json = explain("HTTP/1.1 429 Too Many Requests\n\n");
    next(json, null);
    Cli.Result text = Cli.run("HTTP/1.1 429 Too Many Requests\n\n", "explain", "--format",
        "text");
    assertThat(text.stdout()).contains("next         -\n");
  }
}
