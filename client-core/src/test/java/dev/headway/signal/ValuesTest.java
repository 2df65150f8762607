package dev.headway.signal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.HttpFields;
import dev.headway.QuotaLimit;
import dev.headway.QuotaPolicy;
import dev.headway.SignalWarning;
import dev.headway.dialect.DialectContext;
import dev.headway.dialect.FieldValues;
import dev.headway.dialect.ResetValues;
import dev.headway.dialect.SignalSink;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The public value parsers for dialect authors: FieldValues and ResetValues. */
class ValuesTest {
  static final Instant NOW = Instant.parse("2025-01-01T00:00:00Z");

  /** A sink that records warnings. */
  static final class Warnings implements SignalSink {
    final List<SignalWarning> list = new ArrayList<>();

    @Override
    public void policy(QuotaPolicy policy) {}

    @Override
    public void limit(QuotaLimit limit) {}

    @Override
    public void retryAfter(Duration delay) {}

    @Override
    public void throttled() {}

    @Override
    public void warn(String field, SignalWarning.Kind kind, String message) {
      list.add(new SignalWarning(field, kind, message));
    }

    SignalWarning.Kind onlyKind() {
      assertThat(list).hasSize(1);
      return list.get(0).kind();
    }
  }

  static DialectContext context() {
    return DialectContext.of(200, HttpFields.empty(), NOW);
  }

  @ParameterizedTest
  @CsvSource({"0, 0", "4999, 4999", "' 42\t', 42", "007, 7", "999999999999999999, 999999999999999999"})
  void countsParse(String value, long expected) {
    Warnings warnings = new Warnings();
    assertThat(FieldValues.count("f", value, warnings)).hasValue(expected);
    assertThat(warnings.list).isEmpty();
  }

  @ParameterizedTest
  @CsvSource({
    "-1, SENTINEL", "-5, DROPPED", "NaN, DROPPED", "Infinity, DROPPED",
    "-1234567890123456789012345678901234567890, DROPPED", "1.5, MALFORMED", "abc, MALFORMED",
    "'', MALFORMED", "1e99, MALFORMED", "12abc, MALFORMED"})
  void badCountsAreReported(String value, SignalWarning.Kind kind) {
    Warnings warnings = new Warnings();
    assertThat(FieldValues.count("f", value, warnings)).isEqualTo(OptionalLong.empty());
    assertThat(warnings.onlyKind()).isEqualTo(kind);
  }

  @ParameterizedTest
  @CsvSource({
    "6m0s, 360000", "1s, 1000", "12ms, 12", "2m59.56s, 179560", "7.66s, 7660", "1.5s, 1500",
    "20ms, 20", "1h2m3s, 3723000", "0, 0", "12s, 12000", "2.500s, 2500", "1000us, 1",
    "1h, 3600000"})
  void goDurations(String value, long millis) {
    Warnings warnings = new Warnings();
    assertThat(FieldValues.goDuration("f", value, warnings)).contains(Duration.ofMillis(millis));
    assertThat(warnings.list).isEmpty();
  }

  @Test
  void goDurationSubMillisecondPrecision() {
    assertThat(FieldValues.goDuration("f", "300\u00b5s", new Warnings()))
        .contains(Duration.ofNanos(300_000));
    assertThat(FieldValues.goDuration("f", "1.5ns", new Warnings())).contains(Duration.ofNanos(1));
  }

  @ParameterizedTest
  @CsvSource({"-1s, DROPPED", "6x, MALFORMED", "s, MALFORMED", "1.2.3s, MALFORMED"})
  void badGoDurations(String value, SignalWarning.Kind kind) {
    Warnings warnings = new Warnings();
    assertThat(FieldValues.goDuration("f", value, warnings)).isEmpty();
    assertThat(warnings.onlyKind()).isEqualTo(kind);
  }

  @ParameterizedTest
  @CsvSource({"20, 20000", "2.0, 2000", "64.57, 64570", "0, 0", ".5, 500", "1.0000000001, 1000"})
  void seconds(String value, long millis) {
    assertThat(FieldValues.seconds("f", value, new Warnings())).contains(Duration.ofMillis(millis));
  }

  @ParameterizedTest
  @CsvSource({"1234567890123456789012345678901234567890", "99999999999999999999",
      "' 0000099999999999999999999 '", "+1234567890123456789"})
  void countsTooLargeForALongAreTheLargestCountNotDropped(String value) {
    Warnings warnings = new Warnings();
    assertThat(FieldValues.count("f", value, warnings)).hasValue(999_999_999_999_999_999L);
    assertThat(warnings.onlyKind()).isEqualTo(SignalWarning.Kind.CAPPED);
    assertThat(warnings.list.get(0).message()).startsWith("number too large: ");
  }

  @ParameterizedTest
  @CsvSource({"99999999999999999999999", "1234567890123456789012345678901234567890.25",
      "' 0000099999999999999999999 '"})
  void secondsTooLargeForALongAreTheLongestDelayNotDropped(String value) {
    Warnings warnings = new Warnings();
    assertThat(FieldValues.seconds("f", value, warnings))
        .contains(Duration.ofSeconds(999_999_999_999_999_999L));
    assertThat(warnings.onlyKind()).isEqualTo(SignalWarning.Kind.CAPPED);
    assertThat(warnings.list.get(0).message()).startsWith("number too large: ");
    assertThat(FieldValues.millis("f", value, new Warnings()))
        .contains(Duration.ofMillis(999_999_999_999_999_999L));
    assertThat(ResetValues.delayOrDate("f", value, context(), new Warnings()))
        .contains(Duration.ofSeconds(999_999_999_999_999_999L));
  }

  @Test
  void aTooLargeNumberWithABadFractionIsStillMalformed() {
    Warnings warnings = new Warnings();
    assertThat(FieldValues.seconds("f", "99999999999999999999999.5x", warnings)).isEmpty();
    assertThat(warnings.onlyKind()).isEqualTo(SignalWarning.Kind.MALFORMED);
  }

  @Test
  void aGoDurationTooLongIsTheLongestNotDropped() {
    Warnings warnings = new Warnings();
    assertThat(FieldValues.goDuration("f", "99999999999999999999h", warnings))
        .contains(Duration.ofNanos(Long.MAX_VALUE));
    assertThat(warnings.onlyKind()).isEqualTo(SignalWarning.Kind.CAPPED);
  }

  @Test
  void millis() {
    assertThat(FieldValues.millis("f", "1500", new Warnings())).contains(Duration.ofMillis(1500));
    assertThat(FieldValues.millis("f", "2.5", new Warnings())).contains(Duration.ofNanos(2_500_000));
  }

  @ParameterizedTest
  @CsvSource({"00:00:03, 3", "01:02:03, 3723", "1.00:00:00, 86400", "00:00:03.5, 3"})
  void clockDurations(String value, long seconds) {
    assertThat(FieldValues.clockDuration("f", value, new Warnings()))
        .hasValueSatisfying(d -> assertThat(d.getSeconds()).isEqualTo(seconds));
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
    "Sun, 06 Nov 1994 08:49:37 GMT | 784111777",
    "Sunday, 06-Nov-94 08:49:37 GMT | 784111777",
    "Sun Nov  6 08:49:37 1994 | 784111777",
    "Tue Feb 16 2021 09:02:42 GMT+0100 (Central European Standard Time) | 1613462562",
    "Tue, 05 Jan 2021 11:00:00 GMT | 1609844400"})
  void httpDates(String value, long epochSecond) {
    assertThat(FieldValues.httpDate(value)).contains(Instant.ofEpochSecond(epochSecond));
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {"120", "Sun, 32 Nov 1994 08:49:37 GMT",
      "Sun, 06 Nov 1994 25:49:37 GMT", "yesterday", "Sun, 06 Nov 1994"})
  void notHttpDates(String value) {
    assertThat(FieldValues.httpDate(value)).isEmpty();
  }

  @ParameterizedTest
  @CsvSource({
    "2025-08-21T12:40:59Z, 2025-08-21T12:40:59Z", "2024-05-05T18:02Z, 2024-05-05T18:02:00Z",
    "2024-01-01T00:00:00.3599067Z, 2024-01-01T00:00:00.3599067Z",
    "2024-01-01T01:00:00+01:00, 2024-01-01T00:00:00Z", "2024-01-01 00:00:00, 2024-01-01T00:00:00Z"})
  void rfc3339(String value, String expected) {
    assertThat(FieldValues.rfc3339(value)).contains(Instant.parse(expected));
  }

  @Test
  void quoteShortensLongValues() {
    assertThat(FieldValues.quote("x".repeat(100_000))).hasSizeLessThan(100);
  }

  // --- the epoch-versus-delta rule -------------------------------------------------------------

  @ParameterizedTest
  @CsvSource({
    "50, 50000",                  // delta seconds
    "1735689660, 60000",          // epoch seconds, one minute after NOW
    "1735689600123, 123",         // epoch milliseconds
    "1735689603.5, 3500",         // epoch seconds with decimals
    "1.5, 1500",                  // fractional delta
    "86400, 86400000",            // a day as delta
    "1000000000, 1000000000000",  // 2001 is more than ten years before NOW: a delta (then capped)
    "6m0s, 360000", "00:00:03, 3000", "2025-01-01T00:00:30Z, 30000",
    "'Wed, 01 Jan 2025 00:01:00 GMT', 60000"})
  void resetRule(String value, long millis) {
    Warnings warnings = new Warnings();
    assertThat(ResetValues.reset("f", value, context(), warnings))
        .contains(Duration.ofMillis(millis));
    assertThat(warnings.list).isEmpty();
  }

  @Test
  void aStaleEpochResetIsZeroWithAWarning() {
    Warnings warnings = new Warnings();
    // one year before NOW: zero, never negative, and the user is told
    assertThat(ResetValues.reset("f", "1704067200", context(), warnings)).contains(Duration.ZERO);
    assertThat(warnings.list).singleElement().satisfies(w -> {
      assertThat(w.kind()).isEqualTo(SignalWarning.Kind.STALE);
      assertThat(w.message()).contains("1704067200").contains("31622400 s before");
    });
  }

  @Test
  void resetIsMeasuredFromDateWhenPresent() {
    DialectContext context = DialectContext.of(200,
        HttpFields.of("Date", "Tue, 20 Aug 2013 14:50:41 GMT"), NOW);
    assertThat(ResetValues.reset("f", "1377013266", context, new Warnings()))
        .contains(Duration.ofSeconds(3025));
  }

  @Test
  void invalidDateFallsBackToReceiptTime() {
    DialectContext context = DialectContext.of(200, HttpFields.of("Date", "garbage"), NOW);
    assertThat(context.serverDate()).isEmpty();
    assertThat(context.now()).isEqualTo(NOW);
  }

  @ParameterizedTest
  @CsvSource({"-5, DROPPED", "NaN, DROPPED", "soon, MALFORMED", "12:ab:00, MALFORMED"})
  void badResets(String value, SignalWarning.Kind kind) {
    Warnings warnings = new Warnings();
    assertThat(ResetValues.reset("f", value, context(), warnings)).isEmpty();
    assertThat(warnings.onlyKind()).isEqualTo(kind);
  }

  /** Regression: the npm ratelimit-header-parser reads {@code Retry-After: 120} as 1970. */
  @Test
  void retryAfterNumberIsNeverAnEpoch() {
    Warnings warnings = new Warnings();
    assertThat(ResetValues.delayOrDate("retry-after", "120", context(), warnings))
        .contains(Duration.ofMinutes(2));
    // Even a value that looks like a plausible epoch is a delay: the caps bound it.
    assertThat(ResetValues.delayOrDate("retry-after", "1735689660", context(), warnings))
        .contains(Duration.ofSeconds(1735689660L));
    assertThat(warnings.list).isEmpty();
  }

  @Test
  void retryAfterDateInThePastIsZero() {
    assertThat(ResetValues.delayOrDate("retry-after", "Sun, 06 Nov 1994 08:49:37 GMT",
        context(), new Warnings())).contains(Duration.ZERO);
  }

  @Test
  void untilIsNeverNegative() {
    assertThat(ResetValues.until(NOW.minusSeconds(5), context())).isEqualTo(Duration.ZERO);
    assertThat(ResetValues.until(NOW.plusSeconds(5), context())).isEqualTo(Duration.ofSeconds(5));
  }

  @Test
  void contextJoinsFieldLines() {
    DialectContext context = DialectContext.of(200,
        HttpFields.of("RateLimit", "\"a\";r=1", "ratelimit", "\"b\";r=2"), NOW);
    assertThat(context.field("ratelimit")).contains("\"a\";r=1, \"b\";r=2");
    assertThat(context.field("absent")).isEqualTo(Optional.empty());
  }
}
