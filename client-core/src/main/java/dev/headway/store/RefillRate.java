package dev.headway.store;

import dev.headway.SanityCaps;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * A refill rate a pacer learned from outcomes (where a server says only {@code Retry-After} or
 * sends bare 429s): {@code units} every {@code period}, learned at {@code learnedAt}. A store
 * keeps the most recently learned rate of each key.
 *
 * <p>Immutable and thread-safe.
 *
 * @param units units per period; 1 to 10<sup>12</sup>
 * @param period the period; positive, at most 366 days
 * @param learnedAt when the rate was learned
 */
public record RefillRate(long units, Duration period, Instant learnedAt) {
  /**
   * Validates the components.
   *
   * @param units units per period; 1 to 10<sup>12</sup>
   * @param period the period; positive, at most 366 days
   * @param learnedAt when the rate was learned
   * @throws IllegalArgumentException if a value is out of the bounds above
   */
  public RefillRate {
    Objects.requireNonNull(period, "period must not be null");
    Objects.requireNonNull(learnedAt, "learnedAt must not be null");
    if (units < 1 || units > ServerCount.MAX_UNITS) {
      throw new IllegalArgumentException(
          "units must be 1 to " + ServerCount.MAX_UNITS + " but was " + units);
    }
    if (period.isNegative() || period.isZero()
        || period.compareTo(SanityCaps.DEFAULT_MAX_WINDOW) > 0) {
      throw new IllegalArgumentException(
          "period must be positive and at most " + SanityCaps.DEFAULT_MAX_WINDOW + " but was "
              + period);
    }
  }
}
