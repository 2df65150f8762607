package dev.headway.internal.pacer;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * What a partition's answers said of the server's clock. A {@code Date} field names the second
 * the server answered in, so a reset measured from it (an epoch reset, an HTTP-date) is up to a
 * second long: waited for, every window a server opens at its first request starts up to a second
 * late. But the server's clock read at least the {@code Date} when it answered, and it answered
 * before the answer arrived, so each answer bounds the offset between the server's clock and the
 * pacer's ticker from below: {@code Date − arrival}. The largest of these over the last half minute or more
 * (answers arriving just after the server's second turned are nearly exact) is the offset at
 * least; a later answer's server clock read at least its request's send plus that offset, which
 * {@link dev.headway.dialect.DialectContext#exactNow()} uses when it falls inside the answer's second.
 * Measured against the monotonic ticker, a step of the local wall clock changes nothing; the
 * bound is forgotten after 30 to 60 seconds, so a server whose clock stepped back is believed
 * again soon. Thread-safe (its own tiny monitor: answers are read outside the partition's).
 */
final class ServerClock {
  /** The bound is the largest of the samples of this half and the one before. */
  private static final long HALF_NANOS = 30_000_000_000L;
  private static final long NANOS_PER_SECOND = 1_000_000_000L;
  private static final long NONE = Long.MIN_VALUE;

  private long halfStartNanos = NONE;
  private long currentLowNanos = NONE;
  private long previousLowNanos = NONE;

  /**
   * An answer with a {@code Date} of {@code date} to a request sent at ticker {@code sentNanos}
   * arrived at ticker {@code arrivedNanos}. An answer whose second ended before the bound says
   * the server's clock read when it answered came from another clock (another backend behind
   * the origin, a clock stepped back): the bound is learned again from it.
   */
  synchronized void answered(Instant date, long sentNanos, long arrivedNanos) {
    long dateNanos = Time.add(Time.mul(date.getEpochSecond(), NANOS_PER_SECOND), date.getNano());
    long sample = Time.sub(dateNanos, arrivedNanos);
    rotate(arrivedNanos);
    long low = Math.max(currentLowNanos, previousLowNanos);
    if (low != NONE && Time.add(sentNanos, low) >= Time.add(dateNanos, NANOS_PER_SECOND)) {
      previousLowNanos = NONE;
      currentLowNanos = NONE;
    }
    currentLowNanos = Math.max(currentLowNanos, sample);
  }

  /**
   * The earliest the server's clock can have read when it answered a request sent at ticker
   * {@code sentNanos}, at ticker {@code nowNanos}; null if no answer said anything yet.
   */
  synchronized @Nullable Instant atLeast(long sentNanos, long nowNanos) {
    rotate(nowNanos);
    long low = Math.max(currentLowNanos, previousLowNanos);
    if (low == NONE) {
      return null;
    }
    long at = Time.add(sentNanos, low);
    if (at == Long.MIN_VALUE || at == Long.MAX_VALUE || at < 0) {
      return null;
    }
    return Instant.ofEpochSecond(at / NANOS_PER_SECOND, at % NANOS_PER_SECOND);
  }

  private void rotate(long nowNanos) {
    if (halfStartNanos == NONE) {
      halfStartNanos = nowNanos;
      return;
    }
    long since = nowNanos - halfStartNanos;
    if (since >= 2 * HALF_NANOS) {
      previousLowNanos = NONE;
      currentLowNanos = NONE;
      halfStartNanos = nowNanos;
    } else if (since >= HALF_NANOS) {
      previousLowNanos = currentLowNanos;
      currentLowNanos = NONE;
      halfStartNanos = nowNanos;
    }
  }
}
