package dev.headway.dialect;

import static dev.headway.dialect.ValueScanning.NOT_DIGITS;
import static dev.headway.dialect.ValueScanning.LONGEST_COUNT;
import static dev.headway.dialect.ValueScanning.TOO_LONG;
import static dev.headway.dialect.ValueScanning.decimal;
import static dev.headway.dialect.ValueScanning.digits;
import static dev.headway.dialect.ValueScanning.end;
import static dev.headway.dialect.ValueScanning.fromMillisScaled;
import static dev.headway.dialect.ValueScanning.goUnitNanos;
import static dev.headway.dialect.ValueScanning.isDigit;
import static dev.headway.dialect.ValueScanning.isNonFinite;
import static dev.headway.dialect.ValueScanning.saturatedAdd;
import static dev.headway.dialect.ValueScanning.scaledDecimal;
import static dev.headway.dialect.ValueScanning.start;

import dev.headway.SignalWarning;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;

/**
 * Parsers for the values rate-limit fields carry: counts, delays in seconds or milliseconds,
 * Go-style durations ({@code 6m0s}), {@code hh:mm:ss} clock durations, HTTP-dates and RFC 3339
 * timestamps. For dialect authors.
 *
 * <p>Every method is total: it never throws for any input, runs in time linear in the length of
 * the value, does not use regular expressions, and reports what it could not take as sent to the
 * {@link SignalSink} (naming {@code field}) before returning an empty result:
 *
 * <ul>
 *   <li>text that is not a value of the expected form: {@link SignalWarning.Kind#MALFORMED};
 *   <li>a negative value, {@code NaN} or an infinity: {@link SignalWarning.Kind#DROPPED};
 *   <li>a count too large for a {@code long} (more than 18 integer digits): read as the largest
 *       one, 999,999,999,999,999,999, with a {@link SignalWarning.Kind#CAPPED} warning; the
 *       {@link dev.headway.SanityCaps} then bound it like any huge count;
 *   <li>a delay or duration too large for a {@code long} (more than 18 integer digits; a Go
 *       duration past 2<sup>63</sup> ns): read as the longest one, 999,999,999,999,999,999 s
 *       (2<sup>63</sup> − 1 ns for a Go duration), with a {@link SignalWarning.Kind#CAPPED}
 *       warning. The largest "go away" a server can send is never taken for less than a smaller
 *       one; the {@link dev.headway.SanityCaps} then bound it like any huge value;
 *   <li>a count of exactly {@code -1}, the documented "unknown" of Azure OpenAI and Spring Cloud
 *       Gateway: {@link SignalWarning.Kind#SENTINEL}.
 * </ul>
 *
 * <p>Surrounding spaces and tabs are ignored. Values are not otherwise capped here: the parser
 * applies the {@link dev.headway.SanityCaps} to what a dialect reports. Stateless and thread-safe.
 */
public final class FieldValues {
  /**
   * More integer digits than this cannot be a {@code long}; such values are read as the largest
   * of their kind.
   */
  static final int MAX_DIGITS = 18;
  private static final int MAX_QUOTED = 64;

  private FieldValues() {}

  /**
   * Parses a non-negative integer count such as {@code 4999}.
   *
   * @param field the field name the value came from, used in warnings
   * @param value the field value, as sent
   * @param sink where warnings go
   * @return the count; empty (with a warning) if the value is not one
   */
  public static OptionalLong count(String field, String value, SignalSink sink) {
    int from = start(value);
    int to = end(value, from);
    if (from == to) {
      sink.warn(field, SignalWarning.Kind.MALFORMED, "empty value");
      return OptionalLong.empty();
    }
    boolean negative = value.charAt(from) == '-';
    int digitsFrom = negative || value.charAt(from) == '+' ? from + 1 : from;
    long parsed = digits(value, digitsFrom, to);
    if (parsed == NOT_DIGITS) {
      if (isNonFinite(value, digitsFrom, to)) {
        sink.warn(field, SignalWarning.Kind.DROPPED, "not a finite number: " + quote(value));
      } else {
        sink.warn(field, SignalWarning.Kind.MALFORMED, "not an integer: " + quote(value));
      }
      return OptionalLong.empty();
    }
    if (parsed == TOO_LONG && !negative) {
      // A count too large for a long is the largest count, not garbage: dropped, it would count
      // for less than a merely huge one (the caps clamp both).
      sink.warn(field, SignalWarning.Kind.CAPPED, "number too large: " + quote(value)
          + ", read as " + LONGEST_COUNT);
      return OptionalLong.of(LONGEST_COUNT);
    }
    if (negative && parsed != 0) {
      if (parsed == 1) {
        sink.warn(field, SignalWarning.Kind.SENTINEL, "-1 means unknown");
      } else {
        sink.warn(field, SignalWarning.Kind.DROPPED, "negative: " + quote(value));
      }
      return OptionalLong.empty();
    }
    return OptionalLong.of(parsed);
  }

  /**
   * Parses a delay in seconds, possibly fractional ({@code 20}, {@code 2.0}, {@code 64.57}), as
   * {@code Retry-After}'s delay-seconds (tolerating a fraction) and Discord's
   * {@code X-RateLimit-Reset-After} send it. Digits past nanosecond precision are ignored.
   *
   * @param field the field name the value came from, used in warnings
   * @param value the field value, as sent
   * @param sink where warnings go
   * @return the delay; empty (with a warning) if the value is not one
   */
  public static Optional<Duration> seconds(String field, String value, SignalSink sink) {
    int from = start(value);
    return Optional.ofNullable(decimal(field, value, from, end(value, from), sink));
  }

  /**
   * Parses a delay in milliseconds, possibly fractional ({@code 1500}), as {@code retry-after-ms}
   * and {@code x-ms-retry-after-ms} send it.
   *
   * @param field the field name the value came from, used in warnings
   * @param value the field value, as sent
   * @param sink where warnings go
   * @return the delay; empty (with a warning) if the value is not one
   */
  public static Optional<Duration> millis(String field, String value, SignalSink sink) {
    int from = start(value);
    Duration asSeconds = decimal(field, value, from, end(value, from), sink);
    return asSeconds == null ? Optional.empty() : Optional.of(fromMillisScaled(asSeconds));
  }

  /**
   * Parses a Go {@code time.Duration} string as OpenAI, Groq and Traefik send it: one or more
   * decimal numbers each followed by a unit {@code h}, {@code m}, {@code s}, {@code ms},
   * {@code us} ({@code µs}) or {@code ns} ({@code 6m0s}, {@code 2m59.56s}, {@code 12ms},
   * {@code 1.5s}); a bare {@code 0} is zero. Also reads protobuf JSON durations ({@code "12s"},
   * {@code "2.500s"}).
   *
   * @param field the field name the value came from, used in warnings
   * @param value the field value, as sent
   * @param sink where warnings go
   * @return the duration; empty (with a warning) if the value is not one
   */
  public static Optional<Duration> goDuration(String field, String value, SignalSink sink) {
    int from = start(value);
    int to = end(value, from);
    if (from == to) {
      sink.warn(field, SignalWarning.Kind.MALFORMED, "empty value");
      return Optional.empty();
    }
    if (value.charAt(from) == '-') {
      sink.warn(field, SignalWarning.Kind.DROPPED, "negative: " + quote(value));
      return Optional.empty();
    }
    if (value.charAt(from) == '+') {
      from++;
    }
    if (to - from == 1 && value.charAt(from) == '0') {
      return Optional.of(Duration.ZERO);
    }
    long totalNanos = 0;
    int i = from;
    if (i == to) {
      sink.warn(field, SignalWarning.Kind.MALFORMED, "not a duration: " + quote(value));
      return Optional.empty();
    }
    while (i < to) {
      int numberStart = i;
      while (i < to && (isDigit(value.charAt(i)) || value.charAt(i) == '.')) {
        i++;
      }
      int numberEnd = i;
      while (i < to && !isDigit(value.charAt(i)) && value.charAt(i) != '.') {
        i++;
      }
      long unitNanos = goUnitNanos(value, numberEnd, i);
      if (numberStart == numberEnd || unitNanos == 0) {
        sink.warn(field, SignalWarning.Kind.MALFORMED, "not a duration: " + quote(value));
        return Optional.empty();
      }
      long part = scaledDecimal(value, numberStart, numberEnd, unitNanos);
      if (part == NOT_DIGITS) {
        sink.warn(field, SignalWarning.Kind.MALFORMED, "not a duration: " + quote(value));
        return Optional.empty();
      }
      totalNanos = saturatedAdd(totalNanos, part);
    }
    if (totalNanos == Long.MAX_VALUE) {
      // The longest duration, not garbage: the caps clamp it as they clamp any huge one.
      sink.warn(field, SignalWarning.Kind.CAPPED, "duration too long: " + quote(value)
          + ", read as " + Long.MAX_VALUE + " ns");
      return Optional.of(Duration.ofNanos(Long.MAX_VALUE));
    }
    return Optional.of(Duration.ofNanos(totalNanos));
  }

  /**
   * Parses a clock duration {@code hh:mm:ss} (optionally {@code d.hh:mm:ss} and a fraction of a
   * second), as Azure Resource Graph's {@code x-ms-user-quota-resets-after: 00:00:03} sends it.
   *
   * @param field the field name the value came from, used in warnings
   * @param value the field value, as sent
   * @param sink where warnings go
   * @return the duration; empty (with a warning) if the value is not one
   */
  public static Optional<Duration> clockDuration(String field, String value, SignalSink sink) {
    int from = start(value);
    int to = end(value, from);
    int firstColon = value.indexOf(':', from);
    int secondColon = firstColon < 0 ? -1 : value.indexOf(':', firstColon + 1);
    if (firstColon < 0 || secondColon < 0 || secondColon >= to) {
      sink.warn(field, SignalWarning.Kind.MALFORMED, "not hh:mm:ss: " + quote(value));
      return Optional.empty();
    }
    long days = 0;
    int hoursFrom = from;
    int dot = value.indexOf('.', from);
    if (dot >= 0 && dot < firstColon) {
      days = digits(value, from, dot);
      hoursFrom = dot + 1;
    }
    long hours = digits(value, hoursFrom, firstColon);
    long minutes = digits(value, firstColon + 1, secondColon);
    Duration seconds = secondColon + 1 < to && isDigit(value.charAt(secondColon + 1))
        ? decimal(field, value, secondColon + 1, to, IGNORE) : null;
    if (days < 0 || hours < 0 || minutes < 0 || minutes > 59 || hours > 10_000 || days > 10_000
        || seconds == null || seconds.getSeconds() > 59) {
      sink.warn(field, SignalWarning.Kind.MALFORMED, "not hh:mm:ss: " + quote(value));
      return Optional.empty();
    }
    return Optional.of(seconds.plusSeconds((days * 24 + hours) * 3600 + minutes * 60));
  }

  /**
   * Parses an HTTP-date (RFC 9110 section 5.6.7: IMF-fixdate, and the obsolete RFC 850 and
   * asctime forms) or a JavaScript {@code Date.toString()} value
   * ({@code Tue Feb 16 2021 09:02:42 GMT+0100 (Central European Standard Time)}).
   *
   * @param value the field value, as sent
   * @return the instant; empty if the value is not a date (no warning: callers decide)
   */
  public static Optional<Instant> httpDate(String value) {
    return Optional.ofNullable(Dates.httpDate(value));
  }

  /**
   * Parses an RFC 3339 / ISO 8601 timestamp: {@code 2025-08-21T12:40:59Z},
   * {@code 2024-05-05T18:02Z} (no seconds), {@code 2024-01-01T00:00:00.3599067Z} (up to nine
   * fractional digits), with {@code Z} or a {@code ±hh:mm} offset; no zone means UTC.
   *
   * @param value the field value, as sent
   * @return the instant; empty if the value is not one (no warning: callers decide)
   */
  public static Optional<Instant> rfc3339(String value) {
    return Optional.ofNullable(Dates.rfc3339(value));
  }

  /**
   * Returns the value shortened to at most 64 characters, quoted, for a warning message.
   *
   * @param value the value to quote
   * @return the value in double quotes; past 64 characters, its first 64 and its length
   */
  public static String quote(String value) {
    if (value.length() <= MAX_QUOTED) {
      return '"' + value + '"';
    }
    return '"' + value.substring(0, MAX_QUOTED) + "\"... (" + value.length() + " chars)";
  }

  /** A sink that ignores everything; for probing parses. */
  static final SignalSink IGNORE = new SignalSink() {
    @Override
    public void policy(dev.headway.QuotaPolicy policy) {}

    @Override
    public void limit(dev.headway.QuotaLimit limit) {}

    @Override
    public void retryAfter(Duration delay) {}

    @Override
    public void throttled() {}

    @Override
    public void warn(String field, SignalWarning.Kind kind, String message) {}
  };
}
