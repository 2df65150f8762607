package dev.headway.dialect;

import static dev.headway.dialect.FieldValues.MAX_DIGITS;
import static dev.headway.dialect.FieldValues.quote;

import dev.headway.SignalWarning;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * The scanning building blocks behind {@link FieldValues}, {@link ResetValues} and
 * {@code Dates}: trimming spaces, reading digit runs and decimal numbers (seconds with a
 * fraction, Go duration units), and saturating arithmetic. Every method is total and linear in
 * the length of what it reads; the ones that take a {@link SignalSink} report what they drop
 * exactly as the {@link FieldValues} methods document.
 */
final class ValueScanning {
  private static final long NANOS_PER_SECOND = 1_000_000_000L;

  private ValueScanning() {}

  /** {@link #digits} result: a character that is not a digit, or no digits at all. */
  static final long NOT_DIGITS = -1;
  /** {@link #digits} result: more than {@link FieldValues#MAX_DIGITS} significant digits. */
  static final long TOO_LONG = -2;
  /**
   * The delay in seconds a decimal number too long for {@link FieldValues#MAX_DIGITS} reads as:
   * the largest with that many digits, so that every cap clamps it as it clamps any huge delay.
   */
  static final long LONGEST_SECONDS = 999_999_999_999_999_999L;
  /**
   * The count a decimal number too long for {@link FieldValues#MAX_DIGITS} reads as: the
   * largest with that many digits, so that every cap clamps it as it clamps any huge count.
   */
  static final long LONGEST_COUNT = 999_999_999_999_999_999L;

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
   * {@link FieldValues#MAX_DIGITS}. Returns {@link #NOT_DIGITS} or {@link #TOO_LONG} on failure.
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
      // A delay too long for a long is the longest delay, not garbage: dropping it would make the
      // largest "go away" a server can send count for less than a merely huge one (the caps
      // clamp both). The fraction, if any, must still be well formed.
      if (dot >= 0 && fractionNanos(value, dot + 1, to) < 0) {
        sink.warn(field, SignalWarning.Kind.MALFORMED, "not a number: " + quote(value));
        return null;
      }
      sink.warn(field, SignalWarning.Kind.CAPPED, "number too large: " + quote(value)
          + ", read as " + LONGEST_SECONDS + " s");
      return Duration.ofSeconds(LONGEST_SECONDS);
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
  static long scaledDecimal(String value, int from, int to, long unitNanos) {
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

  static long goUnitNanos(String value, int from, int to) {
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
