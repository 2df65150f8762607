package dev.headway;

import dev.headway.internal.pacer.PartitionNames;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Thrown instead of waiting when a request would have to wait longer than its {@code maxWait},
 * or when {@link Pacer#reserve(RequestInfo)} can promise no time within it: the request was not
 * sent. Extends {@link IOException}, so that it travels through OkHttp's
 * {@code Interceptor} and {@code HttpClient.send} contracts unchanged.
 *
 * <p>The message names the partition as {@link PacerEvent} texts do: a plain origin ({@code
 * https://api.example.com:443}) as it is, any other key only as its origin and a short hash
 * ({@code https://api.telegram.org:443 (key #1f3a9c0e)}, or {@code key #1f3a9c0e}), since a
 * path or a custom key may carry a secret; {@link #partition()} returns the key itself.
 */
public final class RateLimitedException extends IOException {
  private static final long serialVersionUID = 1L;

  /** The partition the request belongs to. */
  private final String partition;
  /** The earliest wall-clock time at which the request could be sent. */
  private final Instant retryAt;
  /** How long the request would have had to wait. */
  private final Duration requiredWait;
  /** The name of the policy that decided; {@code null} if none did alone. */
  private final String policy;
  /** How long the request waited before it was refused; zero if refused at once. */
  private final Duration waited;
  /** The longest the request could wait (its {@code maxWait}); {@code null} if unknown. */
  private final Duration budget;
  /** What it waited for, in words; {@code null} if unknown. */
  private final String waitingFor;
  /** The message, built when first asked for (a refusal costs no text until read). */
  private transient volatile String message;

  /**
   * Creates an exception for a request refused at once (it waited for nothing).
   *
   * @param partition the partition the request belongs to
   * @param retryAt the earliest time at which the request could be sent
   * @param requiredWait how long the request would have had to wait
   * @param policy the name of the policy that decided, or {@code null} if none did alone
   */
  public RateLimitedException(String partition, Instant retryAt, Duration requiredWait,
      @Nullable String policy) {
    this(partition, retryAt, requiredWait, policy, null, Duration.ZERO, null);
  }

  /**
   * Creates an exception that says what happened: how long the request waited, what for, and
   * its budget.
   *
   * @param partition the partition the request belongs to
   * @param retryAt the earliest time at which the request could be sent
   * @param requiredWait how long the request would still have had to wait
   * @param policy the name of the policy that decided, or {@code null} if none did alone
   * @param waitingFor what it waited for, in words (e.g. {@code "policy default"}, {@code "the
   *     hold after a throttled response"}); {@code null} if unknown
   * @param waited how long it had waited before it was refused (zero if refused at once)
   * @param budget the longest it could wait (its {@code maxWait}); {@code null} if unknown
   */
  public RateLimitedException(String partition, Instant retryAt, Duration requiredWait,
      @Nullable String policy, @Nullable String waitingFor, Duration waited,
      @Nullable Duration budget) {
    super((String) null);
    this.partition = Objects.requireNonNull(partition, "partition must not be null");
    this.retryAt = Objects.requireNonNull(retryAt, "retryAt must not be null");
    this.requiredWait = Objects.requireNonNull(requiredWait, "requiredWait must not be null");
    this.policy = policy;
    this.waited = Objects.requireNonNull(waited, "waited must not be null");
    this.budget = budget;
    this.waitingFor = waitingFor;
  }

  /**
   * Returns what happened, in words: the partition, how long the request waited and would have
   * to wait, what for, and when to retry.
   */
  @Override
  public String getMessage() {
    String m = message;
    if (m == null) {
      m = message(partition, retryAt, requiredWait, policy, waitingFor, waited, budget);
      message = m;
    }
    return m;
  }

  private static String message(String partition, Instant retryAt, Duration requiredWait,
      @Nullable String policy, @Nullable String waitingFor, Duration waited,
      @Nullable Duration budget) {
    StringBuilder m = new StringBuilder(256).append("Rate limited: ")
        .append(PartitionNames.shown(
            Objects.requireNonNull(partition, "partition must not be null")));
    if (waited.isZero() || waited.isNegative()) {
      m.append(" would have to wait ")
          .append(Texts.seconds(
              Objects.requireNonNull(requiredWait, "requiredWait must not be null")));
      if (policy != null) {
        m.append(" (policy ").append(policy).append(')');
      }
      if (waitingFor != null && (policy == null || !waitingFor.equals("policy " + policy))) {
        m.append(" for ").append(waitingFor);
      }
    } else {
      m.append(": waited ").append(Texts.seconds(waited));
      if (budget != null) {
        m.append(" of its ").append(Texts.seconds(budget)).append(" budget");
      }
      m.append(" for ").append(waitingFor != null ? waitingFor
          : policy != null ? "policy " + policy : "its turn");
      m.append(", and would have to wait ")
          .append(Texts.seconds(
              Objects.requireNonNull(requiredWait, "requiredWait must not be null")))
          .append(" more");
    }
    if (budget != null && waited.plus(requiredWait).compareTo(budget) <= 0) {
      // Within the budget: refused because no time could be promised (reserve, while the next
      // window's size is unknown or the probes are out), not because of maxWait.
      m.append(", and no time to send it within maxWait (").append(Texts.seconds(budget))
          .append(") can be promised before then");
    } else {
      m.append(", longer than maxWait");
      if (budget != null && (waited.isZero() || waited.isNegative())) {
        m.append(" (").append(Texts.seconds(budget)).append(')'); // said above once it waited
      }
    }
    return m.append("; retry at ").append(retryAt).append("; the request was not sent")
        .toString();
  }

  /**
   * Returns the partition the request belongs to.
   *
   * @return the partition key, as the pacer's {@link PartitionKeyResolver} spells it
   */
  public String partition() {
    return partition;
  }

  /**
   * Returns the earliest wall-clock time at which the request could be sent.
   *
   * @return the instant to retry at, on the pacer's wall clock
   */
  public Instant retryAt() {
    return retryAt;
  }

  /**
   * Returns how long the request would have had to wait.
   *
   * @return the wait that was refused, counted from when it was refused
   */
  public Duration requiredWait() {
    return requiredWait;
  }

  /**
   * Returns how long the request waited before it was refused; zero if refused at once.
   *
   * @return the time waited; zero if refused at once
   */
  public Duration waited() {
    return waited;
  }

  /**
   * Returns the longest the request could wait (its {@code maxWait}), if known.
   *
   * @return the budget, or empty if the thrower did not say
   */
  public Optional<Duration> budget() {
    return Optional.ofNullable(budget);
  }

  /**
   * Returns the name of the policy that decided, if one did: a policy the server named (as in
   * {@link QuotaSnapshot}), {@code "learned"} for a rate learned from a server that publishes
   * none, or {@code "throttled"} for the hold after a throttled response.
   *
   * @return the policy's name, or empty if no single policy decided
   */
  public Optional<String> policy() {
    return Optional.ofNullable(policy);
  }
}
