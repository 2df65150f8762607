package dev.headway.store;

import dev.headway.SanityCaps;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A count of remaining units as a server reported it, with the instant it holds for.
 *
 * <p>{@code observedAt} is an instant at or before which every unit the fleet spent is reflected
 * in {@code remaining}: a pacer passes the instant it <em>sent</em> the request whose response
 * carried the count (less an allowance for requests overtaking each other on the way, if it
 * wants to be stricter). A store subtracts from {@code remaining} the units of every lease still
 * valid after {@code observedAt}.
 *
 * <p>Values are bounded like a header's ({@link SanityCaps#defaults()}): {@code remaining} and
 * {@code quota} at most 10<sup>12</sup>, {@code window} positive and at most 366 days. Immutable
 * and thread-safe.
 *
 * @param remaining units left until {@code resetAt}; 0 to 10<sup>12</sup>
 * @param observedAt the instant the count holds for
 * @param resetAt when the server restores the quota, if it said
 * @param quota the units per window, if known; 1 to 10<sup>12</sup>
 * @param window the policy's window, if known; positive, at most 366 days
 */
public record ServerCount(
    long remaining, Instant observedAt, Optional<Instant> resetAt, OptionalLong quota,
    Optional<Duration> window) {

  /** The largest count or quota accepted: 10<sup>12</sup>. */
  public static final long MAX_UNITS = 1_000_000_000_000L;

  /**
   * Validates the components.
   *
   * @param remaining units left until {@code resetAt}; 0 to 10<sup>12</sup>
   * @param observedAt the instant the count holds for
   * @param resetAt when the server restores the quota, if it said
   * @param quota the units per window, if known; 1 to 10<sup>12</sup>
   * @param window the policy's window, if known; positive, at most 366 days
   * @throws IllegalArgumentException if a value is out of the bounds above
   */
  public ServerCount {
    Objects.requireNonNull(observedAt, "observedAt must not be null");
    Objects.requireNonNull(resetAt, "resetAt must not be null");
    Objects.requireNonNull(quota, "quota must not be null");
    Objects.requireNonNull(window, "window must not be null");
    if (remaining < 0 || remaining > MAX_UNITS) {
      throw new IllegalArgumentException(
          "remaining must be 0 to " + MAX_UNITS + " but was " + remaining);
    }
    if (quota.isPresent() && (quota.getAsLong() < 1 || quota.getAsLong() > MAX_UNITS)) {
      throw new IllegalArgumentException(
          "quota must be 1 to " + MAX_UNITS + " but was " + quota.getAsLong());
    }
    if (window.isPresent() && (window.get().isNegative() || window.get().isZero()
        || window.get().compareTo(SanityCaps.DEFAULT_MAX_WINDOW) > 0)) {
      throw new IllegalArgumentException(
          "window must be positive and at most " + SanityCaps.DEFAULT_MAX_WINDOW + " but was "
              + window.get());
    }
  }

  /**
   * Returns a count with no reset, quota or window.
   *
   * @param remaining units left; 0 to 10<sup>12</sup>
   * @param observedAt the instant the count holds for
   * @return the count
   * @throws IllegalArgumentException if {@code remaining} is out of bounds
   */
  public static ServerCount of(long remaining, Instant observedAt) {
    return new ServerCount(remaining, observedAt, Optional.empty(), OptionalLong.empty(),
        Optional.empty());
  }

  /**
   * Returns a count of a policy whose quota, window and next reset are known.
   *
   * @param remaining units left until {@code resetAt}; 0 to 10<sup>12</sup>
   * @param observedAt the instant the count holds for
   * @param resetAt when the server restores the quota
   * @param quota the units per window; 1 to 10<sup>12</sup>
   * @param window the policy's window; positive, at most 366 days
   * @return the count
   * @throws IllegalArgumentException if a value is out of bounds
   */
  public static ServerCount of(
      long remaining, Instant observedAt, Instant resetAt, long quota, Duration window) {
    return new ServerCount(remaining, observedAt, Optional.of(resetAt), OptionalLong.of(quota),
        Optional.of(window));
  }
}
