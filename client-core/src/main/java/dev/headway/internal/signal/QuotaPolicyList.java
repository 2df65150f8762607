package dev.headway.internal.signal;

import dev.headway.SignalWarning;
import dev.headway.dialect.FieldValues;
import dev.headway.dialect.SignalSink;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;

/**
 * A lenient parser for the quota-policy lists of draft-polli-02 and ietf -00..-07
 * ({@code 10, 10;w=1;burst=1000, 1000;w=3600}, {@code 100;w=60;comment="fixed window"}), Docker
 * Hub's {@code 76;w=21600} and Envoy's {@code 1;w=60;name="first"}: members are separated by
 * commas (outside quoted strings); each is an integer followed by {@code ;key=value} parameters,
 * with optional whitespace anywhere the ABNF allows it. Only {@code w} and {@code name} are kept.
 *
 * <p>A malformed member is skipped with a warning; the others are kept. Members that start with
 * a quote or a letter (draft -08 policy names) are skipped silently. Linear in the input.
 */
final class QuotaPolicyList {
  /**
   * One member: a quota, its window in seconds (or -1), Envoy's {@code name} (or null), and the
   * lower-cased name of the field it was read from.
   */
  record Member(long quota, long windowSeconds, @Nullable String name, String field) {}

  private QuotaPolicyList() {}

  /** Returns the members, in order; an empty list (allocating nothing) if there are none. */
  static List<Member> parse(String field, String value, SignalSink sink) {
    return parse(field, value, false, sink);
  }

  /**
   * Returns the members, in order. With {@code othersReported}, a member that does not start
   * with a digit or a sign is skipped silently: the field's structured reader already reported
   * it (one warning per problem, not two).
   */
  static List<Member> parse(String field, String value, boolean othersReported,
      SignalSink sink) {
    List<Member> members = List.of();
    int length = value.length();
    int start = 0;
    while (start <= length && members.size() < SignalCollector.MAX_ITEMS) {
      int end = memberEnd(value, start);
      Member member = member(field, value, start, end, othersReported, sink);
      if (member != null) {
        if (members.isEmpty()) {
          members = new ArrayList<>(2);
        }
        members.add(member);
      }
      start = end + 1;
    }
    if (start <= length) {
      sink.warn(field, SignalWarning.Kind.DROPPED,
          "members past the first " + SignalCollector.MAX_ITEMS + " ignored");
    }
    return members;
  }

  /** Returns the index of the comma ending the member at {@code start}, or the length. */
  private static int memberEnd(String value, int start) {
    boolean quoted = false;
    for (int i = start; i < value.length(); i++) {
      char c = value.charAt(i);
      if (quoted) {
        if (c == '\\') {
          i++;
        } else if (c == '"') {
          quoted = false;
        }
      } else if (c == '"') {
        quoted = true;
      } else if (c == ',') {
        return i;
      }
    }
    return value.length();
  }

  private static @Nullable Member member(String field, String value, int from, int to,
      boolean othersReported, SignalSink sink) {
    while (from < to && isSpace(value.charAt(from))) {
      from++;
    }
    while (to > from && isSpace(value.charAt(to - 1))) {
      to--;
    }
    if (from == to) {
      return null; // empty member, e.g. a trailing comma
    }
    char first = value.charAt(from);
    if (first == '"' || (first >= 'a' && first <= 'z') || (first >= 'A' && first <= 'Z')) {
      return null; // a draft -08 policy name: not ours
    }
    if (othersReported && !(first >= '0' && first <= '9') && first != '-' && first != '+') {
      return null;
    }
    int semicolon = indexOf(value, ';', from, to);
    int quotaEnd = semicolon < 0 ? to : semicolon;
    String quotaText = value.substring(from, quotaEnd);
    OptionalLong quota = FieldValues.count(field, quotaText, sink);
    if (quota.isEmpty()) {
      return null;
    }
    long window = -1;
    String name = null;
    int p = semicolon;
    while (p >= 0 && p < to) {
      int next = indexOfOutsideQuotes(value, p + 1, to);
      int paramEnd = next < 0 ? to : next;
      int eq = indexOf(value, '=', p + 1, paramEnd);
      if (eq > 0) {
        String key = value.substring(p + 1, eq).trim();
        String paramValue = value.substring(eq + 1, paramEnd).trim();
        if (key.equals("w")) {
          OptionalLong w = FieldValues.count(field, paramValue, sink);
          if (w.isPresent() && w.getAsLong() > 0) {
            window = w.getAsLong();
          } else if (w.isPresent()) {
            sink.warn(field, SignalWarning.Kind.DROPPED, "w=0 ignored (must be positive)");
          }
        } else if (key.equals("name")) {
          name = unquote(paramValue);
        }
      }
      p = next;
    }
    return new Member(quota.getAsLong(), window, name, field);
  }

  private static String unquote(String value) {
    if (value.length() >= 2 && value.charAt(0) == '"' && value.charAt(value.length() - 1) == '"') {
      return value.substring(1, value.length() - 1);
    }
    return value;
  }

  private static int indexOf(String value, char c, int from, int to) {
    for (int i = from; i < to; i++) {
      if (value.charAt(i) == c) {
        return i;
      }
    }
    return -1;
  }

  private static int indexOfOutsideQuotes(String value, int from, int to) {
    boolean quoted = false;
    for (int i = from; i < to; i++) {
      char c = value.charAt(i);
      if (quoted) {
        if (c == '\\') {
          i++;
        } else if (c == '"') {
          quoted = false;
        }
      } else if (c == '"') {
        quoted = true;
      } else if (c == ';') {
        return i;
      }
    }
    return -1;
  }

  private static boolean isSpace(char c) {
    return c == ' ' || c == '\t';
  }
}
