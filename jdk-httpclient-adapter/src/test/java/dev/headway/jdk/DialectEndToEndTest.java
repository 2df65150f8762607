package dev.headway.jdk;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.PolicySnapshot;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * One documented example per dialect (from the vendors' docs and captures catalogued in
 * dialects.md), sent by a local server through the wrapped client on {@code send} and
 * {@code sendAsync}: the pacer's quota snapshot shows what the server said, or the call waited as
 * long as the server asked.
 */
class DialectEndToEndTest {
  /** 2025-01-01T00:00:00Z, the virtual clock's start, in epoch seconds. */
  private static final long T0 = 1735689600L;

  /** A documented response whose quota state the pacer must show afterwards. */
  record QuotaCase(String dialect, long remaining, String[] headers) {
    @Override
    public String toString() {
      return dialect;
    }
  }

  static Stream<Arguments> quotaCases() {
    List<QuotaCase> cases = List.of(
        // IETF draft -08+ (Cloudflare's documented syntax, policy and limit paired by name).
        new QuotaCase("ietf-structured", 50, new String[] {
            "RateLimit-Policy", "\"burst\";q=100;w=60", "RateLimit", "\"burst\";r=50;t=30"}),
        // draft-polli-02/-03 example scenario, mixed-case names as in the draft.
        new QuotaCase("draft-polli", 15, new String[] {
            "RateLimit-Limit", "15, 100;w=60", "Ratelimit-Remaining", "15",
            "Ratelimit-Reset", "40"}),
        // GitHub REST: epoch-seconds reset, resource name.
        new QuotaCase("github", 4999, new String[] {
            "x-ratelimit-limit", "5000", "x-ratelimit-remaining", "4999",
            "x-ratelimit-used", "1", "x-ratelimit-reset", Long.toString(T0 + 3600),
            "x-ratelimit-resource", "core"}),
        // OpenAI platform docs sample values (Go-duration resets).
        new QuotaCase("openai", 59, new String[] {
            "x-ratelimit-limit-requests", "60", "x-ratelimit-limit-tokens", "150000",
            "x-ratelimit-remaining-requests", "59", "x-ratelimit-remaining-tokens", "149984",
            "x-ratelimit-reset-requests", "1s", "x-ratelimit-reset-tokens", "6m0s"}),
        // Anthropic: RFC 3339 resets.
        new QuotaCase("anthropic", 49, new String[] {
            "anthropic-ratelimit-requests-limit", "50",
            "anthropic-ratelimit-requests-remaining", "49",
            "anthropic-ratelimit-requests-reset", "2025-01-01T00:01:00Z"}),
        // Shopify REST: used/limit, not remaining.
        new QuotaCase("shopify", 8, new String[] {"X-Shopify-Shop-Api-Call-Limit", "32/40"}),
        // Discord: fractional epoch reset and reset-after, bucket id.
        new QuotaCase("discord", 4, new String[] {
            "X-RateLimit-Limit", "5", "X-RateLimit-Remaining", "4",
            "X-RateLimit-Reset", (T0 + 64) + ".57", "X-RateLimit-Reset-After", "64.57",
            "X-RateLimit-Bucket", "abcd1234"}),
        // Atlassian Data Center token bucket.
        new QuotaCase("atlassian", 99, new String[] {
            "X-RateLimit-Limit", "100", "X-RateLimit-Remaining", "99",
            "X-RateLimit-Interval-Seconds", "1", "X-RateLimit-FillRate", "10"}),
        // Spring Cloud Gateway RedisRateLimiter.
        new QuotaCase("spring-cloud-gateway", 9, new String[] {
            "X-RateLimit-Remaining", "9", "X-RateLimit-Replenish-Rate", "10",
            "X-RateLimit-Burst-Capacity", "20", "X-RateLimit-Requested-Tokens", "1"}),
        // Salesforce: used/limit over a rolling 24 h.
        new QuotaCase("salesforce", 4982, new String[] {
            "Sforce-Limit-Info", "api-usage=18/5000"}),
        // Azure Resource Manager: remaining-only counter.
        new QuotaCase("azure", 11999, new String[] {
            "x-ms-ratelimit-remaining-subscription-reads", "11999"}),
        // Legacy X-RateLimit (express-rate-limit legacyHeaders): epoch reset.
        new QuotaCase("x-ratelimit", 4, new String[] {
            "X-RateLimit-Limit", "5", "X-RateLimit-Remaining", "4",
            "X-RateLimit-Reset", Long.toString(T0 + 60)}));
    List<Arguments> arguments = new ArrayList<>();
    for (QuotaCase c : cases) {
      for (Mode mode : Mode.values()) {
        arguments.add(Arguments.of(c, mode));
      }
    }
    return arguments.stream();
  }

  @ParameterizedTest(name = "{0} via {1}")
  @MethodSource("quotaCases")
  void theQuotaADialectReportsShowsInThePacersSnapshot(QuotaCase c, Mode mode)
      throws Exception {
    try (Harness h = new Harness()) {
      String[] headersAndBody = new String[c.headers().length + 1];
      System.arraycopy(c.headers(), 0, headersAndBody, 0, c.headers().length);
      headersAndBody[c.headers().length] = "ok";
      h.enqueue(200, headersAndBody);

      HttpResponse<String> response = h.call(mode, h.get("/api"));

      assertThat(response.body()).isEqualTo("ok");
      List<PolicySnapshot> policies = h.pacer.quota(h.uri("/")).policies();
      assertThat(policies).as("policies after %s", c.dialect())
          .anySatisfy(p -> {
            assertThat(p.source()).isEqualTo(c.dialect());
            assertThat(p.remaining()).hasValue(c.remaining());
            assertThat(p.inFlight()).isZero();
          });
    }
  }

  /** A documented throttled response whose retry delay the client must honour. */
  record RetryCase(String dialect, Duration atLeast, int status, String[] headersAndBody) {
    @Override
    public String toString() {
      return dialect;
    }
  }

  static Stream<Arguments> retryCases() {
    List<RetryCase> cases = List.of(
        // Notion: 429 with integer Retry-After.
        new RetryCase("retry-after seconds", Duration.ofSeconds(7), 429,
            new String[] {"Retry-After", "7", "rate_limited"}),
        // RFC 9110 HTTP-date, relative to the response's Date.
        new RetryCase("retry-after HTTP-date", Duration.ofSeconds(9), 429, new String[] {
            "Date", "Wed, 01 Jan 2025 00:00:00 GMT",
            "Retry-After", "Wed, 01 Jan 2025 00:00:09 GMT", "slow down"}),
        // OpenAI/Azure SDKs: milliseconds.
        new RetryCase("retry-after-ms", Duration.ofMillis(1500), 429,
            new String[] {"retry-after-ms", "1500", "slow down"}),
        // Discord 429 body (float seconds).
        new RetryCase("json retry_after", Duration.ofMillis(6457), 429, new String[] {
            "Content-Type", "application/json",
            "{\"message\": \"You are being rate limited.\", \"retry_after\": 6.457, "
                + "\"global\": false}"}),
        // Google RESOURCE_EXHAUSTED with RetryInfo.
        new RetryCase("json retryDelay", Duration.ofSeconds(12), 429, new String[] {
            "Content-Type", "application/json; charset=UTF-8",
            "{\"error\": {\"code\": 429, \"status\": \"RESOURCE_EXHAUSTED\", \"details\": [{"
                + "\"@type\": \"type.googleapis.com/google.rpc.RetryInfo\", "
                + "\"retryDelay\": \"12s\"}]}}"}),
        // Kong capture: draft-polli fields with Retry-After on a 429.
        new RetryCase("kong 429", Duration.ofSeconds(22), 429, new String[] {
            "Retry-After", "22", "RateLimit-Reset", "22", "RateLimit-Remaining", "0",
            "RateLimit-Limit", "5", "X-RateLimit-Limit-Minute", "5",
            "{\"message\":\"API rate limit exceeded\"}"}),
        // SharePoint / Azure SDK: a 503 with Retry-After is throttling.
        new RetryCase("503 retry-after", Duration.ofSeconds(31), 503,
            new String[] {"Retry-After", "31", "busy"}));
    List<Arguments> arguments = new ArrayList<>();
    for (RetryCase c : cases) {
      for (Mode mode : Mode.values()) {
        arguments.add(Arguments.of(c, mode));
      }
    }
    return arguments.stream();
  }

  @ParameterizedTest(name = "{0} via {1}")
  @MethodSource("retryCases")
  void aThrottledResponseIsRetriedNoSoonerThanItsDialectSays(RetryCase c, Mode mode)
      throws Exception {
    try (Harness h = new Harness(b -> b.maxWait(Duration.ofMinutes(2)))) {
      h.enqueue(c.status(), c.headersAndBody());
      h.enqueue(200, "ok");

      HttpResponse<String> response = h.call(mode, h.get("/api"));

      assertThat(response.body()).isEqualTo("ok");
      assertThat(h.requests()).isEqualTo(2);
      assertThat(h.clock.elapsed()).isGreaterThanOrEqualTo(c.atLeast())
          .isLessThan(c.atLeast().plusSeconds(60));
    }
  }
}
