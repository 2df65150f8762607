package dev.headway;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * Thrown instead of waiting when a request would have to wait longer than its {@code maxWait}:
 * the request was not sent. Extends {@link IOException}, so that it travels through OkHttp's
 * {@code Interceptor} and {@code HttpClient.send} contracts unchanged.
 */
public final class RateLimitedException extends IOException {
  private static final long serialVersionUID = 1L;

  private final String partition;
  private final Instant retryAt;
  private final Duration requiredWait;
  private final String policy;

  /**
   * Creates an exception.
   *
   * @param partition the partition the request belongs to
   * @param retryAt the earliest time at which the request could be sent
   * @param requiredWait how long the request would have had to wait
   * @param policy the name of the policy that decided, or {@code null} if none did alone
   */
  public RateLimitedException(String partition, Instant retryAt, Duration requiredWait,
      @org.jspecify.annotations.Nullable String policy) {
    super("Rate limited: " + partition + " would have to wait "
        + Texts.seconds(Objects.requireNonNull(requiredWait, "requiredWait"))
        + (policy == null ? "" : " (policy " + policy + ")") + ", longer than maxWait; retry at "
        + retryAt + "; the request was not sent");
    this.partition = Objects.requireNonNull(partition, "partition");
    this.retryAt = Objects.requireNonNull(retryAt, "retryAt");
    this.requiredWait = Objects.requireNonNull(requiredWait, "requiredWait");
    this.policy = policy;
  }

  /** Returns the partition the request belongs to. */
  public String partition() {
    return partition;
  }

  /** Returns the earliest wall-clock time at which the request could be sent. */
  public Instant retryAt() {
    return retryAt;
  }

  /** Returns how long the request would have had to wait. */
  public Duration requiredWait() {
    return requiredWait;
  }

  /** Returns the name of the policy that decided, if one did. */
  public Optional<String> policy() {
    return Optional.ofNullable(policy);
  }
}
