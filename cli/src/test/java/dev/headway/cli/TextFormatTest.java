package dev.headway.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.HttpFields;
import dev.headway.QuotaLimit;
import dev.headway.QuotaPolicy;
import dev.headway.QuotaUnit;
import dev.headway.RateLimitSignal;
import dev.headway.SignalParser;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** {@code --format text}: the same values as the JSON, as a table. */
class TextFormatTest {
  @Test
  void showsTheSameValuesAsTheJson() {
    RateLimitSignal signal = new RateLimitSignal(429,
        List.of(new QuotaPolicy("default", 100, QuotaUnit.REQUESTS,
            Optional.of(Duration.ofSeconds(60)), Optional.empty(), "ietf-structured")),
        List.of(new QuotaLimit("default", 50, Optional.of(Duration.ofMillis(30_500)),
            Optional.of("YWJj"), "ietf-structured")),
        Optional.of(Duration.ofSeconds(20)), Optional.empty(), Optional.empty(), List.of(),
        List.of("ietf-structured"), List.of(), true);

    String text = TextFormat.write(Explanation.of(signal, List.of()));

    assertThat(text).isEqualTo("""
        status       429
        dialects     ietf-structured
        retry after  20 s
        next         in 20 s
        effective    50 of 100 remaining, reset in 30.5 s
        action       throttled: retry in 20 s

        POLICY   QUOTA  UNIT      WINDOW  PARTITION
        default  100    requests  60 s    -

        LIMIT    REMAINING  RESET   PARTITION
        default  50         30.5 s  YWJj
        """);
  }

  @Test
  void saysSoWhenThereIsNoSignal() {
    String text = TextFormat.write(Explanation.of(RateLimitSignal.none(200), List.of()));

    assertThat(text).isEqualTo("""
        status       200
        dialects     none
        retry after  -
        next         now
        effective    -
        action       no rate-limit signal: the next request goes now

        no rate-limit signal found
        """);
  }

  @Test
  void aBare429IsThrottledWithNoHintNotASignalLess() {
    String text = TextFormat.write(Explanation.of(
        SignalParser.create().parse(429, HttpFields.of(), Instant.EPOCH), List.of()));

    assertThat(text).isEqualTo("""
        status       429
        dialects     none
        retry after  -
        next         -
        effective    -
        action       throttled, no hint: back off
        """);
  }

  @Test
  void theServersVerdictAndTheRequestsCostAreShown() {
    String text = TextFormat.write(Explanation.of(SignalParser.create().parse(429,
        HttpFields.of("Retry-After", "5", "x-should-retry", "false",
            "RateLimit", "\"default\";a=0;w=5;c=2"), Instant.EPOCH), List.of()));

    assertThat(text).contains("""
        should retry  no (the server says)
        cost          2
        action        the server says do not retry: the caller gets this response, and the \
        next request waits 5 s
        """);
  }

  @Test
  void escapesControlCharactersFromTheServer() {
    RateLimitSignal signal = new RateLimitSignal(200,
        List.of(new QuotaPolicy("evil\u001b[2J", 1, QuotaUnit.REQUESTS, Optional.empty(),
            Optional.empty(), "d")),
        List.of(), Optional.empty(), Optional.empty(), Optional.empty(), List.of(), List.of("d"),
        List.of(), false);

    String text = TextFormat.write(Explanation.of(signal, List.of("x-a: bell\u0007")));

    assertThat(text).doesNotContain("\u001b").doesNotContain("\u0007")
        .contains("evil\\x1b[2J").contains("  x-a: bell\\x07");
  }

  @Test
  void effectiveWithoutAKnownQuotaOrReset() {
    RateLimitSignal signal = new RateLimitSignal(200, List.of(),
        List.of(new QuotaLimit("default", 11999, Optional.empty(), Optional.empty(), "d")),
        Optional.empty(), Optional.empty(), Optional.empty(), List.of(), List.of("d"), List.of(),
        false);

    String text = TextFormat.write(Explanation.of(signal, List.of()));

    assertThat(text).contains("effective    11999 remaining\n");
  }
}
