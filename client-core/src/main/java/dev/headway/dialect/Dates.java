package dev.headway.dialect;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * Allocation-light, exception-free date parsers (no {@code DateTimeFormatter}, no regular
 * expressions): HTTP-dates in all three RFC 9110 forms plus JavaScript's {@code Date.toString()},
 * and RFC 3339 timestamps. Linear in the input; inputs longer than 100 characters are rejected
 * outright. Stateless.
 */
final class Dates {
  private static final int MAX_LENGTH = 100;
  private static final String MONTHS = "janfebmaraprmayjunjulaugsepoctnovdec";

  private Dates() {}

  /**
   * Parses {@code Sun, 06 Nov 1994 08:49:37 GMT}, {@code Sunday, 06-Nov-94 08:49:37 GMT},
   * {@code Sun Nov  6 08:49:37 1994} and {@code Tue Feb 16 2021 09:02:42 GMT+0100 (CET)}.
   * Returns null if the value is not such a date.
   */
  static @Nullable Instant httpDate(String value) {
    int length = value.length();
    if (length > MAX_LENGTH) {
      return null;
    }
    int day = -1;
    int month = -1;
    long year = -1;
    int hour = -1;
    int minute = -1;
    int second = -1;
    int offsetSeconds = Integer.MIN_VALUE;
    boolean sawWeekday = false;
    int i = 0;
    while (i < length) {
      char c = value.charAt(i);
      if (c == ' ' || c == ',' || c == '\t' || (c == '-' && hour < 0)) {
        i++;
        continue;
      }
      if (c == '(') {
        break; // JavaScript's "(Central European Standard Time)" comment
      }
      int tokenStart = i;
      if (isLetter(c)) {
        while (i < length && isLetter(value.charAt(i))) {
          i++;
        }
        int tokenLength = i - tokenStart;
        if (tokenLength == 3 && month < 0 && monthIndex(value, tokenStart) >= 0) {
          month = monthIndex(value, tokenStart) + 1;
        } else if (regionIs(value, tokenStart, i, "gmt") || regionIs(value, tokenStart, i, "utc")
            || regionIs(value, tokenStart, i, "ut") || regionIs(value, tokenStart, i, "z")) {
          if (offsetSeconds != Integer.MIN_VALUE) {
            return null;
          }
          offsetSeconds = 0;
          if (i < length && (value.charAt(i) == '+' || value.charAt(i) == '-')) {
            int offsetEnd = digitsEnd(value, i + 1);
            int parsed = offset(value, i, offsetEnd);
            if (parsed == Integer.MIN_VALUE) {
              return null;
            }
            offsetSeconds = parsed;
            i = offsetEnd;
          }
        } else if (!sawWeekday && isWeekday(value, tokenStart, i) && month < 0 && day < 0) {
          sawWeekday = true;
        } else {
          return null;
        }
      } else if (isDigit(c)) {
        int digitsEnd = digitsEnd(value, i);
        if (digitsEnd < length && value.charAt(digitsEnd) == ':') {
          if (hour >= 0) {
            return null;
          }
          // hh:mm:ss
          int h = twoDigits(value, i, digitsEnd);
          int mEnd = digitsEnd(value, digitsEnd + 1);
          int m = twoDigits(value, digitsEnd + 1, mEnd);
          if (h < 0 || m < 0 || mEnd >= length || value.charAt(mEnd) != ':') {
            return null;
          }
          int sEnd = digitsEnd(value, mEnd + 1);
          int s = twoDigits(value, mEnd + 1, sEnd);
          if (s < 0 || h > 23 || m > 59 || s > 60) {
            return null;
          }
          hour = h;
          minute = m;
          second = Math.min(s, 59);
          i = sEnd;
        } else {
          int n = digitsEnd - i;
          long number = ValueScanning.digits(value, i, digitsEnd);
          if (number < 0) {
            return null;
          }
          if (n <= 2 && day < 0 && (month < 0 || year < 0)) {
            day = (int) number;
          } else if (year < 0 && (n == 4 || (n == 2 && day >= 0))) {
            year = n == 2 ? (number < 70 ? 2000 + number : 1900 + number) : number;
          } else {
            return null;
          }
          i = digitsEnd;
        }
      } else if ((c == '+' || c == '-') && offsetSeconds == Integer.MIN_VALUE && hour >= 0) {
        int offsetEnd = digitsEnd(value, i + 1);
        int parsed = offset(value, i, offsetEnd);
        if (parsed == Integer.MIN_VALUE) {
          return null;
        }
        offsetSeconds = parsed;
        i = offsetEnd;
      } else {
        return null;
      }
    }
    if (day < 1 || month < 1 || year < 0 || hour < 0 || day > daysInMonth(year, month)) {
      return null;
    }
    if (offsetSeconds == Integer.MIN_VALUE) {
      offsetSeconds = 0; // asctime has no zone: it is GMT by definition
    }
    long epochDay = epochDay(year, month, day);
    return Instant.ofEpochSecond(
        epochDay * 86_400 + hour * 3600L + minute * 60L + second - offsetSeconds);
  }

  /**
   * Parses {@code yyyy-MM-ddTHH:mm[:ss[.fffffffff]][Z|±hh:mm|±hhmm]}; a space may replace
   * {@code T}; no zone means UTC. Returns null if the value is not such a timestamp.
   */
  static @Nullable Instant rfc3339(String value) {
    int from = ValueScanning.start(value);
    int to = ValueScanning.end(value, from);
    if (to - from < 16 || to - from > MAX_LENGTH) {
      return null;
    }
    int p = from;
    long year = ValueScanning.digits(value, p, p + 4);
    if (year < 0 || value.charAt(p + 4) != '-' || value.charAt(p + 7) != '-') {
      return null;
    }
    int month = twoDigits(value, p + 5, p + 7);
    int day = twoDigits(value, p + 8, p + 10);
    char t = value.charAt(p + 10);
    if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)
        || (t != 'T' && t != 't' && t != ' ')) {
      return null;
    }
    int hour = twoDigits(value, p + 11, p + 13);
    int minute = twoDigits(value, p + 14, p + 16);
    if (hour < 0 || hour > 23 || value.charAt(p + 13) != ':' || minute < 0 || minute > 59) {
      return null;
    }
    p += 16;
    int second = 0;
    int nanos = 0;
    if (p < to && value.charAt(p) == ':') {
      second = twoDigits(value, p + 1, Math.min(p + 3, to));
      if (second < 0 || second > 60 || p + 3 > to) {
        return null;
      }
      second = Math.min(second, 59);
      p += 3;
      if (p < to && (value.charAt(p) == '.' || value.charAt(p) == ',')) {
        int fractionEnd = digitsEnd(value, p + 1);
        if (fractionEnd == p + 1 || fractionEnd > to) {
          return null;
        }
        int scale = 100_000_000;
        for (int i = p + 1; i < fractionEnd && scale > 0; i++) {
          nanos += (value.charAt(i) - '0') * scale;
          scale /= 10;
        }
        p = fractionEnd;
      }
    }
    int offsetSeconds;
    if (p == to) {
      offsetSeconds = 0;
    } else if (p + 1 == to && (value.charAt(p) == 'Z' || value.charAt(p) == 'z')) {
      offsetSeconds = 0;
    } else if (value.charAt(p) == '+' || value.charAt(p) == '-') {
      offsetSeconds = offset(value, p, to);
      if (offsetSeconds == Integer.MIN_VALUE) {
        return null;
      }
    } else {
      return null;
    }
    long epochSecond = epochDay(year, month, day) * 86_400 + hour * 3600L + minute * 60L + second
        - offsetSeconds;
    return Instant.ofEpochSecond(epochSecond, nanos);
  }

  /** Parses {@code ±hhmm} or {@code ±hh:mm} in {@code [from, to)}; MIN_VALUE if malformed. */
  private static int offset(String value, int from, int to) {
    int sign = value.charAt(from) == '-' ? -1 : 1;
    int hours;
    int minutes;
    if (to - from == 5) {
      hours = twoDigits(value, from + 1, from + 3);
      minutes = twoDigits(value, from + 3, from + 5);
    } else if (to - from == 6 && value.charAt(from + 3) == ':') {
      hours = twoDigits(value, from + 1, from + 3);
      minutes = twoDigits(value, from + 4, from + 6);
    } else {
      return Integer.MIN_VALUE;
    }
    if (hours < 0 || hours > 18 || minutes < 0 || minutes > 59) {
      return Integer.MIN_VALUE;
    }
    return sign * (hours * 3600 + minutes * 60);
  }

  private static int twoDigits(String value, int from, int to) {
    if (to - from < 1 || to - from > 2 || to > value.length()) {
      return -1;
    }
    long n = ValueScanning.digits(value, from, to);
    return n < 0 ? -1 : (int) n;
  }

  private static int digitsEnd(String value, int from) {
    int i = from;
    while (i < value.length() && isDigit(value.charAt(i))) {
      i++;
    }
    return i;
  }

  private static int monthIndex(String value, int from) {
    for (int m = 0; m < 12; m++) {
      if (value.regionMatches(true, from, MONTHS, m * 3, 3)) {
        return m;
      }
    }
    return -1;
  }

  private static boolean isWeekday(String value, int from, int to) {
    if (to - from < 3 || to - from > 9) {
      return false;
    }
    String[] days = {"mon", "tue", "wed", "thu", "fri", "sat", "sun"};
    for (String d : days) {
      if (value.regionMatches(true, from, d, 0, 3)) {
        return true;
      }
    }
    return false;
  }

  private static boolean regionIs(String value, int from, int to, String lower) {
    return to - from == lower.length() && value.regionMatches(true, from, lower, 0, to - from);
  }

  private static boolean isLetter(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }

  private static int daysInMonth(long year, int month) {
    switch (month) {
      case 2:
        boolean leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
        return leap ? 29 : 28;
      case 4:
      case 6:
      case 9:
      case 11:
        return 30;
      default:
        return month >= 1 && month <= 12 ? 31 : 0;
    }
  }

  /** Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm). */
  private static long epochDay(long year, int month, int day) {
    long y = month <= 2 ? year - 1 : year;
    long era = (y >= 0 ? y : y - 399) / 400;
    long yearOfEra = y - era * 400;
    long dayOfYear = (153L * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
    long dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear;
    return era * 146_097 + dayOfEra - 719_468;
  }
}
