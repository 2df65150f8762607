package dev.headway.signal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.HttpFields;
import dev.headway.RateLimitSignal;
import dev.headway.SignalParser;
import dev.headway.SignalWarning;
import java.time.Instant;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** Warnings quote values as the server wrote them and list every problem of a field. */
class WarningTextTest {
  static final Instant NOW = Instant.parse("2025-01-01T00:00:00Z");

  private static List<String> warnings(String... headers) {
    RateLimitSignal signal = SignalParser.create().parse(200, HttpFields.of(headers), null, NOW);
    return signal.warnings().stream().map(SignalWarning::toString).toList();
  }

  @Test
  void valuesAreQuotedAsTheFieldWroteThemNotAsInternalRecords() {
    List<String> all = warnings(
        "RateLimit-Policy", "\"a\";q=abc, \"b\";q=1.5, \"c\";q=?1, \"d\";q=\"ten\", (x y);z, e;q=1",
        "RateLimit", "\"a\";r=@1700000000;t=1, \"e\";r=1;pk=tok");
    assertThat(all).isNotEmpty().noneSatisfy(w -> assertThat(w).containsAnyOf("Item[", "value=",
        "TokenItem", "IntegerItem", "DecimalItem", "StringItem", "BooleanItem", "DateItem"));
    assertThat(all).contains(
        "ratelimit-policy (MALFORMED): item \"a\" dropped: q is not an Integer: abc",
        "ratelimit-policy (MALFORMED): item \"b\" dropped: q is not an Integer: 1.5",
        "ratelimit-policy (MALFORMED): item \"c\" dropped: q is not an Integer: ?1",
        "ratelimit-policy (MALFORMED): item \"d\" dropped: q is not an Integer: \"ten\"",
        "ratelimit-policy (MALFORMED): inner list ignored: (x y);z",
        "ratelimit (MALFORMED): item \"a\" dropped: r is not an Integer: @1700000000",
        "ratelimit (MALFORMED): item \"e\" dropped: pk is not a Byte Sequence: tok");
  }

  @Test
  void everyProblemOfAnItemIsReported() {
    List<String> all = warnings("RateLimit-Policy", "\"a\";q=-1;qu=bogus;w=x;pk=y");
    assertThat(all).containsExactly(
        "ratelimit-policy (DROPPED): item \"a\" dropped: q is negative: -1",
        "ratelimit-policy (MALFORMED): policy \"a\" dropped: unknown quota unit bogus",
        "ratelimit-policy (MALFORMED): item \"a\": w is not an Integer: x",
        "ratelimit-policy (MALFORMED): item \"a\" dropped: pk is not a Byte Sequence: y");
    assertThat(warnings("RateLimit", "\"a\";r=x;t=y")).containsExactly(
        "ratelimit (MALFORMED): item \"a\" dropped: r is not an Integer: x",
        "ratelimit (MALFORMED): item \"a\": t is not an Integer: y");
  }

  @Test
  void aFieldsProblemsAreBoundedWithACountOfTheRest() {
    String policies = IntStream.range(0, 20).mapToObj(i -> "\"p" + i + "\";q=x")
        .collect(Collectors.joining(", "));
    List<String> all = warnings("RateLimit-Policy", policies, "Retry-After", "soon");
    assertThat(all).filteredOn(w -> w.startsWith("ratelimit-policy")).hasSize(9)
        .last().isEqualTo(
            "ratelimit-policy (DROPPED): and 12 more problems with this field not listed");
    assertThat(all).filteredOn(w -> w.startsWith("retry-after")).hasSize(1);
  }

  @Test
  void aPolicyFieldThatIsNotAStructuredListIsReportedOnce() {
    assertThat(warnings("RateLimit-Policy", "???;;;q=-3")).containsExactly(
        "ratelimit-policy (MALFORMED): not a structured-field List (boolean must be ?0 or ?1 at"
            + " offset 1): \"???;;;q=-3\"");
    // The older drafts' integer members are still read leniently, and reported once when bad.
    assertThat(warnings("RateLimit-Policy", "100;w=60, 1x;w=5, *;w=1")).containsExactly(
        "ratelimit-policy (MALFORMED): not a structured-field List (expected ',' but found 'x'"
            + " at offset 11): \"100;w=60, 1x;w=5, *;w=1\"",
        "ratelimit-policy (MALFORMED): not an integer: \"1x\"");
  }
}
