package dev.headway;

import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Everything one HTTP response says about rate limits, as {@link SignalParser} read it: the
 * policies and limits it advertises, how long to wait before retrying, and whether the client was
 * throttled.
 *
 * <p>Values are already checked against the {@link SanityCaps}: anything clamped, dropped or
 * ignored is listed in {@link #warnings()}.
 *
 * @param status the HTTP status code; 0 if the response's status was not a three-digit code
 * @param policies the quota policies advertised
 * @param limits the current state of those quotas
 * @param retryAfter how long to wait before retrying ({@code Retry-After}, {@code retry-after-ms}
 *     and dialect equivalents), from the response's time
 * @param bodyRetryAfter the retry hint found in a JSON body ({@code retry_after},
 *     {@code retryAfter}, Google's {@code retryDelay})
 * @param problemType the RFC 9457 problem type URI of a problem-details body, if any
 * @param violatedPolicies the {@code violated-policies} member of a problem-details body
 * @param dialects the names of the dialects that recognised something (a policy, a limit, a retry
 *     delay, a body hint or a throttled flag), in the order they were tried; a dialect that only
 *     raised warnings is not listed
 * @param warnings what was not taken as sent
 * @param throttled whether the response says the client was throttled: a 429, a 503 with
 *     {@code Retry-After}, or a 403 with {@code Retry-After} or zero remaining
 */
public record RateLimitSignal(
    int status,
    List<QuotaPolicy> policies,
    List<QuotaLimit> limits,
    Optional<Duration> retryAfter,
    Optional<Duration> bodyRetryAfter,
    Optional<String> problemType,
    List<String> violatedPolicies,
    List<String> dialects,
    List<SignalWarning> warnings,
    boolean throttled) {

  private static final Comparator<QuotaLimit> MOST_RESTRICTIVE =
      Comparator.comparingLong(QuotaLimit::remaining)
          .thenComparing(l -> l.reset().orElse(Duration.ZERO), Comparator.reverseOrder());

  /** Validates the components and makes the lists immutable. */
  public RateLimitSignal {
    if (status < 0 || status > 999) {
      throw new IllegalArgumentException("status must be in [0, 999] but was " + status);
    }
    policies = List.copyOf(policies);
    limits = List.copyOf(limits);
    Objects.requireNonNull(retryAfter, "retryAfter");
    Objects.requireNonNull(bodyRetryAfter, "bodyRetryAfter");
    Objects.requireNonNull(problemType, "problemType");
    violatedPolicies = List.copyOf(violatedPolicies);
    dialects = List.copyOf(dialects);
    warnings = List.copyOf(warnings);
  }

  /** Returns a signal for a response with no rate-limit information at all. */
  public static RateLimitSignal none(int status) {
    return new RateLimitSignal(status, List.of(), List.of(), Optional.empty(), Optional.empty(),
        Optional.empty(), List.of(), List.of(), List.of(), false);
  }

  /**
   * Returns the most restrictive limit: the lowest remaining count, and of equals the one that
   * resets last.
   */
  public Optional<QuotaLimit> mostRestrictive() {
    return limits.stream().min(MOST_RESTRICTIVE);
  }

  /** Returns the policy named {@code name} (for the given partition key), if advertised. */
  public Optional<QuotaPolicy> policy(String name, Optional<String> partitionKey) {
    for (QuotaPolicy policy : policies) {
      if (policy.name().equals(name) && policy.partitionKey().equals(partitionKey)) {
        return Optional.of(policy);
      }
    }
    return Optional.empty();
  }

  /** Returns whether the response carried any rate-limit information. */
  public boolean isEmpty() {
    return policies.isEmpty() && limits.isEmpty() && retryAfter.isEmpty()
        && bodyRetryAfter.isEmpty() && problemType.isEmpty();
  }
}
