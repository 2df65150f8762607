package dev.headway.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.HttpFields;
import dev.headway.SignalParser;
import dev.headway.internal.sf.StructuredFieldException;
import dev.headway.internal.sf.StructuredFields;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.function.IntFunction;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Worst cases crafted for each place where a parser could do more than linear work (a rescan, a
 * re-copy, a lookup that grows with the input), parsed at n and at 4n: work linear in the input
 * costs about four times as much at 4n, quadratic work sixteen times. Work is counted in bytes
 * the parsing thread allocates ({@link AllocationMeter}), which a busy machine does not change
 * (wall time would; speed is for the JMH benchmarks). The bound, six times, leaves room for
 * fixed costs and the doubling steps of growing buffers.
 *
 * <p>The fuzz tests check a per-input linear bound on every input they try; these cases reach
 * sizes (tens of kilobytes) that the fuzzer's inputs do not.
 */
class ParseCostLinearityTest {
  private static final SignalParser PARSER = SignalParser.create();
  private static final Instant NOW = Instant.parse("2025-01-01T00:00:00Z");
  private static final int N = 2_000;

  static Stream<Arguments> worstCases() {
    return Stream.of(
        // Structured fields: every rule that loops.
        sf("list of n integers", n -> "1, ".repeat(n) + "1"),
        sf("list of n inner lists", n -> "(1 2);a, ".repeat(n) + "()"),
        sf("inner list of n items", n -> "(" + "1 ".repeat(n) + ")"),
        sf("n distinct parameters (hash index)", n -> "1" + distinctKeys(";k", n)),
        sf("n repeats of one parameter", n -> "1" + ";a=1".repeat(n)),
        sf("n repeats of nine parameters", n -> "1" + distinctKeys(";k", 9).repeat(n)),
        sf("dictionary of n distinct keys", n -> distinctKeys(", k", n).substring(2) + "=1"),
        sf("dictionary with n repeats of a key", n -> "a=1, ".repeat(n) + "a=2"),
        sf("string of n escapes", n -> "\"" + "\\\"\\\\".repeat(n) + "\""),
        sf("string of n characters", n -> "\"" + "x".repeat(4 * n) + "\""),
        sf("display string of n escapes", n -> "%\"" + "%c3%a9".repeat(n) + "\""),
        sf("byte sequence of n characters", n -> ":" + "AAAA".repeat(n) + ":"),
        sf("token of n characters", n -> "t" + "/:".repeat(n)),
        sf("key of n characters", n -> "k" + "-.".repeat(n) + "=1"),
        sf("n members then an error", n -> "\"a\";r=1, ".repeat(n) + "!"),
        sf("n spaces before an unclosed list", n -> " ".repeat(n) + "(1" + " 1".repeat(n)),
        // Signal parser: every dialect and the body.
        fields("RateLimit of n distinct policies",
            n -> HttpFields.of("RateLimit", policies("r=1;t=1", n))),
        fields("RateLimit-Policy of n distinct policies",
            n -> HttpFields.of("RateLimit-Policy", policies("q=10;w=60", n))),
        fields("RateLimit of n repeats of one policy",
            n -> HttpFields.of("RateLimit", "\"a\";r=1;t=1, ".repeat(n) + "\"a\";r=2")),
        fields("RateLimit in n field lines", n -> lines("RateLimit", "\"p\";r=1", n)),
        fields("draft RateLimit dictionary with n members",
            n -> HttpFields.of("RateLimit", distinctKeys(", k", n).substring(2) + "=1",
                "RateLimit-Policy", "100;w=60")),
        fields("RateLimit-Limit list of n policies",
            n -> HttpFields.of("RateLimit-Limit", "10, " + "10;w=1, ".repeat(n) + "1")),
        fields("n X-RateLimit groups", n -> {
          HttpFields.Builder b = HttpFields.builder();
          for (int i = 0; i < n; i++) {
            b.add("x-ratelimit-g" + i + "-limit", "5").add("x-ratelimit-g" + i + "-reset", "9");
          }
          return b.build();
        }),
        fields("n Kong window groups", n -> {
          HttpFields.Builder b = HttpFields.builder();
          for (int i = 0; i < n; i++) {
            b.add("x-ratelimit-limit-v" + i + "-minute", "5");
          }
          return b.build();
        }),
        fields("n Azure counters", n -> {
          HttpFields.Builder b = HttpFields.builder();
          for (int i = 0; i < n; i++) {
            b.add("x-ms-ratelimit-remaining-s" + i, "11999");
          }
          return b.build();
        }),
        fields("n Retry-After lines", n -> lines("Retry-After", "1", n)),
        fields("n malformed values (warnings)", n -> lines("X-RateLimit-Reset", "x", n)),
        fields("Retry-After of n digits", n -> HttpFields.of("Retry-After", "1".repeat(n))),
        fields("HTTP date padded with n spaces",
            n -> HttpFields.of("Retry-After", "Sun, 06 Nov 1994 08:49:37 GMT" + " ".repeat(n))),
        fields("RFC 3339 reset with n fraction digits", n -> HttpFields.of(
            "anthropic-ratelimit-tokens-reset", "2025-01-01T00:00:00." + "1".repeat(n) + "Z",
            "anthropic-ratelimit-tokens-remaining", "1")),
        fields("Go duration of n parts", n -> HttpFields.of(
            "x-ratelimit-reset-requests", "1h".repeat(n), "x-ratelimit-remaining-requests", "1")),
        fields("Salesforce usage of n digits", n -> HttpFields.of(
            "Sforce-Limit-Info", "api-usage=" + "1".repeat(n) + "/" + "5".repeat(n))),
        fields("Shopify call limit of n digits",
            n -> HttpFields.of("X-Shopify-Shop-Api-Call-Limit", "3".repeat(n) + "/40")),
        fields("Content-Type with n parameters", n -> HttpFields.of("Content-Type",
            "application/json" + "; a=b".repeat(n), "Retry-After", "1")),
        body("body with n violated policies",
            n -> "{\"violated-policies\": [" + "\"p\", ".repeat(n) + "\"q\"]}"),
        body("body with n details before retryDelay", n -> "{\"error\": {\"details\": ["
            + "{}, ".repeat(n) + "{\"retryDelay\": \"1s\"}]}}"),
        body("body with n members", n -> "{" + distinctMembers(n) + "\"retry_after\": 1}"),
        body("body string of n characters",
            n -> "{\"retryAfter\": \"" + "1".repeat(n) + "\"}"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("worstCases")
  void costIsLinearInTheInput(String name, IntFunction<Runnable> parseOfSize) {
    long[] bytes = costAtNAndFourN(parseOfSize);
    assertThat(bytes[1])
        .as("%s: %d bytes at 4n vs %d bytes at n", name, bytes[1], bytes[0])
        .isLessThan(bound(bytes[0]));
  }

  /** The measure itself can fail: a step that copies its input once per element is caught. */
  @Test
  void quadraticWorkExceedsTheBound() {
    long[] bytes = costAtNAndFourN(n -> () -> {
      StringBuilder sb = new StringBuilder();
      for (int i = 0; i < n; i++) {
        sb.append("ab");
        sink = sb.toString(); // copies everything so far, once per element
      }
    });
    assertThat(bytes[1]).isGreaterThanOrEqualTo(bound(bytes[0]));
  }

  private static volatile String sink;

  private static long bound(long bytesAtN) {
    return 6 * Math.max(bytesAtN, 64 * 1024);
  }

  private static long[] costAtNAndFourN(IntFunction<Runnable> parseOfSize) {
    Runnable small = parseOfSize.apply(N);
    Runnable large = parseOfSize.apply(4 * N);
    small.run(); // first use: class loading and caches allocate once
    large.run();
    return new long[] {allocatedBy(small), allocatedBy(large)};
  }

  private static long allocatedBy(Runnable parse) {
    long before = AllocationMeter.allocated();
    parse.run();
    return AllocationMeter.allocated() - before;
  }

  private static Arguments sf(String name, IntFunction<String> value) {
    return Arguments.of("sf: " + name, (IntFunction<Runnable>) n -> {
      String input = value.apply(n);
      return () -> {
        parseQuietly(() -> StructuredFields.parseList(input));
        parseQuietly(() -> StructuredFields.parseDictionary(input));
        parseQuietly(() -> StructuredFields.parseItem(input));
      };
    });
  }

  private static Arguments fields(String name, IntFunction<HttpFields> headers) {
    return Arguments.of("signal: " + name, (IntFunction<Runnable>) n -> {
      HttpFields input = headers.apply(n);
      return () -> PARSER.parse(429, input, NOW);
    });
  }

  private static Arguments body(String name, IntFunction<String> json) {
    HttpFields headers = HttpFields.of("Content-Type", "application/json");
    return Arguments.of("body: " + name, (IntFunction<Runnable>) n -> {
      // Past SignalParser.MAX_BODY_BYTES the body is cut, so n stays below it here.
      byte[] input = json.apply(n / 8).getBytes(StandardCharsets.UTF_8);
      return () -> PARSER.parse(429, headers, input, NOW);
    });
  }

  private interface SfParse {
    Object run() throws StructuredFieldException;
  }

  private static void parseQuietly(SfParse parse) {
    try {
      parse.run();
    } catch (StructuredFieldException expected) {
      // Rejecting the input is fine; the cost of getting there is what is measured.
    }
  }

  private static String distinctKeys(String prefix, int n) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < n; i++) {
      sb.append(prefix).append(Integer.toString(i, 36));
    }
    return sb.toString();
  }

  private static String policies(String parameters, int n) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < n; i++) {
      sb.append(i == 0 ? "" : ", ").append("\"p").append(i).append("\";").append(parameters);
    }
    return sb.toString();
  }

  private static String distinctMembers(int n) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < n; i++) {
      sb.append("\"m").append(i).append("\": ").append(i).append(", ");
    }
    return sb.toString();
  }

  private static HttpFields lines(String name, String value, int n) {
    HttpFields.Builder b = HttpFields.builder();
    for (int i = 0; i < n; i++) {
      b.add(name, value);
    }
    return b.build();
  }
}
