package dev.headway.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.headway.QuotaLimit;
import dev.headway.QuotaPolicy;
import dev.headway.QuotaUnit;
import dev.headway.RateLimitSignal;
import dev.headway.SignalWarning;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The JSON object of the explain contract, for signals built by hand (no parser involved). */
class JsonFormatTest {
  private static RateLimitSignal signal(List<QuotaPolicy> policies, List<QuotaLimit> limits,
      Optional<Duration> retryAfter, Optional<Duration> bodyRetryAfter,
      List<SignalWarning> warnings) {
    return new RateLimitSignal(429, policies, limits, retryAfter, bodyRetryAfter,
        Optional.empty(), List.of(), List.of("ietf-structured"), warnings, true);
  }

  private static JsonNode json(RateLimitSignal signal, List<String> notes) throws Exception {
    String text = JsonFormat.write(Explanation.of(signal, notes));
    assertThat(text).endsWith("}\n");
    return Cli.JSON.readTree(text);
  }

  @Test
  void designExampleHasExactlyTheContractFieldsInOrder() throws Exception {
    RateLimitSignal signal = signal(
        List.of(new QuotaPolicy("default", 100, QuotaUnit.REQUESTS,
            Optional.of(Duration.ofSeconds(60)), Optional.empty(), "ietf-structured")),
        List.of(new QuotaLimit("default", 50, Optional.of(Duration.ofSeconds(30)),
            Optional.empty(), "ietf-structured")),
        Optional.of(Duration.ofSeconds(20)), Optional.empty(), List.of());

    JsonNode json = json(signal, List.of());

    List<String> names = new ArrayList<>();
    json.fieldNames().forEachRemaining(names::add);
    assertThat(names).containsExactly("status", "dialects", "retryAfterSeconds",
        "nextRequestSeconds", "policies", "limits", "resets", "effective", "shouldRetry", "cost",
        "action", "warnings");
    // Retry-After takes precedence: the next request may go in 20 s.
    assertThat(json.get("nextRequestSeconds").asLong()).isEqualTo(20);
    assertThat(json.get("status").asInt()).isEqualTo(429);
    assertThat(Cli.strings(json.get("dialects"))).containsExactly("ietf-structured");
    assertThat(json.get("retryAfterSeconds").isIntegralNumber()).isTrue();
    assertThat(json.get("retryAfterSeconds").asLong()).isEqualTo(20);
    JsonNode policy = json.get("policies").get(0);
    List<String> policyFields = new ArrayList<>();
    policy.fieldNames().forEachRemaining(policyFields::add);
    assertThat(policyFields)
        .containsExactly("name", "quota", "unit", "windowSeconds", "partitionKey");
    assertThat(policy.get("name").asText()).isEqualTo("default");
    assertThat(policy.get("quota").asLong()).isEqualTo(100);
    assertThat(policy.get("unit").asText()).isEqualTo("requests");
    assertThat(policy.get("windowSeconds").asLong()).isEqualTo(60);
    assertThat(policy.get("partitionKey").isNull()).isTrue();
    JsonNode limit = json.get("limits").get(0);
    List<String> limitFields = new ArrayList<>();
    limit.fieldNames().forEachRemaining(limitFields::add);
    assertThat(limitFields).containsExactly("policy", "remaining", "resetSeconds", "partitionKey");
    assertThat(limit.get("policy").asText()).isEqualTo("default");
    assertThat(limit.get("remaining").asLong()).isEqualTo(50);
    assertThat(limit.get("resetSeconds").asLong()).isEqualTo(30);
    assertThat(limit.get("partitionKey").isNull()).isTrue();
    JsonNode effective = json.get("effective");
    List<String> effectiveFields = new ArrayList<>();
    effective.fieldNames().forEachRemaining(effectiveFields::add);
    assertThat(effectiveFields).containsExactly("remaining", "limit", "resetSeconds");
    assertThat(effective.get("remaining").asLong()).isEqualTo(50);
    assertThat(effective.get("limit").asLong()).isEqualTo(100);
    assertThat(effective.get("resetSeconds").asLong()).isEqualTo(30);
    assertThat(json.get("warnings").isArray()).isTrue();
    assertThat(json.get("warnings")).isEmpty();
  }

  @Test
  void wholeSecondsHaveNoDecimalPointAndFractionsAreExact() throws Exception {
    RateLimitSignal signal = signal(
        List.of(new QuotaPolicy("p", 1, QuotaUnit.REQUESTS, Optional.of(Duration.ofMillis(1500)),
            Optional.empty(), "d")),
        List.of(new QuotaLimit("p", 0, Optional.of(Duration.ofMillis(64_570)), Optional.empty(),
            "d")),
        Optional.of(Duration.ofNanos(1)), Optional.empty(), List.of());

    String text = JsonFormat.write(Explanation.of(signal, List.of()));

    assertThat(text).contains("\"windowSeconds\": 1.5").contains("\"resetSeconds\": 64.57")
        .contains("\"retryAfterSeconds\": 0.000000001").doesNotContain("E-");

    RateLimitSignal whole = signal(List.of(), List.of(), Optional.of(Duration.ofSeconds(2)),
        Optional.empty(), List.of());
    assertThat(JsonFormat.write(Explanation.of(whole, List.of())))
        .contains("\"retryAfterSeconds\": 2,").doesNotContain("2.0");
  }

  @Test
  void absentValuesAreNullAndEffectiveIsAllNullWithoutLimits() throws Exception {
    JsonNode json = json(RateLimitSignal.none(200), List.of());

    assertThat(json.get("status").asInt()).isEqualTo(200);
    assertThat(json.get("dialects")).isEmpty();
    assertThat(json.get("retryAfterSeconds").isNull()).isTrue();
    assertThat(json.get("policies")).isEmpty();
    assertThat(json.get("limits")).isEmpty();
    assertThat(json.get("effective").get("remaining").isNull()).isTrue();
    assertThat(json.get("effective").get("limit").isNull()).isTrue();
    assertThat(json.get("effective").get("resetSeconds").isNull()).isTrue();
    assertThat(json.get("warnings")).isEmpty();
  }

  @Test
  void effectiveIsTheLowestRemainingWithItsOwnPolicysQuota() throws Exception {
    RateLimitSignal signal = signal(
        List.of(
            new QuotaPolicy("burst", 100, QuotaUnit.REQUESTS, Optional.of(Duration.ofSeconds(60)),
                Optional.empty(), "d"),
            new QuotaPolicy("daily", 1000, QuotaUnit.REQUESTS,
                Optional.of(Duration.ofSeconds(86400)), Optional.empty(), "d")),
        List.of(
            new QuotaLimit("burst", 90, Optional.of(Duration.ofSeconds(10)), Optional.empty(), "d"),
            new QuotaLimit("daily", 7, Optional.of(Duration.ofSeconds(5000)), Optional.empty(),
                "d")),
        Optional.empty(), Optional.empty(), List.of());

    JsonNode effective = json(signal, List.of()).get("effective");

    assertThat(effective.get("remaining").asLong()).isEqualTo(7);
    assertThat(effective.get("limit").asLong()).isEqualTo(1000);
    assertThat(effective.get("resetSeconds").asLong()).isEqualTo(5000);
  }

  @Test
  void effectiveLimitIsNullWhenItsPolicyWasNotAdvertised() throws Exception {
    RateLimitSignal signal = signal(
        List.of(new QuotaPolicy("burst", 100, QuotaUnit.REQUESTS, Optional.empty(),
            Optional.empty(), "d")),
        List.of(new QuotaLimit("default", 50, Optional.empty(), Optional.empty(), "d")),
        Optional.empty(), Optional.empty(), List.of());

    JsonNode json = json(signal, List.of());

    assertThat(json.get("policies").get(0).get("windowSeconds").isNull()).isTrue();
    assertThat(json.get("effective").get("remaining").asLong()).isEqualTo(50);
    assertThat(json.get("effective").get("limit").isNull()).isTrue();
    assertThat(json.get("effective").get("resetSeconds").isNull()).isTrue();
  }

  @Test
  void effectiveLimitJoinsByNameWhenOnlyThePolicyHasAPartitionKey() throws Exception {
    RateLimitSignal signal = signal(
        List.of(new QuotaPolicy("5-in-2hrs", 5, QuotaUnit.REQUESTS,
            Optional.of(Duration.ofSeconds(7200)), Optional.of("MmMyNmI0NmI2OGZm"), "d")),
        List.of(new QuotaLimit("5-in-2hrs", 4, Optional.of(Duration.ofSeconds(7200)),
            Optional.empty(), "d")),
        Optional.empty(), Optional.empty(), List.of());

    JsonNode json = json(signal, List.of());

    assertThat(json.get("policies").get(0).get("partitionKey").asText())
        .isEqualTo("MmMyNmI0NmI2OGZm");
    assertThat(json.get("effective").get("limit").asLong()).isEqualTo(5);
  }

  @Test
  void retryAfterFallsBackToTheBodyHint() throws Exception {
    RateLimitSignal bodyOnly = signal(List.of(), List.of(), Optional.empty(),
        Optional.of(Duration.ofSeconds(12)), List.of());
    RateLimitSignal both = signal(List.of(), List.of(), Optional.of(Duration.ofSeconds(3)),
        Optional.of(Duration.ofSeconds(12)), List.of());

    assertThat(json(bodyOnly, List.of()).get("retryAfterSeconds").asLong()).isEqualTo(12);
    assertThat(json(both, List.of()).get("retryAfterSeconds").asLong()).isEqualTo(3);
  }

  @Test
  void warningsAreFieldColonMessageAfterTheInputNotes() throws Exception {
    RateLimitSignal signal = signal(List.of(), List.of(), Optional.empty(), Optional.empty(),
        List.of(new SignalWarning("retry-after", SignalWarning.Kind.CAPPED,
            "999999 s is past the cap of 86400 s")));

    JsonNode json = json(signal, List.of("input: line 3 is not a field line ('x'); ignored"));

    assertThat(Cli.strings(json.get("warnings"))).containsExactly(
        "input: line 3 is not a field line ('x'); ignored",
        "retry-after: 999999 s is past the cap of 86400 s");
  }

  @Test
  void serverTextIsEscapedAsJsonStrings() throws Exception {
    String hostile = "p\"}\n\u001b[31m\u0000";
    RateLimitSignal signal = signal(
        List.of(new QuotaPolicy(hostile, 1, QuotaUnit.REQUESTS, Optional.empty(), Optional.empty(),
            "d")),
        List.of(), Optional.empty(), Optional.empty(), List.of());

    String text = JsonFormat.write(Explanation.of(signal, List.of()));

    assertThat(text).doesNotContain("\u001b").doesNotContain("\u0000");
    assertThat(Cli.JSON.readTree(text).get("policies").get(0).get("name").asText())
        .isEqualTo(hostile);
  }

  @Test
  void unitsUseTheDraftTokens() throws Exception {
    List<QuotaPolicy> policies = new ArrayList<>();
    for (QuotaUnit unit : QuotaUnit.values()) {
      policies.add(new QuotaPolicy(unit.name(), 1, unit, Optional.empty(), Optional.empty(), "d"));
    }
    JsonNode json = json(signal(policies, List.of(), Optional.empty(), Optional.empty(),
        List.of()), List.of());

    assertThat(json.get("policies")).extracting(p -> p.get("unit").asText())
        .containsExactly("requests", "content-bytes", "concurrent-requests", "tokens");
  }

  @Test
  void isPrettyPrintedWithTwoSpaceIndents() {
    assertThat(JsonFormat.write(Explanation.of(RateLimitSignal.none(204), List.of())))
        .isEqualTo("""
            {
              "status": 204,
              "dialects": [],
              "retryAfterSeconds": null,
              "nextRequestSeconds": null,
              "policies": [],
              "limits": [],
              "resets": [],
              "effective": {
                "remaining": null,
                "limit": null,
                "resetSeconds": null
              },
              "shouldRetry": null,
              "cost": null,
              "action": "no rate-limit signal: the next request goes now",
              "warnings": []
            }
            """);
  }
}
