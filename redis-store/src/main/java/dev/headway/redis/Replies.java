package dev.headway.redis;

import dev.headway.SanityCaps;
import dev.headway.store.Lease;
import dev.headway.store.QuotaKey;
import dev.headway.store.RefillRate;
import dev.headway.store.ServerCount;
import dev.headway.store.SharedQuota;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Consumer;

/**
 * Reads the script's reply into values, as warily as a header: a field that is missing, not a
 * number or out of bounds is dropped (reported to {@code nonsense}), never thrown. Instants are
 * bounded relative to {@code now}, with the caps a server's own values get ({@link
 * SanityCaps#defaults()}): a hold and a lease's end at most {@code maxRetryAfter} (a day) ahead,
 * a reset at most {@code maxReset} (a day) or the count's window ahead, both capped as a server's
 * would be; a count observed or a rate learned more than a minute ahead (clock skew) or a count
 * observed further back than any stays in force, or a rate older than a day (over), is dropped.
 * So the pacer never sees an instant whose distance from now overflows nanoseconds.
 */
final class Replies {
  static final int FIELDS = 15;
  private static final long MAX_MILLIS = 253_402_300_799_999L; // 9999-12-31
  private static final SanityCaps CAPS = SanityCaps.defaults();
  private static final long MAX_WINDOW_MILLIS = CAPS.maxWindow().toMillis();
  /** How far ahead a hold, or the end of a lease, is believed. */
  static final long MAX_HOLD_MILLIS = CAPS.maxRetryAfter().toMillis();
  /** How far ahead a reset is believed without a longer window. */
  static final long MAX_RESET_MILLIS = CAPS.maxReset().toMillis();
  /** The clock skew between instances tolerated: an instant this far past a cap is not nonsense. */
  static final long SKEW_MILLIS = 60_000;
  /** How long a learned rate lasts (the script's and the in-memory store's). */
  static final long RATE_MILLIS = Duration.ofDays(1).toMillis();
  /**
   * The furthest back a count in force can have been observed: a window and a rate's period
   * (each at most a window) after it, with a day's slack.
   */
  static final long MAX_AGE_MILLIS = 2 * MAX_WINDOW_MILLIS + Duration.ofDays(1).toMillis();
  private static final int MAX_INSTANCES = 1_000_000;
  /** The longest excerpt of a value Redis held that a log line carries. */
  static final int MAX_EXCERPT = 300;

  private Replies() {}

  /** A parsed reply: the shared state, the units granted and until when. */
  record Reply(SharedQuota state, long granted, Instant validUntil, String warnings) {}

  static Reply parse(QuotaKey key, Object raw, Instant now, Consumer<String> nonsense) {
    if (!(raw instanceof List<?> list) || list.size() != FIELDS || !"1".equals(text(list, 0))) {
      nonsense.accept("unexpected reply " + abbreviate(String.valueOf(raw)));
      return new Reply(SharedQuota.empty(key, 1), 0, now, "");
    }
    Field f = new Field(list, nonsense);
    long nowMillis = clampMillis(now);
    Optional<ServerCount> count = Optional.empty();
    OptionalLong remaining = f.number(1, 0, ServerCount.MAX_UNITS);
    OptionalLong observed = f.number(2, Math.max(0, nowMillis - MAX_AGE_MILLIS),
        nowMillis + SKEW_MILLIS);
    if (remaining.isPresent() && observed.isPresent()) {
      OptionalLong window = f.number(5, 1, MAX_WINDOW_MILLIS);
      long farthestReset = nowMillis + Math.max(MAX_RESET_MILLIS, window.orElse(0));
      count = Optional.of(new ServerCount(remaining.getAsLong(),
          Instant.ofEpochMilli(observed.getAsLong()),
          instant(f.capped(3, farthestReset, "reset")), f.number(4, 1, ServerCount.MAX_UNITS),
          window.isPresent() ? Optional.of(Duration.ofMillis(window.getAsLong()))
              : Optional.empty()));
    }
    long taken = f.number(6, 0, ServerCount.MAX_UNITS).orElse(0);
    Optional<Instant> hold = instant(f.capped(7, nowMillis + MAX_HOLD_MILLIS, "hold"));
    Optional<RefillRate> rate = Optional.empty();
    OptionalLong units = f.number(8, 1, ServerCount.MAX_UNITS);
    OptionalLong period = f.number(9, 1, MAX_WINDOW_MILLIS);
    OptionalLong learned = f.number(10, Math.max(0, nowMillis - RATE_MILLIS + 1),
        nowMillis + SKEW_MILLIS);
    if (units.isPresent() && period.isPresent() && learned.isPresent()) {
      rate = Optional.of(new RefillRate(units.getAsLong(), Duration.ofMillis(period.getAsLong()),
          Instant.ofEpochMilli(learned.getAsLong())));
    }
    int instances = (int) f.number(11, 1, MAX_INSTANCES).orElse(1);
    long granted = f.number(12, 0, ServerCount.MAX_UNITS).orElse(0);
    Instant validUntil = instant(f.capped(13, nowMillis + MAX_HOLD_MILLIS, "validUntil"))
        .orElse(now);
    String warnings = text(list, 14);
    return new Reply(new SharedQuota(key, count, taken, hold, rate, instances), granted,
        validUntil, warnings);
  }

  static Lease lease(QuotaKey key, String id, Reply reply) {
    return new Lease(key, id, reply.granted(), reply.validUntil(), reply.state());
  }

  private static Optional<Instant> instant(OptionalLong millis) {
    return millis.isPresent() ? Optional.of(Instant.ofEpochMilli(millis.getAsLong()))
        : Optional.empty();
  }

  private static String text(List<?> list, int index) {
    Object o = list.get(index);
    return o == null ? "" : o.toString();
  }

  static String abbreviate(String s) {
    return excerpt(s, 120);
  }

  /**
   * Returns a short, printable excerpt of {@code s} (something Redis held, which any client
   * could have written): at most {@code max} characters, each outside printable ASCII shown as
   * {@code ?}, and the length of the whole if cut.
   */
  static String excerpt(String s, int max) {
    int n = Math.min(s.length(), max);
    StringBuilder out = new StringBuilder(n + 24);
    for (int i = 0; i < n; i++) {
      char ch = s.charAt(i);
      out.append(ch >= 0x20 && ch < 0x7f ? ch : '?');
    }
    if (s.length() > max) {
      out.append("...(").append(s.length()).append(" characters)");
    }
    return out.toString();
  }

  private static long clampMillis(Instant now) {
    try {
      return Math.max(0, Math.min(now.toEpochMilli(), MAX_MILLIS));
    } catch (ArithmeticException e) {
      return now.isBefore(Instant.EPOCH) ? 0 : MAX_MILLIS;
    }
  }

  private static final class Field {
    private final List<?> list;
    private final Consumer<String> nonsense;

    Field(List<?> list, Consumer<String> nonsense) {
      this.list = list;
      this.nonsense = nonsense;
    }

    OptionalLong number(int index, long min, long max) {
      String s = text(list, index);
      if (s.isEmpty()) {
        return OptionalLong.empty();
      }
      if (s.length() > 19 || !s.chars().allMatch(c -> c >= '0' && c <= '9')) {
        nonsense.accept("reply field " + index + " is not a number: " + abbreviate(s));
        return OptionalLong.empty();
      }
      long value = Long.parseLong(s);
      if (value < min || value > max) {
        nonsense.accept("reply field " + index + " out of bounds: " + s);
        return OptionalLong.empty();
      }
      return OptionalLong.of(value);
    }

    /**
     * An instant at most {@code cap}: one past it is capped to it (as a server's value past its
     * cap is), and reported unless within the clock skew tolerated.
     */
    OptionalLong capped(int index, long cap, String name) {
      OptionalLong value = number(index, 0, MAX_MILLIS);
      if (value.isEmpty() || value.getAsLong() <= cap) {
        return value;
      }
      if (value.getAsLong() > cap + SKEW_MILLIS) {
        nonsense.accept(name + " " + (value.getAsLong() - cap) + " ms past its cap: capped");
      }
      return OptionalLong.of(cap);
    }
  }
}
