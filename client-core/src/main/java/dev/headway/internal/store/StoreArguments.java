package dev.headway.internal.store;

import dev.headway.store.QuotaStore;
import dev.headway.store.ServerCount;
import java.time.Duration;
import java.util.Objects;

/**
 * The argument and option checks every {@link QuotaStore} of this library applies, with the same
 * messages, for its stores and their builders to share (the in-memory store, and the Redis store
 * through the qualified export to {@code dev.headway.redis}): unit counts within
 * {@link ServerCount#MAX_UNITS}, positive bounded durations. Not API. Stateless.
 */
public final class StoreArguments {
  private StoreArguments() {}

  /**
   * Checks the bounds of a {@link QuotaStore#lease} request.
   *
   * @param minUnits the fewest units asked; 1 to 10<sup>12</sup>
   * @param maxUnits the most units asked; {@code minUnits} to 10<sup>12</sup>
   * @throws IllegalArgumentException if either is out of its bounds
   */
  public static void leaseBounds(long minUnits, long maxUnits) {
    if (minUnits < 1 || minUnits > ServerCount.MAX_UNITS) {
      throw new IllegalArgumentException(
          "minUnits must be 1 to " + ServerCount.MAX_UNITS + " but was " + minUnits);
    }
    if (maxUnits < minUnits || maxUnits > ServerCount.MAX_UNITS) {
      throw new IllegalArgumentException("maxUnits must be " + minUnits + " to "
          + ServerCount.MAX_UNITS + " but was " + maxUnits);
    }
  }

  /**
   * Checks a count of units passed to a store call.
   *
   * @param name the argument's name, for the message
   * @param units the units; not negative
   * @return {@code units}
   * @throws IllegalArgumentException if negative
   */
  public static long notNegative(String name, long units) {
    if (units < 0) {
      throw new IllegalArgumentException(name + " must not be negative but was " + units);
    }
    return units;
  }

  /**
   * Checks a store's bound on the units of one lease.
   *
   * @param maxLeaseUnits the most units per lease; 1 to 10<sup>12</sup>
   * @return {@code maxLeaseUnits}
   * @throws IllegalArgumentException if out of bounds
   */
  public static long maxLeaseUnits(long maxLeaseUnits) {
    if (maxLeaseUnits < 1 || maxLeaseUnits > ServerCount.MAX_UNITS) {
      throw new IllegalArgumentException(
          "maxLeaseUnits must be 1 to " + ServerCount.MAX_UNITS + " but was " + maxLeaseUnits);
    }
    return maxLeaseUnits;
  }

  /**
   * Checks a duration option: positive and at most {@code max}.
   *
   * @param name the option's name, for the message
   * @param value the duration
   * @param max the longest allowed
   * @return {@code value}
   * @throws NullPointerException if {@code value} is null
   * @throws IllegalArgumentException if not positive or longer than {@code max}
   */
  public static Duration positive(String name, Duration value, Duration max) {
    Objects.requireNonNull(value, name + " must not be null");
    if (value.isNegative() || value.isZero() || value.compareTo(max) > 0) {
      throw new IllegalArgumentException(
          name + " must be positive and at most " + max + " but was " + value);
    }
    return value;
  }
}
