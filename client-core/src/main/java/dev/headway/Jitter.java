package dev.headway;

import dev.headway.internal.pacer.Jitters;
import java.time.Duration;
import java.util.random.RandomGenerator;

/**
 * Randomness added to waits so that many clients told the same time do not all come back at the
 * same instant (draft section 8.5; the "thundering herd").
 *
 * <p>Two uses:
 *
 * <ul>
 *   <li>{@link #backoff}: a delay Headway computed itself (exponential backoff when the server
 *       gave no time) is replaced by a random one, as in the usual "full", "equal" and
 *       "decorrelated" jitter;
 *   <li>{@link #extra}: a time the server gave ({@code Retry-After}, a reset) is never shortened;
 *       the jitter only adds to it, at most {@code spread}.
 * </ul>
 *
 * <p>Seed the pacer's random generator with {@link Pacer.Builder#jitterSeed(long)} for
 * reproducible runs. Implementations must be thread-safe.
 */
public interface Jitter {
  /**
   * Returns the delay to use instead of the computed backoff {@code computed}.
   *
   * @param computed the exponential backoff for this attempt, positive
   * @param previous the backoff of the previous attempt ({@code computed / 2} on the first)
   * @param random the pacer's random generator; use it only during this call (without a seed it
   *     is the calling thread's own)
   * @return a delay, not negative and not more than three times {@code computed}
   */
  Duration backoff(Duration computed, Duration previous, RandomGenerator random);

  /**
   * Returns how much to add to a time the server gave.
   *
   * @param spread the most that may be added, not negative
   * @param random the pacer's random generator; use it only during this call (without a seed it
   *     is the calling thread's own)
   * @return a duration in {@code [0, spread]}
   */
  Duration extra(Duration spread, RandomGenerator random);

  /**
   * Returns no jitter: backoffs are used as computed, server times as given.
   *
   * @return the shared no-jitter instance
   */
  static Jitter none() {
    return Jitters.NONE;
  }

  /**
   * Returns "full" jitter: a backoff {@code d} becomes uniform in {@code [0, d]}; a server time
   * gets uniform {@code [0, spread]} added. The default.
   *
   * @return the shared full-jitter instance
   */
  static Jitter full() {
    return Jitters.FULL;
  }

  /**
   * Returns "equal" jitter: a backoff {@code d} becomes uniform in {@code [d/2, d]}; a server
   * time gets uniform {@code [0, spread/2]} added.
   *
   * @return the shared equal-jitter instance
   */
  static Jitter equal() {
    return Jitters.EQUAL;
  }

  /**
   * Returns "decorrelated" jitter: a backoff becomes uniform between {@code computed} / 2 and
   * three times the previous backoff, at most three times {@code computed}; a server time gets
   * uniform {@code [0, spread]} added.
   *
   * @return the shared decorrelated-jitter instance
   */
  static Jitter decorrelated() {
    return Jitters.DECORRELATED;
  }
}
