package dev.headway.dialect;

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
 *   <li>a negative value, {@code NaN}, an infinity, or a number too large for a {@code long}
 *       (more than 18 integer digits): {@link SignalWarning.Kind#DROPPED};
 *   <li>a count of exactly {@code -1}, the documented "unknown" of Azure OpenAI and Spring Cloud
 *       Gateway: {@link SignalWarning.Kind#SENTINEL}.
 * </ul>
 *
 * <p>Surrounding spaces and tabs are ignored. Values are not capped here: the parser applies the
 * {@link dev.headway.SanityCaps} to what a dialect reports. Stateless and thread-safe.
 */
public final class FieldValues {
  /** More integer digits than this cannot be a {@code long}; such values are dropped. */
  static final int MAX_DIGITS = 18;
  private static final int MAX_QUOTED = 64;
  private static final long NANOS_PER_SECOND = 1_000_000_000L;

  private FieldValues() {}

  /**
   * Parses a non-negative integer count such as {@code 4999}.
   *
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
    if (parsed == TOO_LONG) {
      sink.warn(field, SignalWarning.Kind.DROPPED, "number too large: " + quote(value));
      return OptionalLong.empty();
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
      sink.warn(field, SignalWarning.Kind.DROPPED, "duration too long: " + quote(value));
      return Optional.empty();
    }
    return Optional.of(Duration.ofNanos(totalNanos));
  }

  /**
   * Parses a clock duration {@code hh:mm:ss} (optionally {@code d.hh:mm:ss} and a fraction of a
   * second), as Azure Resource Graph's {@code x-ms-user-quota-resets-after: 00:00:03} sends it.
   *
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
   * @return the instant; empty if the value is not one (no warning: callers decide)
   */
  public static Optional<Instant> rfc3339(String value) {
    return Optional.ofNullable(Dates.rfc3339(value));
  }

  /** Returns the value shortened to at most 64 characters, quoted, for a warning message. */
  public static String quote(String value) {
    if (value.length() <= MAX_QUOTED) {
      return '"' + value + '"';
    }
    return '"' + value.substring(0, MAX_QUOTED) + "\"... (" + value.length() + " chars)";
  }

  // ---------------------------------------------------------------------------------------------
  // Package-private building blocks (also used by ResetValues).

  /** {@link #digits} result: a character that is not a digit, or no digits at all. */
  static final long NOT_DIGITS = -1;
  /** {@link #digits} result: more than {@link #MAX_DIGITS} significant digits. */
  static final long TOO_LONG = -2;

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

  static int start(String value) {
    int i = 0;
    while (i < value.length() && isSpace(value.charAt(i))) {
      i++;
    }
    return i;
  }

  static int end(String value, int from) {
    int i = value.length();
    while (i > from && isSpace(value.charAt(i - 1))) {
      i--;
    }
    return i;
  }

  static boolean isSpace(char c) {
    return c == ' ' || c == '\t';
  }

  static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }

  /**
   * Parses {@code [from, to)} as unsigned decimal digits. Leading zeros do not count toward
   * {@link #MAX_DIGITS}. Returns {@link #NOT_DIGITS} or {@link #TOO_LONG} on failure.
   */
  static long digits(CharSequence s, int from, int to) {
    if (from >= to) {
      return NOT_DIGITS;
    }
    long result = 0;
    int significant = 0;
    boolean tooLong = false;
    for (int i = from; i < to; i++) {
      char c = s.charAt(i);
      if (c < '0' || c > '9') {
        return NOT_DIGITS;
      }
      if (result != 0 || c != '0') {
        significant++;
      }
      if (significant > MAX_DIGITS) {
        tooLong = true; // keep scanning: a later non-digit still makes it malformed
      } else {
        result = result * 10 + (c - '0');
      }
    }
    return tooLong ? TOO_LONG : result;
  }

  /**
   * Parses a non-negative decimal number ({@code 12}, {@code 12.5}, {@code .5}) in
   * {@code [from, to)} as a number of seconds; warns and returns null when it is not one.
   */
  static @Nullable Duration decimal(String field, String value, int from, int to,
      SignalSink sink) {
    if (from >= to) {
      sink.warn(field, SignalWarning.Kind.MALFORMED, "empty value");
      return null;
    }
    char first = value.charAt(from);
    if (first == '-') {
      if (digitsOrDecimal(value, from + 1, to)) {
        sink.warn(field, SignalWarning.Kind.DROPPED, "negative: " + quote(value));
      } else {
        sink.warn(field, SignalWarning.Kind.MALFORMED, "not a number: " + quote(value));
      }
      return null;
    }
    if (first == '+') {
      from++;
    }
    int dot = -1;
    for (int i = from; i < to; i++) {
      if (value.charAt(i) == '.') {
        dot = i;
        break;
      }
    }
    int intEnd = dot < 0 ? to : dot;
    long seconds = intEnd == from && dot >= 0 ? 0 : digits(value, from, intEnd);
    long nanos = 0;
    if (seconds >= 0 && dot >= 0) {
      nanos = fractionNanos(value, dot + 1, to);
      if (nanos < 0 || (intEnd == from && dot + 1 == to)) {
        seconds = NOT_DIGITS;
      }
    }
    if (seconds == TOO_LONG) {
      sink.warn(field, SignalWarning.Kind.DROPPED, "number too large: " + quote(value));
      return null;
    }
    if (seconds < 0) {
      if (isNonFinite(value, from, to)) {
        sink.warn(field, SignalWarning.Kind.DROPPED, "not a finite number: " + quote(value));
      } else {
        sink.warn(field, SignalWarning.Kind.MALFORMED, "not a number: " + quote(value));
      }
      return null;
    }
    return Duration.ofSeconds(seconds, nanos);
  }

  /** Turns a duration whose seconds are really milliseconds into the true duration. */
  static Duration fromMillisScaled(Duration asSeconds) {
    // value = s + n/1e9 milliseconds = s ms + n/1e6 ns; s < 1e18 so no overflow below.
    long wholeMillis = asSeconds.getSeconds();
    long extraNanos = asSeconds.getNano() / 1_000L;
    return Duration.ofSeconds(wholeMillis / 1000, (wholeMillis % 1000) * 1_000_000L + extraNanos);
  }

  /** Parses up to nine fraction digits as nanoseconds, ignoring later digits; -1 if malformed. */
  private static long fractionNanos(String value, int from, int to) {
    long nanos = 0;
    long scale = NANOS_PER_SECOND;
    for (int i = from; i < to; i++) {
      char c = value.charAt(i);
      if (!isDigit(c)) {
        return -1;
      }
      if (scale > 1) {
        scale /= 10;
        nanos += (c - '0') * scale;
      }
    }
    return nanos;
  }

  /** Parses a decimal number times {@code unitNanos}, saturating; NOT_DIGITS if malformed. */
  private static long scaledDecimal(String value, int from, int to, long unitNanos) {
    int dot = -1;
    for (int i = from; i < to; i++) {
      if (value.charAt(i) == '.') {
        if (dot >= 0) {
          return NOT_DIGITS;
        }
        dot = i;
      }
    }
    int intEnd = dot < 0 ? to : dot;
    long whole = intEnd == from ? 0 : digits(value, from, intEnd);
    if (whole == NOT_DIGITS || (dot >= 0 && intEnd == from && dot + 1 == to)) {
      return NOT_DIGITS;
    }
    long result = whole == TOO_LONG ? Long.MAX_VALUE : saturatedMultiply(whole, unitNanos);
    if (dot >= 0) {
      long fraction = fractionNanos(value, dot + 1, to); // in 1e-9 of a unit
      if (fraction < 0) {
        return NOT_DIGITS;
      }
      // fraction * unitNanos / 1e9 without overflow: unitNanos / 1000 <= 3.6e9, fraction < 1e9.
      long fractionNanos = unitNanos >= 1000 ? fraction * (unitNanos / 1000) / 1_000_000 : 0;
      result = saturatedAdd(result, fractionNanos);
    }
    return result;
  }

  private static long goUnitNanos(String value, int from, int to) {
    int length = to - from;
    if (length == 1) {
      switch (value.charAt(from)) {
        case 'h': return 3_600_000_000_000L;
        case 'm': return 60_000_000_000L;
        case 's': return NANOS_PER_SECOND;
        default: return 0;
      }
    }
    if (length == 2 && value.charAt(from + 1) == 's') {
      switch (value.charAt(from)) {
        case 'm': return 1_000_000L;
        case 'u':
        case '\u00b5':
        case '\u03bc':
          return 1_000L;
        case 'n': return 1L;
        default: return 0;
      }
    }
    return 0;
  }

  private static boolean digitsOrDecimal(String value, int from, int to) {
    if (from >= to) {
      return false;
    }
    for (int i = from; i < to; i++) {
      char c = value.charAt(i);
      if (!isDigit(c) && c != '.') {
        return false;
      }
    }
    return true;
  }

  static boolean isNonFinite(String value, int from, int to) {
    int length = to - from;
    return (length == 3 && value.regionMatches(true, from, "nan", 0, 3))
        || (length == 3 && value.regionMatches(true, from, "inf", 0, 3))
        || (length == 8 && value.regionMatches(true, from, "infinity", 0, 8));
  }

  static long saturatedAdd(long a, long b) {
    long r = a + b;
    if (((a ^ r) & (b ^ r)) < 0) {
      return a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
    return r;
  }

  static long saturatedMultiply(long a, long b) {
    long hi = Math.multiplyHigh(a, b);
    long lo = a * b;
    if ((hi == 0 && lo >= 0) || (hi == -1 && lo < 0)) {
      return lo;
    }
    return (a < 0) == (b < 0) ? Long.MAX_VALUE : Long.MIN_VALUE;
  }
}
