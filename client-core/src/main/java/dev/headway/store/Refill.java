package dev.headway.store;

import java.time.Duration;
import java.time.Instant;

/**
 * The rule every store applies to a count of a key with a {@link RefillRate} (a server that gives
 * units back continuously: token bucket, GCRA, sliding window): the count grows by the rate from
 * the instant it holds for, up to the quota, instead of coming back all at once at its reset. A
 * count of such a key is believed until one period after the later of its reset and one period
 * after its instant (by then the whole quota is back), and a lease taken from it is not cut at the
 * reset (which for these servers says only when the whole quota is back). Stateless.
 */
final class Refill {
  private Refill() {}

  /**
   * Returns the units of {@code count} at {@code now}: its remaining units plus those the rate
   * gave back since its instant (whole units), at most the quota (the count's, else the rate's);
   * the remaining units alone without a rate.
   */
  static long level(ServerCount count, RefillRate rate, Instant now) {
    return level(count, rate, -1, now);
  }

  /**
   * As {@link #level(ServerCount, RefillRate, Instant)}, growing to at most {@code full} (if not
   * negative; see {@link #full}) rather than the whole quota.
   */
  static long level(ServerCount count, RefillRate rate, long full, Instant now) {
    if (rate == null || !now.isAfter(count.observedAt())) {
      return count.remaining();
    }
    double elapsed = Duration.between(count.observedAt(), now).toNanos();
    double back = Math.floor(elapsed * rate.units() / rate.period().toNanos());
    long cap = Math.max(count.remaining(), count.quota().orElse(rate.units()));
    if (full >= 0) {
      cap = Math.max(count.remaining(), Math.min(cap, full));
    }
    return (long) Math.min(cap, count.remaining() + Math.min(back, ServerCount.MAX_UNITS));
  }

  /**
   * Returns the units {@code count} says the server holds once all is back, or -1: its remaining
   * units plus what {@code rate} gives back until its reset (a refilling server's reset is when
   * all of it is back), at most its quota. A GCRA or a token bucket holds its burst, which may be
   * far below the quota per window; a store keeps the most any count of the key showed (a
   * sliding window's count near the end of its fixed window shows little) and grows a count to
   * no more, so that a fleet idle for a while is not lent more than the server has.
   */
  static long full(ServerCount count, RefillRate rate) {
    if (rate == null || count.resetAt().isEmpty()
        || !count.resetAt().get().isAfter(count.observedAt())) {
      return -1;
    }
    double until = Duration.between(count.observedAt(), count.resetAt().get()).toNanos();
    double back = Math.floor(until * rate.units() / rate.period().toNanos());
    long cap = Math.max(count.remaining(), count.quota().orElse(rate.units()));
    return (long) Math.min(cap, count.remaining() + Math.min(back, ServerCount.MAX_UNITS));
  }

  /**
   * Returns the units of {@code count}, less {@code taken}, at {@code now}: {@link #level} less
   * the units taken; for a {@linkplain #bucket bucket}, its {@linkplain #credit credit}, at most
   * its quota.
   */
  static long available(ServerCount count, RefillRate rate, long taken, Instant now) {
    return available(count, rate, -1, taken, now);
  }

  /**
   * As {@link #available(ServerCount, RefillRate, long, Instant)}, growing to at most {@code
   * full}.
   */
  static long available(ServerCount count, RefillRate rate, long full, long taken, Instant now) {
    if (!bucket(count, rate)) {
      return Math.max(0, level(count, rate, full, now) - taken);
    }
    return Math.max(0, Math.min(bucketCap(count), credit(count, rate, taken, now)));
  }

  /**
   * Returns the credit of a bucket at {@code now}: its remaining units plus those back since its
   * instant, less those taken (uncapped: a store moves a bucket whose credit passed its quota to
   * {@code now}, with its quota left, so that units not used do not pile up).
   */
  static long credit(ServerCount count, RefillRate rate, long taken, Instant now) {
    long grown = count.remaining();
    if (now.isAfter(count.observedAt())) {
      double elapsed = Duration.between(count.observedAt(), now).toNanos();
      double back = Math.floor(elapsed * rate.units() / rate.period().toNanos());
      grown += (long) Math.min(back, ServerCount.MAX_UNITS);
    }
    return grown - taken;
  }

  /** The most units a bucket holds: its quota (or its remaining units, if more). */
  static long bucketCap(ServerCount count) {
    return Math.max(count.remaining(), count.quota().getAsLong());
  }

  /**
   * Whether {@code count} with {@code rate} is a bucket: a quota and a rate, no reset (nothing
   * comes back all at once; what is left is at most the quota, whatever was not used).
   */
  static boolean bucket(ServerCount count, RefillRate rate) {
    return rate != null && count.resetAt().isEmpty() && count.quota().isPresent();
  }

  /**
   * Returns when {@code count} of a refilling key stops being believed: one period after the
   * later of its reset and one period after its instant.
   */
  static Instant believedUntil(ServerCount count, RefillRate rate) {
    Instant full = count.observedAt().plus(rate.period());
    Instant end = count.resetAt().isPresent() && count.resetAt().get().isAfter(full)
        ? count.resetAt().get() : full;
    return end.plus(rate.period());
  }

  /**
   * Returns the earliest instant at which {@code units} of {@code count}, less {@code taken},
   * are there at {@code rate}; null if the quota can never hold them (until taken units go).
   */
  static Instant backAt(ServerCount count, long taken, long units, RefillRate rate) {
    long cap = Math.max(count.remaining(), count.quota().orElse(rate.units()));
    long needed = units + taken;
    if (bucket(count, rate) ? units > cap : needed > cap) {
      return null;
    }
    long missing = needed - count.remaining();
    if (missing <= 0) {
      return count.observedAt();
    }
    double nanos = Math.ceil((double) missing * rate.period().toNanos() / rate.units());
    return count.observedAt().plusNanos((long) Math.min(nanos, Duration.ofDays(366).toNanos()));
  }

  /**
   * Returns the units a server giving {@code window}'s quota back evenly over its window has
   * given back between the start of {@code window} (a count the store started itself at a reset,
   * its instant the window's start) and {@code now}; the quota without a window.
   */
  static long backSinceStart(ServerCount window, Instant now) {
    if (window.quota().isEmpty() || window.window().isEmpty()) {
      return window.remaining();
    }
    if (!now.isAfter(window.observedAt())) {
      return 0;
    }
    double elapsed = Duration.between(window.observedAt(), now).toNanos();
    double back = Math.floor(elapsed * window.quota().getAsLong() / window.window().get().toNanos());
    return (long) Math.min(back, ServerCount.MAX_UNITS);
  }

  /**
   * Whether {@code first}, the first count a server reported of the window the store started
   * itself as {@code assumed} (carried by one of its probes), shows the server gave at least half
   * its quota back at the reset: a server that restores its quota at its reset.
   */
  static boolean shownWhole(ServerCount assumed, ServerCount first) {
    long quota = first.quota().orElse(assumed.quota().orElse(0));
    return quota > 0 && first.remaining() >= quota / 2;
  }

  /**
   * Returns the rate that {@code first}, the first count a server reported of the window the store
   * started itself as {@code assumed}, shows, or null: a server that gave back less than half its
   * quota at the reset (a count resetting more than half a window after the window started;
   * before it, the fleet had only the new window's probes) does not
   * restore the whole quota at its reset, it gives units back continuously (a sliding window's
   * reset is the end of its fixed window, while the previous window still weighs): the quota per
   * window, from {@code now}. The same rule as a single pacer's, which sees the count rise
   * before the reset; a fleet, spent until the reset, never looks before it. The store asks only
   * of a count carried by one of the window's probes (a request it lent from {@code assumed}):
   * units sent outside its leases (an instance pacing alone while the store was down) would make
   * a fixed window look like one that refills.
   */
  static RefillRate shownBy(ServerCount assumed, ServerCount first, Instant now) {
    long quota = first.quota().orElse(assumed.quota().orElse(0));
    java.util.Optional<Duration> window = first.window().or(assumed::window);
    if (quota < 2 || window.isEmpty() || first.remaining() >= quota / 2) {
      return null;
    }
    // Of the new window: it resets more than half a window after that window started (resets
    // come rounded to whole seconds, so instants near the start tell nothing).
    Instant half = assumed.observedAt().plus(window.get().dividedBy(2));
    if (first.resetAt().isEmpty() || !first.resetAt().get().isAfter(half)) {
      return null;
    }
    return new RefillRate(quota, window.get(), now);
  }
}
