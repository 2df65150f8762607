package dev.headway.internal.signal;

import java.time.Duration;
import java.util.Optional;

/**
 * Shared {@code Optional<Duration>} values of whole seconds, so that the windows and resets most
 * responses carry ({@code w=60}, {@code t=30}) are not two new objects per response.
 *
 * <p>Values from 0 to {@link #MAX_CACHED_SECONDS} seconds are created on first use and kept; a
 * slot is written without a lock because what it holds is immutable (two threads may both create
 * one, and either is correct). Thread-safe.
 */
public final class Durations {
  /** Whole-second values up to this one (an hour) are cached. */
  public static final int MAX_CACHED_SECONDS = 3_600;

  private static final Object[] SECONDS = new Object[MAX_CACHED_SECONDS + 1];

  private Durations() {}

  /** Returns {@code Optional.of(Duration.ofSeconds(seconds))}, shared when small. */
  @SuppressWarnings("unchecked")
  public static Optional<Duration> ofSeconds(long seconds) {
    if (seconds < 0 || seconds > MAX_CACHED_SECONDS) {
      return Optional.of(Duration.ofSeconds(seconds));
    }
    Object cached = SECONDS[(int) seconds];
    if (cached == null) {
      cached = Optional.of(Duration.ofSeconds(seconds));
      SECONDS[(int) seconds] = cached;
    }
    return (Optional<Duration>) cached;
  }
}
