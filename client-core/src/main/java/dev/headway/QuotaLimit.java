package dev.headway;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * The state of one quota as a response reports it: how many units remain and when the quota
 * resets ({@code RateLimit}, or the equivalent of another dialect).
 *
 * @param policy the name of the {@link QuotaPolicy} it belongs to
 * @param remaining the units remaining, not negative
 * @param reset the time from the response until the quota resets, if known; not negative
 * @param partitionKey the server's partition key ({@code pk}, base64 of its bytes), if given
 * @param dialect the name of the dialect that read it
 */
public record QuotaLimit(
    String policy,
    long remaining,
    Optional<Duration> reset,
    Optional<String> partitionKey,
    String dialect) {

  /**
   * Validates the components.
   *
   * @param policy the name of the {@link QuotaPolicy} it belongs to
   * @param remaining the units remaining, not negative
   * @param reset the time from the response until the quota resets, if known; not negative
   * @param partitionKey the server's partition key, if given
   * @param dialect the name of the dialect that read it
   * @throws IllegalArgumentException if {@code remaining} or {@code reset} is negative
   */
  public QuotaLimit {
    Objects.requireNonNull(policy, "policy must not be null");
    Objects.requireNonNull(reset, "reset must not be null");
    Objects.requireNonNull(partitionKey, "partitionKey must not be null");
    Objects.requireNonNull(dialect, "dialect must not be null");
    if (remaining < 0) {
      throw new IllegalArgumentException("remaining must not be negative but was " + remaining);
    }
    if (reset.isPresent() && reset.get().isNegative()) {
      throw new IllegalArgumentException("reset must not be negative but was " + reset.get());
    }
  }
}
