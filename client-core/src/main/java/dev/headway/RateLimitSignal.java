package dev.headway;

import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Everything one HTTP response says about rate limits, as {@link SignalParser} read it: the
 * policies and limits it advertises, how long to wait before retrying, and whether the client was
 * throttled.
 *
 * <p>Values are already checked against the {@link SanityCaps}: anything clamped, dropped or
 * ignored is listed in {@link #warnings()}. Partial information is kept: a policy whose limit
 * item is missing is still in {@link #policies()}, and a reset reported without a remaining count
 * is in {@link #resets()}. {@link #nextRequestDelay()} says when the next request may go
 * according to this response alone.
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
 * @param resets resets reported without a remaining count (a count-less limit item, a reset
 *     header with no remaining header beside it)
 * @param documentedDelay the wait a vendor's documentation prescribes for this response when it
 *     carries no number to say so (GitHub: at least 60 s after a secondary rate limit without
 *     {@code retry-after})
 * @param shouldRetry the server's own verdict on retrying this response, which overrides the
 *     client's rule in both directions: {@code true} to retry (an error the client would not
 *     retry by itself), {@code false} never to retry (a 429 included). Read from
 *     {@code x-should-retry} (OpenAI's and Anthropic's APIs), {@code Stripe-Should-Retry}, a
 *     negative {@code grpc-retry-pushback-ms}, and any dialect that reports one; empty when the
 *     response gives none
 * @param cost the units this request cost, as the server counted them (the {@code c} parameter
 *     of a {@code RateLimit} item, Spring Cloud Gateway's {@code X-RateLimit-Requested-Tokens});
 *     empty when the response does not say. The pacer charges later requests of the same route
 *     that much
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
    boolean throttled,
    List<QuotaReset> resets,
    Optional<Duration> documentedDelay,
    Optional<Boolean> shouldRetry,
    OptionalLong cost) {

  private static final Comparator<QuotaLimit> MOST_RESTRICTIVE =
      Comparator.comparingLong(QuotaLimit::remaining)
          .thenComparing(l -> l.reset().orElse(Duration.ZERO), Comparator.reverseOrder());

  /**
   * Validates the components and makes the lists immutable.
   *
   * @param status the HTTP status code, in [0, 999]; 0 if unknown
   * @param policies the quota policies advertised; copied
   * @param limits the current state of those quotas; copied
   * @param retryAfter how long to wait before retrying, from the response's time
   * @param bodyRetryAfter the retry hint found in a JSON body
   * @param problemType the RFC 9457 problem type URI of a problem-details body, if any
   * @param violatedPolicies the {@code violated-policies} member of a problem-details body; copied
   * @param dialects the names of the dialects that recognised something; copied
   * @param warnings what was not taken as sent; copied
   * @param throttled whether the response says the client was throttled
   * @param resets resets reported without a remaining count; copied
   * @param documentedDelay the wait a vendor's documentation prescribes for this response
   * @param shouldRetry the server's own verdict on retrying this response, if it gave one
   * @param cost the units this request cost, as the server counted them; not negative
   * @throws IllegalArgumentException if {@code status} is not in [0, 999] or {@code cost} is
   *     negative
   */
  public RateLimitSignal {
    if (status < 0 || status > 999) {
      throw new IllegalArgumentException("status must be in [0, 999] but was " + status);
    }
    policies = List.copyOf(policies);
    limits = List.copyOf(limits);
    Objects.requireNonNull(retryAfter, "retryAfter must not be null");
    Objects.requireNonNull(bodyRetryAfter, "bodyRetryAfter must not be null");
    Objects.requireNonNull(problemType, "problemType must not be null");
    violatedPolicies = List.copyOf(violatedPolicies);
    dialects = List.copyOf(dialects);
    warnings = List.copyOf(warnings);
    resets = List.copyOf(resets);
    Objects.requireNonNull(documentedDelay, "documentedDelay must not be null");
    Objects.requireNonNull(shouldRetry, "shouldRetry must not be null");
    Objects.requireNonNull(cost, "cost must not be null");
    if (cost.isPresent() && cost.getAsLong() < 0) {
      throw new IllegalArgumentException("cost must not be negative but was " + cost.getAsLong());
    }
  }

  /**
   * Creates a signal with no {@link #shouldRetry()} verdict and no {@link #cost()}.
   *
   * @param status the HTTP status code, in [0, 999]; 0 if unknown
   * @param policies the quota policies advertised; copied
   * @param limits the current state of those quotas; copied
   * @param retryAfter how long to wait before retrying, from the response's time
   * @param bodyRetryAfter the retry hint found in a JSON body
   * @param problemType the RFC 9457 problem type URI of a problem-details body, if any
   * @param violatedPolicies the {@code violated-policies} member of a problem-details body; copied
   * @param dialects the names of the dialects that recognised something; copied
   * @param warnings what was not taken as sent; copied
   * @param throttled whether the response says the client was throttled
   * @param resets resets reported without a remaining count; copied
   * @param documentedDelay the wait a vendor's documentation prescribes for this response
   * @throws IllegalArgumentException if {@code status} is not in [0, 999]
   */
  public RateLimitSignal(int status, List<QuotaPolicy> policies, List<QuotaLimit> limits,
      Optional<Duration> retryAfter, Optional<Duration> bodyRetryAfter,
      Optional<String> problemType, List<String> violatedPolicies, List<String> dialects,
      List<SignalWarning> warnings, boolean throttled, List<QuotaReset> resets,
      Optional<Duration> documentedDelay) {
    this(status, policies, limits, retryAfter, bodyRetryAfter, problemType, violatedPolicies,
        dialects, warnings, throttled, resets, documentedDelay, Optional.empty(),
        OptionalLong.empty());
  }

  /**
   * Creates a signal with no {@link #resets()} and no {@link #documentedDelay()}.
   *
   * @param status the HTTP status code, in [0, 999]; 0 if unknown
   * @param policies the quota policies advertised; copied
   * @param limits the current state of those quotas; copied
   * @param retryAfter how long to wait before retrying, from the response's time
   * @param bodyRetryAfter the retry hint found in a JSON body
   * @param problemType the RFC 9457 problem type URI of a problem-details body, if any
   * @param violatedPolicies the {@code violated-policies} member of a problem-details body; copied
   * @param dialects the names of the dialects that recognised something; copied
   * @param warnings what was not taken as sent; copied
   * @param throttled whether the response says the client was throttled
   * @throws IllegalArgumentException if {@code status} is not in [0, 999]
   */
  public RateLimitSignal(int status, List<QuotaPolicy> policies, List<QuotaLimit> limits,
      Optional<Duration> retryAfter, Optional<Duration> bodyRetryAfter,
      Optional<String> problemType, List<String> violatedPolicies, List<String> dialects,
      List<SignalWarning> warnings, boolean throttled) {
    this(status, policies, limits, retryAfter, bodyRetryAfter, problemType, violatedPolicies,
        dialects, warnings, throttled, List.of(), Optional.empty());
  }

  /**
   * Returns a signal for a response with no rate-limit information at all.
   *
   * @param status the response's HTTP status code, in [0, 999]
   * @return a signal that is {@link #isEmpty() empty} and not throttled
   * @throws IllegalArgumentException if {@code status} is not in [0, 999]
   */
  public static RateLimitSignal none(int status) {
    return new RateLimitSignal(status, List.of(), List.of(), Optional.empty(), Optional.empty(),
        Optional.empty(), List.of(), List.of(), List.of(), false);
  }

  /**
   * Returns how long to wait before the next request according to this response alone, or empty
   * when it gives no reason to wait. The first of:
   *
   * <ol>
   *   <li>{@link #retryAfter()}: the server's own {@code Retry-After} (or its equivalent) takes
   *       precedence over everything else (draft section 7);
   *   <li>the reset of an exhausted quota: the latest reset among the limits with zero remaining,
   *       and, for a throttled response, among the {@link #resets()} reported without a count;
   *   <li>{@link #bodyRetryAfter()}: a hint in the body ({@code retry_after}, Google's
   *       {@code retryDelay}, a GraphQL cost bucket that cannot cover the query);
   *   <li>{@link #documentedDelay()}, for a {@link #throttled()} response: a wait the vendor
   *       documents for such a response.
   * </ol>
   *
   * <p>A throttled response with none of these (a bare 429) gives no figure: empty, and the
   * caller's backoff decides.
   *
   * @return the delay from the response's time, or empty when this response alone gives no figure
   */
  public Optional<Duration> nextRequestDelay() {
    if (retryAfter.isPresent()) {
      return retryAfter;
    }
    Duration exhausted = null;
    for (QuotaLimit limit : limits) {
      if (limit.remaining() == 0 && limit.reset().isPresent()
          && (exhausted == null || limit.reset().get().compareTo(exhausted) > 0)) {
        exhausted = limit.reset().get();
      }
    }
    if (throttled) {
      for (QuotaReset reset : resets) {
        if (!hasCount(reset) && (exhausted == null || reset.reset().compareTo(exhausted) > 0)) {
          exhausted = reset.reset();
        }
      }
    }
    if (exhausted != null) {
      return Optional.of(exhausted);
    }
    if (bodyRetryAfter.isPresent()) {
      return bodyRetryAfter;
    }
    return throttled ? documentedDelay : Optional.empty();
  }

  /** Returns whether a limit with a count exists for the policy of {@code reset}. */
  private boolean hasCount(QuotaReset reset) {
    for (QuotaLimit limit : limits) {
      if (limit.policy().equals(reset.policy())
          && limit.partitionKey().equals(reset.partitionKey())) {
        return true;
      }
    }
    return false;
  }

  /**
   * Returns the most restrictive limit: the lowest remaining count, and of equals the one that
   * resets last.
   *
   * @return the limit with the fewest units remaining, or empty if the response reported no limit
   */
  public Optional<QuotaLimit> mostRestrictive() {
    return limits.stream().min(MOST_RESTRICTIVE);
  }

  /**
   * Returns the policy named {@code name} (for the given partition key), if advertised.
   *
   * @param name the policy's name, as the server spells it
   * @param partitionKey the server's partition key of the policy; empty for a policy without one
   * @return the policy, or empty if the response did not advertise it
   */
  public Optional<QuotaPolicy> policy(String name, Optional<String> partitionKey) {
    for (QuotaPolicy policy : policies) {
      if (policy.name().equals(name) && policy.partitionKey().equals(partitionKey)) {
        return Optional.of(policy);
      }
    }
    return Optional.empty();
  }

  /**
   * Returns whether the response carried any rate-limit information.
   *
   * @return true if it carried none: no policy, limit, reset, retry delay, body hint, problem
   *     type, documented delay, retry verdict or cost
   */
  public boolean isEmpty() {
    return policies.isEmpty() && limits.isEmpty() && retryAfter.isEmpty()
        && bodyRetryAfter.isEmpty() && problemType.isEmpty() && resets.isEmpty()
        && documentedDelay.isEmpty() && shouldRetry.isEmpty() && cost.isEmpty();
  }
}
