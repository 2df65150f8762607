package dev.headway.store;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What a fleet knows about one key, as a store returned it: the last server count, the units the
 * fleet took since, a hold, a learned refill rate, and how many instances use the key.
 *
 * <p>Every store answer is validated before it becomes a {@code SharedQuota}: a value the store
 * held that is out of bounds is dropped (the component is empty), never thrown. Immutable and
 * thread-safe.
 *
 * @param key the key
 * @param count the last server count, if the fleet has one for the current window
 * @param taken units granted in leases after {@code count} was observed (still valid or spent);
 *     0 to 10<sup>12</sup>
 * @param holdUntil the end of a hold (from {@code Retry-After} or a 429) that applies to the
 *     whole fleet, if one is in force
 * @param refillRate the last learned refill rate, if any
 * @param instances the instances that used the key recently (this one included); at least 1
 */
public record SharedQuota(
    QuotaKey key, Optional<ServerCount> count, long taken, Optional<Instant> holdUntil,
    Optional<RefillRate> refillRate, int instances) {

  /**
   * Validates the components.
   *
   * @param key the key
   * @param count the last server count, if any
   * @param taken units granted in leases after the count was observed; 0 to 10<sup>12</sup>
   * @param holdUntil the end of a fleet-wide hold, if one is in force
   * @param refillRate the last learned refill rate, if any
   * @param instances the instances that used the key recently; at least 1
   * @throws IllegalArgumentException if {@code taken} or {@code instances} is out of bounds
   */
  public SharedQuota {
    Objects.requireNonNull(key, "key must not be null");
    Objects.requireNonNull(count, "count must not be null");
    Objects.requireNonNull(holdUntil, "holdUntil must not be null");
    Objects.requireNonNull(refillRate, "refillRate must not be null");
    if (taken < 0 || taken > ServerCount.MAX_UNITS) {
      throw new IllegalArgumentException(
          "taken must be 0 to " + ServerCount.MAX_UNITS + " but was " + taken);
    }
    if (instances < 1) {
      throw new IllegalArgumentException("instances must be at least 1 but was " + instances);
    }
  }

  /**
   * Returns what the fleet knows of nothing but its instances: no count, hold or rate.
   *
   * @param key the key
   * @param instances the instances that used the key recently; at least 1
   * @return the state
   */
  public static SharedQuota empty(QuotaKey key, int instances) {
    return new SharedQuota(key, Optional.empty(), 0, Optional.empty(), Optional.empty(),
        instances);
  }

  /**
   * Returns the units left for the fleet: the count's remaining units less those taken since;
   * empty without a count.
   *
   * @return the units left, if a count is known
   */
  public OptionalLong available() {
    return count.isEmpty()
        ? OptionalLong.empty()
        : OptionalLong.of(Math.max(0, count.get().remaining() - taken));
  }

  /**
   * Returns the units left for the fleet at {@code now}: as {@link #available()}, and where a
   * {@linkplain #refillRate() refill rate} is known the count grows by it from its instant, up to
   * its quota (a server that gives units back continuously); a count with a quota and a rate but
   * no reset is a bucket: what is left after the units taken is at most its quota. Empty without
   * a count.
   *
   * @param now the instant to count at
   * @return the units left at {@code now}, if a count is known
   */
  public OptionalLong available(Instant now) {
    Objects.requireNonNull(now, "now must not be null");
    if (count.isEmpty()) {
      return OptionalLong.empty();
    }
    return OptionalLong.of(Refill.available(count.get(), refillRate.orElse(null), taken, now));
  }

  /**
   * Returns when {@code units} will be available, as {@link #available(Instant)} counts them:
   * empty without a count and a refill rate, or when the quota cannot hold them while the units
   * taken stay taken.
   *
   * @param units the units wanted; at least 0
   * @return when they will be available, if a count and a rate say
   * @throws IllegalArgumentException if {@code units} is negative
   */
  public Optional<Instant> refilledAt(long units) {
    if (units < 0) {
      throw new IllegalArgumentException("units must not be negative but was " + units);
    }
    if (count.isEmpty() || refillRate.isEmpty()) {
      return Optional.empty();
    }
    return Optional.ofNullable(Refill.backAt(count.get(), taken, units, refillRate.get()));
  }

  /**
   * Returns whether a hold is in force at {@code now}.
   *
   * @param now the instant to look at
   * @return whether the fleet is held then
   */
  public boolean heldAt(Instant now) {
    return holdUntil.isPresent() && holdUntil.get().isAfter(now);
  }
}
