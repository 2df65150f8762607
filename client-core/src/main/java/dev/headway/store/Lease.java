package dev.headway.store;

import java.time.Instant;
import java.util.Objects;

/**
 * Units a store granted to one instance: the instance may spend up to {@code granted} units
 * until {@code validUntil}, and gives back what it did not spend with {@link
 * QuotaStore#release}. A lease never outlives the window it was taken in: {@code validUntil} is
 * never after the count's reset.
 *
 * <p>A lease of 0 units is a refusal: the fleet has nothing left ({@link SharedQuota#available()}
 * is below what was asked) or a hold is in force ({@link SharedQuota#heldAt}); {@code state}
 * says which, and {@code validUntil} when to ask again ({@link QuotaStore#lease}).
 * Immutable and thread-safe.
 *
 * @param key the key the units were taken from
 * @param id the lease's identifier within the store, for {@link QuotaStore#release}; not empty
 * @param granted the units granted; 0 to 10<sup>12</sup>
 * @param validUntil the instant after which unspent units are no longer the instance's to spend
 * @param state the shared state after the grant
 */
public record Lease(QuotaKey key, String id, long granted, Instant validUntil, SharedQuota state) {
  /**
   * Validates the components.
   *
   * @param key the key the units were taken from
   * @param id the lease's identifier within the store; not empty
   * @param granted the units granted; 0 to 10<sup>12</sup>
   * @param validUntil the instant after which unspent units are no longer the instance's
   * @param state the shared state after the grant
   * @throws IllegalArgumentException if {@code id} is empty or {@code granted} is out of bounds
   */
  public Lease {
    Objects.requireNonNull(key, "key must not be null");
    Objects.requireNonNull(id, "id must not be null");
    Objects.requireNonNull(validUntil, "validUntil must not be null");
    Objects.requireNonNull(state, "state must not be null");
    if (id.isEmpty()) {
      throw new IllegalArgumentException("id must not be empty");
    }
    if (granted < 0 || granted > ServerCount.MAX_UNITS) {
      throw new IllegalArgumentException(
          "granted must be 0 to " + ServerCount.MAX_UNITS + " but was " + granted);
    }
  }
}
