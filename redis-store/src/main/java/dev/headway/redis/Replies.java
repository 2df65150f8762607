package dev.headway.redis;

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
 * number or out of bounds is dropped (reported to {@code nonsense}), never thrown.
 */
final class Replies {
  static final int FIELDS = 15;
  private static final long MAX_MILLIS = 253_402_300_799_999L; // 9999-12-31
  private static final long MAX_WINDOW_MILLIS = Duration.ofDays(366).toMillis();
  private static final int MAX_INSTANCES = 1_000_000;

  private Replies() {}

  /** A parsed reply: the shared state, the units granted and until when. */
  record Reply(SharedQuota state, long granted, Instant validUntil, String warnings) {}

  static Reply parse(QuotaKey key, Object raw, Instant now, Consumer<String> nonsense) {
    if (!(raw instanceof List<?> list) || list.size() != FIELDS || !"1".equals(text(list, 0))) {
      nonsense.accept("unexpected reply " + abbreviate(String.valueOf(raw)));
      return new Reply(SharedQuota.empty(key, 1), 0, now, "");
    }
    Field f = new Field(list, nonsense);
    Optional<ServerCount> count = Optional.empty();
    OptionalLong remaining = f.number(1, 0, ServerCount.MAX_UNITS);
    OptionalLong observed = f.number(2, 0, MAX_MILLIS);
    if (remaining.isPresent() && observed.isPresent()) {
      OptionalLong window = f.number(5, 1, MAX_WINDOW_MILLIS);
      count = Optional.of(new ServerCount(remaining.getAsLong(),
          Instant.ofEpochMilli(observed.getAsLong()),
          instant(f.number(3, 0, MAX_MILLIS)), f.number(4, 1, ServerCount.MAX_UNITS),
          window.isPresent() ? Optional.of(Duration.ofMillis(window.getAsLong()))
              : Optional.empty()));
    }
    long taken = f.number(6, 0, ServerCount.MAX_UNITS).orElse(0);
    Optional<Instant> hold = instant(f.number(7, 0, MAX_MILLIS));
    Optional<RefillRate> rate = Optional.empty();
    OptionalLong units = f.number(8, 1, ServerCount.MAX_UNITS);
    OptionalLong period = f.number(9, 1, MAX_WINDOW_MILLIS);
    OptionalLong learned = f.number(10, 0, MAX_MILLIS);
    if (units.isPresent() && period.isPresent() && learned.isPresent()) {
      rate = Optional.of(new RefillRate(units.getAsLong(), Duration.ofMillis(period.getAsLong()),
          Instant.ofEpochMilli(learned.getAsLong())));
    }
    int instances = (int) f.number(11, 1, MAX_INSTANCES).orElse(1);
    long granted = f.number(12, 0, ServerCount.MAX_UNITS).orElse(0);
    Instant validUntil = instant(f.number(13, 0, MAX_MILLIS)).orElse(now);
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
    return s.length() <= 120 ? s : s.substring(0, 120) + "...";
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
  }
}
