package dev.headway;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * When a quota resets, as a response reports it <em>without</em> a remaining count: a
 * {@code RateLimit} item with {@code t} but no {@code r}, a draft-7 {@code RateLimit: limit=10,
 * reset=1}, an {@code X-RateLimit-Reset} with no {@code X-RateLimit-Remaining} beside it. A reset
 * that comes with its count is part of a {@link QuotaLimit} instead.
 *
 * @param policy the name of the {@link QuotaPolicy} it belongs to
 * @param reset the time from the response until the quota resets; not negative
 * @param partitionKey the server's partition key ({@code pk}, base64 of its bytes), if given
 * @param dialect the name of the dialect that read it
 */
public record QuotaReset(
    String policy,
    Duration reset,
    Optional<String> partitionKey,
    String dialect) {

  /**
   * Validates the components.
   *
   * @param policy the name of the {@link QuotaPolicy} it belongs to
   * @param reset the time from the response until the quota resets; not negative
   * @param partitionKey the server's partition key, if given
   * @param dialect the name of the dialect that read it
   * @throws IllegalArgumentException if {@code reset} is negative
   */
  public QuotaReset {
    Objects.requireNonNull(policy, "policy must not be null");
    Objects.requireNonNull(reset, "reset must not be null");
    Objects.requireNonNull(partitionKey, "partitionKey must not be null");
    Objects.requireNonNull(dialect, "dialect must not be null");
    if (reset.isNegative()) {
      throw new IllegalArgumentException("reset must not be negative but was " + reset);
    }
  }
}
