package dev.headway;

import java.time.Duration;
import java.util.Objects;

/**
 * A permit granted for a later time, from {@link Pacer#reserve}: the request is already counted
 * (its units are in flight, a declared token bucket may have gone negative), and the caller must
 * not send it before {@code delay} has passed ("the caller schedules their work to happen at that
 * later time", as Ian Macartney's article "Application-Layer Rate Limiting" puts it). Complete or
 * release the permit as usual.
 *
 * <p>Unlike {@link Pacer#acquire}, nothing re-checks the partition when the delay ends: a
 * throttled response arriving meanwhile does not push a reservation back.
 *
 * @param permit the permit, counted from now
 * @param delay how long to wait before sending, not negative; zero to send at once
 */
public record Reservation(Permit permit, Duration delay) {
  /**
   * Validates the components.
   *
   * @param permit the permit, counted from now
   * @param delay how long to wait before sending, not negative; zero to send at once
   * @throws IllegalArgumentException if {@code delay} is negative
   */
  public Reservation {
    Objects.requireNonNull(permit, "permit must not be null");
    Objects.requireNonNull(delay, "delay must not be null");
    if (delay.isNegative()) {
      throw new IllegalArgumentException("delay must not be negative but was " + delay);
    }
  }
}
