package dev.headway.cli;

import static dev.headway.cli.DialectsTest.effective;
import static dev.headway.cli.DialectsTest.head;
import static dev.headway.cli.DialectsTest.limits;
import static dev.headway.cli.DialectsTest.row;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Hostile and broken responses: the command still exits 0, prints valid JSON, and says in
 * {@code warnings} what it did not take as sent.
 */
class HostileInputTest {
  private static JsonNode explain(String response) {
    return Cli.run(Cli.crlf(response), "explain", "--now", "1700000000").ok();
  }

  private static List<String> warnings(JsonNode json) {
    return Cli.strings(json.get("warnings"));
  }

  @Test
  void aRetryAfterOfThirtyThousandYearsIsCappedToADay() {
    JsonNode json = explain("HTTP/1.1 429 Too Many Requests\nRetry-After: 999999999999\n\n");

    head(json, 429, 86400, "retry-after");
    assertThat(warnings(json)).containsExactly(
        "retry-after: delay 999999999999 s capped to 86400 s");
  }

  // Regression: cap warnings were filed under the policy name, with ISO-8601 durations.
  @Test
  void aResetPastTheCapIsDroppedAndFiledUnderItsFieldInSeconds() {
    JsonNode json = explain("HTTP/1.1 200 OK\nX-RateLimit-Limit: 60\nX-RateLimit-Remaining: 5\n"
        + "X-RateLimit-Reset: 315360000\n\n");

    effective(json, 5, 60, null);
    assertThat(warnings(json)).containsExactly(
        "x-ratelimit-reset: policy \"default\": reset 315360000 s is past maxReset (86400 s), "
            + "ignored: the count is paced as if it came with no reset");
  }

  // Regression: a dialect that only produced warnings was listed in "dialects".
  @Test
  void dialectsThatOnlyWarnedAreNotListed() {
    JsonNode json = explain("HTTP/1.1 429 Too Many Requests\nRateLimit: \"a\";r=-1;t=1e99\n"
        + "Retry-After: soon\n\n");

    head(json, 429, null);
    limits(json);
    assertThat(warnings(json)).hasSize(2)
        .anyMatch(w -> w.startsWith("ratelimit: "))
        .anyMatch(w -> w.startsWith("retry-after: "));
  }

  @Test
  void aNegativeRetryAfterIsDropped() {
    JsonNode json = explain("HTTP/1.1 429 Too Many Requests\nRetry-After: -5\n\n");

    assertThat(json.get("retryAfterSeconds").isNull()).isTrue();
    assertThat(warnings(json)).singleElement().asString().startsWith("retry-after: ");
  }

  @Test
  void nanAndOverflowingNumbersAreDropped() {
    JsonNode json = explain("HTTP/1.1 429 Too Many Requests\nRetry-After: NaN\n"
        + "X-RateLimit-Limit: 10\nX-RateLimit-Remaining: 1e400\n\n");

    assertThat(json.get("retryAfterSeconds").isNull()).isTrue();
    limits(json);
    assertThat(warnings(json)).anyMatch(w -> w.startsWith("retry-after: "))
        .anyMatch(w -> w.startsWith("x-ratelimit-remaining: "));
  }

  @Test
  void aNegativeRemainingIsDropped() {
    JsonNode json = explain("HTTP/1.1 200 OK\nRateLimit-Policy: \"p\";q=10;w=60\n"
        + "RateLimit: \"p\";r=-5;t=10\n\n");

    limits(json);
    // The policy is still advertised, so the effective limit is its quota; remaining unknown.
    effective(json, null, 10, null);
    assertThat(warnings(json)).singleElement().asString().startsWith("ratelimit: ")
        .contains("-5");
  }

  @Test
  void quotasPastTheCapAreClamped() {
    JsonNode json = explain("HTTP/1.1 200 OK\nRateLimit-Policy: \"d\";q=999999999999999;w=1\n"
        + "RateLimit: \"d\";r=999999999999999;t=1\n\n");

    effective(json, 1_000_000_000_000L, 1_000_000_000_000L, 1);
    assertThat(warnings(json)).hasSize(2).allMatch(w -> w.contains("capped"));
  }

  @Test
  void malformedStructuredFieldsAreIgnoredWithWarnings() {
    JsonNode json = explain("HTTP/1.1 200 OK\nRateLimit: \"default\";r=abc\n"
        + "RateLimit-Policy: ;;;\nRateLimit: \"d\";r=99999999999999999999;t=1\n\n");

    limits(json);
    effective(json, null, null, null);
    assertThat(warnings(json)).isNotEmpty()
        .allMatch(w -> w.startsWith("ratelimit: ") || w.startsWith("ratelimit-policy: "));
  }

  @Test
  void fieldsOfACachedResponseAreIgnored() {
    JsonNode json = explain("HTTP/1.1 200 OK\nAge: 5\nRateLimit: \"d\";r=1;t=10\n\n");

    limits(json);
    assertThat(warnings(json)).singleElement().asString().startsWith("age: ");
  }

  @Test
  void anInvalidJsonBodyIsAWarning() {
    JsonNode json = explain("HTTP/1.1 429 Too Many Requests\nContent-Type: application/json\n\n"
        + "{\"retry_after\": 5,,,");

    head(json, 429, null);
    assertThat(warnings(json)).singleElement().asString().startsWith("body");
  }

  @Test
  void aBinaryBodyUnderAJsonContentTypeIsAWarning() {
    byte[] head = Cli.crlf("HTTP/1.1 429 Too Many Requests\nContent-Type: application/json\n\n")
        .getBytes(StandardCharsets.ISO_8859_1);
    byte[] input = new byte[head.length + 4096];
    System.arraycopy(head, 0, input, 0, head.length);
    for (int i = head.length; i < input.length; i++) {
      input[i] = (byte) (i * 31);
    }

    Cli.Result result = Cli.run(input, Cli.clock(), new HeadwayCli(), "explain");

    assertThat(result.ok().get("status").asInt()).isEqualTo(429);
  }

  @Test
  void anAbsurdBodyHintIsHeldAsLongAsAHugeOne() {
    JsonNode json = explain("HTTP/1.1 429 Too Many Requests\nContent-Type: application/json\n\n"
        + "{\"retry_after\": 1e308}");

    assertThat(json.get("retryAfterSeconds").asLong()).isEqualTo(86400);
    assertThat(warnings(json)).isNotEmpty().allMatch(w -> w.startsWith("body"));
  }

  @Test
  void aRetryAfterTooLargeForALongIsHeldAsLongAsAHugeOne() {
    JsonNode json = explain("HTTP/1.1 429 Too Many Requests\n"
        + "Retry-After: 99999999999999999999999\n\n");

    assertThat(json.get("retryAfterSeconds").asLong()).isEqualTo(86400);
    assertThat(warnings(json)).isNotEmpty().allMatch(w -> w.startsWith("retry-after"))
        .anyMatch(w -> w.contains("number too large"));
  }

  @Test
  void terminalEscapesNeverReachTheOutputRaw() {
    String response = "HTTP/1.1 200 OK\nRateLimit: \"\u001b[31mred\";r=1\n"
        + "X-RateLimit-Remaining: \u001b]0;pwned\u0007\n\n";

    Cli.Result json = Cli.run(Cli.crlf(response), "explain");
    Cli.Result text = Cli.run(Cli.crlf(response), "explain", "--format", "text");

    assertThat(json.ok().get("warnings")).isNotEmpty();
    assertThat(json.stdout()).doesNotContain("\u001b").doesNotContain("\u0007");
    assertThat(text.exitCode()).isZero();
    assertThat(text.stdout()).doesNotContain("\u001b").doesNotContain("\u0007")
        .contains("\\x1b");
  }

  @Test
  void nulBytesInValuesAreHarmless() {
    Cli.Result result = Cli.run(Cli.crlf("HTTP/1.1 429 X\nRetry-After: 5\u0000\nRateLimit: \u0000\n"
        + "\n"), "explain");

    assertThat(result.ok().get("status").asInt()).isEqualTo(429);
    assertThat(result.stdout()).doesNotContain("\u0000");
  }

  @Test
  void aMegabyteFieldLineAndTenThousandFields() {
    StringBuilder response = new StringBuilder("HTTP/1.1 429 Too Many Requests\n");
    response.append("RateLimit: ").append("\"a\";r=1, ".repeat(100_000)).append("\"b\";r=0\n");
    for (int i = 0; i < 10_000; i++) {
      response.append("X-Filler-").append(i).append(": ").append(i).append('\n');
    }
    response.append("Retry-After: 3\n\n");

    Cli.Result result = Cli.run(response.toString(), "explain");

    JsonNode json = result.ok();
    assertThat(json.get("retryAfterSeconds").asLong()).isEqualTo(3);
  }

  @Test
  @Timeout(30)
  void anEndlessStdinIsReadOnlyUpToTheInputLimit() {
    byte[] head = "HTTP/1.1 429 X\r\nRetry-After: 4\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    long[] served = {0};
    InputStream endless = new InputStream() {
      @Override
      public int read() {
        long i = served[0]++;
        return i < head.length ? head[(int) i] : 'x';
      }
    };

    Cli.Result result = Cli.run(endless, Cli.clock(), new HeadwayCli(), "explain");

    assertThat(result.ok().get("retryAfterSeconds").asLong()).isEqualTo(4);
    assertThat(served[0]).isLessThanOrEqualTo(HeadwayCli.MAX_INPUT_BYTES + 1L);
  }

  @Test
  void manyPartitionKeysStayAsSent() {
    JsonNode json = explain("HTTP/1.1 200 OK\n"
        + "RateLimit: \"a\";r=1;pk=:YQ==:, \"a\";r=2;pk=:Yg==:\n\n");

    limits(json, row("a", 1, null, "YQ=="), row("a", 2, null, "Yg=="));
    effective(json, 1, null, null);
  }

  @Test
  void aStatusLineLookingLikeTheDraftsOddExampleIsFine() {
    JsonNode json = explain("HTTP/1.1 429 Bad Request\nRetry-After: 1\n\n");

    head(json, 429, 1, "retry-after");
  }

  @Test
  void aFarFutureEpochResetIsDroppedNotWaitedFor() {
    // A reset far in the future under a name read as epoch seconds is not believed.
    JsonNode json = explain("HTTP/1.1 429 X\nX-RateLimit-Limit: 10\nX-RateLimit-Remaining: 0\n"
        + "X-RateLimit-Reset: 4102444800\n\n");

    JsonNode reset = json.get("limits").get(0).get("resetSeconds");
    assertThat(reset.isNull()).as("resetSeconds: " + reset).isTrue();
    assertThat(warnings(json)).anyMatch(w -> w.contains("is past maxReset"));
  }
}
