package dev.headway;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * A quota the client declares itself, for an API that documents its limits but sends no headers
 * (or to stay well below what it sends). Declared with {@link Pacer.Builder#declare}; each
 * partition gets its own state. Declared policies combine with what servers say: the most
 * restrictive decides.
 *
 * <p>Two kinds, as in Ian Macartney's article "Application-Layer Rate Limiting" (Convex): a
 * {@link TokenBucket} and a {@link FixedWindow}. Both allow <em>reservations</em>: when a request
 * needs more units than are available, the balance goes negative (up to {@code maxReserved}) and
 * the caller is told when it may run; {@link Pacer#acquire} then waits that long, within its
 * {@code maxWait}.
 *
 * <p>Immutable and thread-safe.
 */
public sealed interface ClientPolicy {
  /**
   * Returns the policy's name, as reported in snapshots, events and exceptions.
   *
   * @return the name given at construction; not empty
   */
  String name();

  /**
   * A token bucket: {@code rate} units are added per {@code period}, continuously, up to
   * {@code capacity}; a request takes its cost. When the bucket holds {@code v} units and a
   * request costs {@code n > v}, the balance becomes {@code v - n} and the request runs after
   * {@code (n - v) * period / rate} (its <em>documented delay</em>), provided {@code n - v} does
   * not exceed {@code maxReserved}; otherwise it is refused with {@link RateLimitedException}.
   * The bucket starts full.
   *
   * @param name the policy's name
   * @param rate units added per period, positive
   * @param period the period, positive
   * @param capacity the most units the bucket holds, positive
   * @param maxReserved the deepest the balance may go below zero, not negative;
   *     {@link Long#MAX_VALUE} for no limit (each call is still bounded by its {@code maxWait})
   */
  record TokenBucket(String name, long rate, Duration period, long capacity, long maxReserved)
      implements ClientPolicy {
    /**
     * Validates the components.
     *
     * @param name the policy's name; not empty
     * @param rate units added per period, positive
     * @param period the period, positive
     * @param capacity the most units the bucket holds, positive
     * @param maxReserved the deepest the balance may go below zero, not negative
     * @throws IllegalArgumentException if a component is out of its range, naming it and its value
     */
    public TokenBucket {
      requireName(name);
      requirePositive("rate", rate);
      requirePositive("period", period);
      requirePositive("capacity", capacity);
      if (maxReserved < 0) {
        throw new IllegalArgumentException("maxReserved must not be negative but was "
            + maxReserved);
      }
    }
  }

  /**
   * A fixed window: {@code rate} units per window of {@code period}, windows starting at a fixed
   * offset; unused units carry over up to {@code capacity}. A request that needs more than is
   * left runs at the start of the window where enough has been added (a reservation), unless
   * the balance would go below {@code -maxReserved}. Without a {@code start}, the windows start at
   * a random offset (from the pacer's seedable generator), so that many clients do not all start
   * at the top of the minute.
   *
   * @param name the policy's name
   * @param rate units per window, positive
   * @param period the window, positive
   * @param capacity the most units that can accumulate, at least {@code rate}
   * @param maxReserved the deepest the balance may go below zero, not negative
   * @param start the offset of the first window from the pacer's creation, if fixed; in
   *     {@code [0, period)}
   */
  record FixedWindow(String name, long rate, Duration period, long capacity, long maxReserved,
      Optional<Duration> start) implements ClientPolicy {
    /**
     * Validates the components.
     *
     * @param name the policy's name; not empty
     * @param rate units per window, positive
     * @param period the window, positive
     * @param capacity the most units that can accumulate, at least {@code rate}
     * @param maxReserved the deepest the balance may go below zero, not negative
     * @param start the offset of the first window from the pacer's creation, if fixed; in
     *     {@code [0, period)}; empty for a random offset
     * @throws IllegalArgumentException if a component is out of its range, naming it and its value
     */
    public FixedWindow {
      requireName(name);
      requirePositive("rate", rate);
      requirePositive("period", period);
      requirePositive("capacity", capacity);
      if (capacity < rate) {
        throw new IllegalArgumentException("capacity must be at least rate (" + rate
            + ") but was " + capacity);
      }
      if (maxReserved < 0) {
        throw new IllegalArgumentException("maxReserved must not be negative but was "
            + maxReserved);
      }
      Objects.requireNonNull(start, "start must not be null");
      if (start.isPresent() && (start.get().isNegative() || start.get().compareTo(period) >= 0)) {
        throw new IllegalArgumentException("start must be in [0, period) but was "
            + start.get());
      }
    }
  }

  /**
   * Returns a token bucket of {@code rate} units per {@code period}, capacity {@code rate}, no
   * limit on reservations.
   *
   * @param name the policy's name; not empty
   * @param rate units added per period, positive
   * @param period the period, positive
   * @return a new token bucket
   * @throws IllegalArgumentException if {@code name} is empty, or {@code rate} or {@code period} is
   *     not positive
   */
  static TokenBucket tokenBucket(String name, long rate, Duration period) {
    return new TokenBucket(name, rate, period, rate, Long.MAX_VALUE);
  }

  /**
   * Returns a token bucket with every parameter given.
   *
   * @param name the policy's name; not empty
   * @param rate units added per period, positive
   * @param period the period, positive
   * @param capacity the most units the bucket holds, positive
   * @param maxReserved the deepest the balance may go below zero, not negative;
   *     {@link Long#MAX_VALUE} for no limit
   * @return a new token bucket
   * @throws IllegalArgumentException if a component is out of its range, naming it and its value
   */
  static TokenBucket tokenBucket(String name, long rate, Duration period, long capacity,
      long maxReserved) {
    return new TokenBucket(name, rate, period, capacity, maxReserved);
  }

  /**
   * Returns a fixed window of {@code rate} units per {@code period} starting at a random offset,
   * no carry-over, no limit on reservations.
   *
   * @param name the policy's name; not empty
   * @param rate units per window, positive
   * @param period the window, positive
   * @return a new fixed window
   * @throws IllegalArgumentException if {@code name} is empty, or {@code rate} or {@code period} is
   *     not positive
   */
  static FixedWindow fixedWindow(String name, long rate, Duration period) {
    return new FixedWindow(name, rate, period, rate, Long.MAX_VALUE, Optional.empty());
  }

  /**
   * Returns a fixed window with every parameter given.
   *
   * @param name the policy's name; not empty
   * @param rate units per window, positive
   * @param period the window, positive
   * @param capacity the most units that can accumulate, at least {@code rate}
   * @param maxReserved the deepest the balance may go below zero, not negative;
   *     {@link Long#MAX_VALUE} for no limit
   * @param start the offset of the first window from the pacer's creation, in {@code [0, period)};
   *     empty for a random offset
   * @return a new fixed window
   * @throws IllegalArgumentException if a component is out of its range, naming it and its value
   */
  static FixedWindow fixedWindow(String name, long rate, Duration period, long capacity,
      long maxReserved, Optional<Duration> start) {
    return new FixedWindow(name, rate, period, capacity, maxReserved, start);
  }

  private static void requireName(String name) {
    Objects.requireNonNull(name, "name must not be null");
    if (name.isEmpty()) {
      throw new IllegalArgumentException("name must not be empty but was \"\"");
    }
  }

  private static void requirePositive(String field, long value) {
    if (value <= 0) {
      throw new IllegalArgumentException(field + " must be positive but was " + value);
    }
  }

  private static void requirePositive(String field, Duration value) {
    Objects.requireNonNull(value, field + " must not be null");
    if (value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(field + " must be positive but was " + value);
    }
  }
}
