package dev.headway.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

/**
 * {@code explain} says what a client does with a response (its {@code action}), shows the
 * server's retry verdict and the request's cost, and reads the draft's latest spellings as the
 * pacer does.
 */
class WhatAClientDoesTest {
  private static JsonNode explain(String... lines) {
    return Cli.run(String.join("\r\n", lines) + "\r\n\r\n", "explain").ok();
  }

  @Test
  void aBare429IsThrottledWithNoHint() {
    JsonNode json = explain("HTTP/1.1 429 Too Many Requests");
    assertThat(json.get("action").asText()).isEqualTo("throttled, no hint: back off");
    assertThat(json.get("nextRequestSeconds").isNull()).isTrue();
  }

  @Test
  void aVetoed429GoesToTheCaller() {
    JsonNode json = explain("HTTP/1.1 429 Too Many Requests", "Retry-After: 5",
        "x-should-retry: false");
    assertThat(json.get("shouldRetry").asBoolean()).isFalse();
    assertThat(json.get("action").asText()).isEqualTo("the server says do not retry: the caller"
        + " gets this response, and the next request waits 5 s");
  }

  @Test
  void anApproved500IsRetried() {
    JsonNode json = explain("HTTP/1.1 500 Internal Server Error", "Stripe-Should-Retry: true");
    assertThat(json.get("shouldRetry").asBoolean()).isTrue();
    assertThat(json.get("action").asText())
        .isEqualTo("the server says retry: retry after a backoff");
    assertThat(json.get("dialects")).extracting(JsonNode::asText).containsExactly("should-retry");
  }

  @Test
  void aDelayPastTheDefaultMaxWaitIsNotRetried() {
    JsonNode json = explain("HTTP/1.1 429 Too Many Requests", "Retry-After: 3600");
    assertThat(json.get("action").asText()).startsWith("throttled: 3600 s is past maxWait");
  }

  @Test
  void aQuotaSpentPastTheDefaultMaxWaitSaysTheNextRequestFails() {
    JsonNode json = explain("HTTP/1.1 200 OK", "X-RateLimit-Limit: 60",
        "X-RateLimit-Remaining: 0", "X-RateLimit-Reset: 1800");
    assertThat(json.get("action").asText()).isEqualTo("quota spent: the next request would wait"
        + " 1800 s, past maxWait (30 s by default): it fails at once (RateLimitedException)");
  }

  @Test
  void aDelayPastTheDefaultMaxWaitSaysRequestsFailUntilThen() {
    JsonNode json = explain("HTTP/1.1 429 Too Many Requests", "Retry-After: 3600");
    assertThat(json.get("action").asText()).isEqualTo("throttled: 3600 s is past maxWait (30 s"
        + " by default): not retried, the caller gets this response, and until then a request"
        + " fails at once (RateLimitedException)");
  }

  @Test
  void aServerErrorWithoutAnyHintIsNotRetried() {
    assertThat(explain("HTTP/1.1 503 Service Unavailable").get("action").asText())
        .isEqualTo("unavailable without Retry-After: not retried, the caller gets this response");
  }

  @Test
  void theProposalsSpellingsAreReadAsThePacerReadsThem() {
    JsonNode json = explain("HTTP/1.1 200 OK", "Date: Mon, 06 Jan 2025 10:00:00 GMT",
        "RateLimit-Policy: \"peruser\";q=100;w=60", "RateLimit: \"peruser\";a=0;w=20;c=3",
        "RateLimit-Partition: :dXNlcjE=:");
    JsonNode limit = json.get("limits").get(0);
    assertThat(limit.get("remaining").asLong()).isZero();
    assertThat(limit.get("resetSeconds").asLong()).isEqualTo(20);
    assertThat(limit.get("partitionKey").asText()).isEqualTo("dXNlcjE=");
    assertThat(json.get("policies").get(0).get("partitionKey").asText()).isEqualTo("dXNlcjE=");
    assertThat(json.get("cost").asLong()).isEqualTo(3);
    assertThat(json.get("action").asText()).isEqualTo("quota spent: the next request waits 20 s");
    assertThat(json.get("warnings")).isEmpty();
  }

  @Test
  void aStaleEpochResetIsAWarning() {
    JsonNode json = explain("HTTP/1.1 200 OK", "Date: Mon, 06 Jan 2025 10:00:00 GMT",
        "X-RateLimit-Limit: 60", "X-RateLimit-Remaining: 10", "X-RateLimit-Reset: 1736157000");
    assertThat(json.get("warnings")).singleElement().extracting(JsonNode::asText).asString()
        .startsWith("x-ratelimit-reset: epoch reset \"1736157000\"").contains("600 s before");
  }
}
