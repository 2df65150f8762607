package dev.headway;

import dev.headway.internal.pacer.PartitionNames;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * Something a {@link Pacer} did or learned, delivered to its {@link PacerListener}s.
 *
 * <p>{@link #partition()} returns the partition key as the resolver spelled it; an event's
 * {@code toString} (for logs) shows a key with more than a plain origin ({@code
 * scheme://host:port}) only as its origin and a short hash, e.g. {@code
 * https://api.telegram.org:443 (key #1f3a9c0e)}, or {@code key #1f3a9c0e} for a key that does
 * not start with an origin: a path or a custom key may carry a secret. The hash is the first 8
 * hex digits of the SHA-256 of the whole key (UTF-8).
 *
 * <p>Events are immutable values.
 */
public sealed interface PacerEvent {
  /**
   * Returns the partition the event is about.
   *
   * @return the partition key, as the pacer's {@link PartitionKeyResolver} spells it
   */
  String partition();

  /**
   * A request was made to wait before it could be sent.
   *
   * @param partition the partition
   * @param delay how long it waits
   * @param policy the policy that decided, if one did ({@code "throttled"} for a hold after a
   *     throttled response)
   */
  record Delayed(String partition, Duration delay, Optional<String> policy) implements PacerEvent {
    /**
     * Validates the components.
     *
     * @param partition the partition
     * @param delay how long it waits
     * @param policy the policy that decided, if one did
     */
    public Delayed {
      Objects.requireNonNull(partition, "partition must not be null");
      Objects.requireNonNull(delay, "delay must not be null");
      Objects.requireNonNull(policy, "policy must not be null");
    }

    /** Returns e.g. {@code https://api.example.com:443: delayed 0.48 s by policy fixed}. */
    @Override
    public String toString() {
      return PartitionNames.shown(partition) + ": delayed " + Texts.seconds(delay)
          + policy.map(p -> " by policy " + p).orElse("");
    }
  }

  /**
   * A wait of {@link Pacer#acquire} or {@link Pacer#acquireAsync} ended: the permit was handed
   * out, or the wait was cut short. Emitted once per wait that took time (never for a permit
   * that went at once), after any {@link Delayed} of the same wait; {@code waited} is the time
   * actually spent waiting on the pacer's ticker, which for a cancelled or interrupted wait is
   * the time until it ended. The delay of {@link Pacer#reserve} is waited by the caller and is
   * not reported here.
   *
   * @param partition the partition
   * @param waited the time actually waited
   * @param policy the policy that made it wait, if one did (as in its {@link Delayed})
   * @param outcome how the wait ended
   */
  record Waited(String partition, Duration waited, Optional<String> policy, Outcome outcome)
      implements PacerEvent {
    /** How a wait ended. */
    public enum Outcome {
      /** The permit was handed out: the request may be sent. */
      ACQUIRED,
      /** The wait was refused after it started (its time would have passed {@code maxWait}). */
      REJECTED,
      /** The future was cancelled or completed exceptionally by the caller (e.g. a timeout). */
      CANCELLED,
      /** The waiting thread was interrupted. */
      INTERRUPTED
    }

    /**
     * Validates the components.
     *
     * @param partition the partition
     * @param waited the time actually waited
     * @param policy the policy that made it wait, if one did
     * @param outcome how the wait ended
     */
    public Waited {
      Objects.requireNonNull(partition, "partition must not be null");
      Objects.requireNonNull(waited, "waited must not be null");
      Objects.requireNonNull(policy, "policy must not be null");
      Objects.requireNonNull(outcome, "outcome must not be null");
    }

    /**
     * Returns e.g. {@code https://api.example.com:443: waited 0.48 s for policy fixed,
     * acquired}.
     */
    @Override
    public String toString() {
      return PartitionNames.shown(partition) + ": waited " + Texts.seconds(waited)
          + policy.map(p -> " for policy " + p).orElse("") + ", "
          + outcome.name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /**
   * {@link Pacer#tryAcquire} returned no permit: the request could not be sent at once.
   *
   * @param partition the partition
   * @param policy the policy that decided, if one did
   */
  record Refused(String partition, Optional<String> policy) implements PacerEvent {
    /**
     * Validates the components.
     *
     * @param partition the partition
     * @param policy the policy that decided, if one did
     */
    public Refused {
      Objects.requireNonNull(partition, "partition must not be null");
      Objects.requireNonNull(policy, "policy must not be null");
    }

    /** Returns e.g. {@code https://api.example.com:443: refused now by policy fixed}. */
    @Override
    public String toString() {
      return PartitionNames.shown(partition) + ": refused now"
          + policy.map(p -> " by policy " + p).orElse("");
    }
  }

  /**
   * A request was refused at once because it would have had to wait longer than its
   * {@code maxWait}: a {@link RateLimitedException} was thrown.
   *
   * @param partition the partition
   * @param requiredWait how long it would have had to wait
   * @param retryAt the earliest time it could be sent
   * @param policy the policy that decided, if one did
   */
  record Rejected(String partition, Duration requiredWait, Instant retryAt,
      Optional<String> policy) implements PacerEvent {
    /**
     * Validates the components.
     *
     * @param partition the partition
     * @param requiredWait how long it would have had to wait
     * @param retryAt the earliest time it could be sent
     * @param policy the policy that decided, if one did
     */
    public Rejected {
      Objects.requireNonNull(partition, "partition must not be null");
      Objects.requireNonNull(requiredWait, "requiredWait must not be null");
      Objects.requireNonNull(retryAt, "retryAt must not be null");
      Objects.requireNonNull(policy, "policy must not be null");
    }

    /**
     * Returns e.g. {@code https://api.example.com:443: rejected, would wait 40 s (policy
     * fixed), retry at 2026-11-21T12:00:40Z}.
     */
    @Override
    public String toString() {
      return PartitionNames.shown(partition) + ": rejected, would wait "
          + Texts.seconds(requiredWait)
          + policy.map(p -> " (policy " + p + ")").orElse("") + ", retry at " + retryAt;
    }
  }

  /**
   * The server throttled a request (429, 503 with {@code Retry-After}, a GitHub-style 403): the
   * whole partition is held back for {@code holdFor}.
   *
   * @param partition the partition
   * @param status the response's status code
   * @param holdFor how long the partition is held back
   */
  record Throttled(String partition, int status, Duration holdFor) implements PacerEvent {
    /**
     * Validates the components.
     *
     * @param partition the partition
     * @param status the response's status code
     * @param holdFor how long the partition is held back
     */
    public Throttled {
      Objects.requireNonNull(partition, "partition must not be null");
      Objects.requireNonNull(holdFor, "holdFor must not be null");
    }

    /** Returns e.g. {@code https://api.example.com:443: throttled (429), held for 20 s}. */
    @Override
    public String toString() {
      return PartitionNames.shown(partition) + ": throttled (" + status + "), held for "
          + Texts.seconds(holdFor);
    }
  }

  /**
   * {@link Pacer#retryDelay} advised a retry: emitted only when it returned a delay (never for
   * a refusal), once per call of it. It counts advice, not requests sent: the adapters ask only
   * for requests they can replay and then retry, but a retry whose wait is cut short (the call
   * cancelled or interrupted, the thread's budget spent meanwhile) is still counted here; the
   * retried request's own {@link Delayed} and {@link Waited} follow when it is sent.
   *
   * @param partition the partition
   * @param attempt the number of responses received so far for the call
   * @param delay the advised delay
   */
  record Retried(String partition, int attempt, Duration delay) implements PacerEvent {
    /**
     * Validates the components.
     *
     * @param partition the partition
     * @param attempt the number of responses received so far for the call
     * @param delay the advised delay
     */
    public Retried {
      Objects.requireNonNull(partition, "partition must not be null");
      Objects.requireNonNull(delay, "delay must not be null");
    }

    /** Returns e.g. {@code https://api.example.com:443: retry after 1.5 s (attempt 1)}. */
    @Override
    public String toString() {
      return PartitionNames.shown(partition) + ": retry after " + Texts.seconds(delay)
          + " (attempt " + attempt + ")";
    }
  }

  /**
   * A retry the call would otherwise send was not sent: the partition's {@link RetryBudget} is
   * spent (too many retries lately, too few successes to earn them back). The call returned, at
   * once, the throttled or failed response it got.
   *
   * @param partition the partition
   * @param status the status of the response that was not retried
   * @param attempt the number of responses received so far for the call
   */
  record RetryRefused(String partition, int status, int attempt) implements PacerEvent {
    /**
     * Validates the components.
     *
     * @param partition the partition
     * @param status the status of the response that was not retried
     * @param attempt the number of responses received so far for the call
     */
    public RetryRefused {
      Objects.requireNonNull(partition, "partition must not be null");
    }

    /**
     * Returns e.g. {@code https://api.example.com:443: retry budget spent, 503 not retried
     * (attempt 1)}.
     */
    @Override
    public String toString() {
      return PartitionNames.shown(partition) + ": retry budget spent, " + status
          + " not retried (attempt " + attempt + ")";
    }
  }

  /**
   * A response's signal carried a warning: a value was malformed, capped or dropped.
   *
   * @param partition the partition
   * @param warning the warning
   */
  record SignalWarned(String partition, SignalWarning warning) implements PacerEvent {
    /**
     * Validates the components.
     *
     * @param partition the partition
     * @param warning the warning
     */
    public SignalWarned {
      Objects.requireNonNull(partition, "partition must not be null");
      Objects.requireNonNull(warning, "warning must not be null");
    }

    /** Returns the partition and the warning, e.g. {@code https://api.example.com:443: ...}. */
    @Override
    public String toString() {
      return PartitionNames.shown(partition) + ": warning: " + warning;
    }
  }

  /**
   * A permit was neither completed nor released within the pacer's permit lease (a bug in the
   * code that holds it: a lost permit, a future completed by someone else, an exception that
   * skipped its {@code release}), so the pacer reclaimed it: its units no longer count as in
   * flight, and a late {@code complete} or {@code release} of it does nothing.
   *
   * @param partition the partition
   * @param heldFor how long it had been committed
   */
  record PermitExpired(String partition, Duration heldFor) implements PacerEvent {
    /**
     * Validates the components.
     *
     * @param partition the partition
     * @param heldFor how long it had been committed
     */
    public PermitExpired {
      Objects.requireNonNull(partition, "partition must not be null");
      Objects.requireNonNull(heldFor, "heldFor must not be null");
    }

    /** Returns e.g. {@code https://api.example.com:443: permit expired after 300 s}. */
    @Override
    public String toString() {
      return PartitionNames.shown(partition) + ": permit expired after " + Texts.seconds(heldFor);
    }
  }

  /**
   * A response changed what the pacer knows of a partition's quota.
   *
   * @param partition the partition
   * @param quota the partition's state after the update
   */
  record QuotaUpdated(String partition, QuotaSnapshot quota) implements PacerEvent {
    /**
     * Validates the components.
     *
     * @param partition the partition
     * @param quota the partition's state after the update
     */
    public QuotaUpdated {
      Objects.requireNonNull(partition, "partition must not be null");
      Objects.requireNonNull(quota, "quota must not be null");
    }

    /** Returns {@code quota updated: } and the snapshot as {@link QuotaSnapshot#toString}. */
    @Override
    public String toString() {
      return "quota updated: " + quota;
    }
  }
}
