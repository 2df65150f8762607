package dev.headway.internal.pacer;

import dev.headway.HttpFields;
import dev.headway.dialect.FieldValues;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * One server's clock as its {@code Date} fields show it, finer than they say. A {@code Date} is
 * a whole second: measured from it, an epoch reset (koa-ratelimit's fractional
 * {@code X-RateLimit-Reset}, Flask-Limiter's) is read up to a second late. But each answer bounds
 * the server's clock: when it wrote its {@code Date} it was at least that second, and it wrote it
 * before the answer arrived, so the server's time less the pacer's is at least {@code Date} less
 * the arrival. The highest such bound over the answers (they arrive at every phase of the
 * server's second) comes within a round trip of the truth from below; the server's time at an
 * answer is taken as its arrival plus that bound, never past the truth, so a reset measured from
 * it is never early. The bound is lowered by a millisecond a second (clocks drift), and replaced
 * when an answer contradicts it (the server's clock was set back). Part of a partition; its own
 * lock (it is read before the partition's monitor is taken).
 */
final class ServerClock {
  private static final long SECOND = 1_000_000_000L;

  private boolean known;
  /** The server's epoch nanoseconds less the pacer's ticker: the highest lower bound found. */
  private long offsetNanos;
  /** When that bound was found (ticker). */
  private long foundAtNanos;

  /**
   * Returns the server's time when it answered a request sent at {@code sentNanos} with
   * {@code headers}, arriving at {@code receivedNanos} (ticker), as the answers so far bound it;
   * null if the answer has no valid {@code Date}.
   */
  synchronized @Nullable Instant serverNow(HttpFields headers, long sentNanos,
      long receivedNanos) {
    List<String> dates = headers.values("date");
    if (dates.isEmpty()) {
      return null;
    }
    Optional<Instant> date = FieldValues.httpDate(dates.get(0));
    if (date.isEmpty()) {
      return null;
    }
    long dateNanos = Time.mul(date.get().getEpochSecond(), SECOND);
    long low = Time.sub(dateNanos, receivedNanos);
    long high = Time.sub(Time.add(dateNanos, SECOND), Math.min(sentNanos, receivedNanos));
    long kept = known ? offsetNanos - Math.max(0, receivedNanos - foundAtNanos) / 1000
        : Long.MIN_VALUE;
    if (!known || low >= kept || kept >= high) {
      offsetNanos = low;
      foundAtNanos = receivedNanos;
      known = true;
      kept = low;
    }
    long now = Time.add(receivedNanos, kept);
    return Instant.ofEpochSecond(Math.floorDiv(now, SECOND), Math.floorMod(now, SECOND));
  }
}
