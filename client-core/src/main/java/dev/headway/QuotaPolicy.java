package dev.headway;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * A quota policy a server advertises: at most {@code quota} units per {@code window}
 * ({@code RateLimit-Policy}, or the equivalent of another dialect).
 *
 * @param name the policy's name, joining it to its {@link QuotaLimit}; {@code "default"} when the
 *     dialect gives none
 * @param quota the quota in {@code unit}s, not negative
 * @param unit what the quota counts
 * @param window the time window, if known; positive
 * @param partitionKey the server's partition key ({@code pk}, base64 of its bytes), if given
 * @param dialect the name of the dialect that read it
 */
public record QuotaPolicy(
    String name,
    long quota,
    QuotaUnit unit,
    Optional<Duration> window,
    Optional<String> partitionKey,
    String dialect) {

  /** The policy name used when a dialect does not name its policy. */
  public static final String DEFAULT_NAME = "default";

  /**
   * Validates the components.
   *
   * @param name the policy's name; {@link #DEFAULT_NAME} when the dialect gives none
   * @param quota the quota in {@code unit}s, not negative
   * @param unit what the quota counts
   * @param window the time window, if known; positive
   * @param partitionKey the server's partition key, if given
   * @param dialect the name of the dialect that read it
   * @throws IllegalArgumentException if {@code quota} is negative or {@code window} is not positive
   */
  public QuotaPolicy {
    Objects.requireNonNull(name, "name must not be null");
    Objects.requireNonNull(unit, "unit must not be null");
    Objects.requireNonNull(window, "window must not be null");
    Objects.requireNonNull(partitionKey, "partitionKey must not be null");
    Objects.requireNonNull(dialect, "dialect must not be null");
    if (quota < 0) {
      throw new IllegalArgumentException("quota must not be negative but was " + quota);
    }
    if (window.isPresent() && (window.get().isNegative() || window.get().isZero())) {
      throw new IllegalArgumentException("window must be positive but was " + window.get());
    }
  }
}
