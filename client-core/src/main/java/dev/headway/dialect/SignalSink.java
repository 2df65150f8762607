package dev.headway.dialect;

import dev.headway.QuotaLimit;
import dev.headway.QuotaPolicy;
import dev.headway.QuotaReset;
import dev.headway.SignalWarning;
import java.time.Duration;

/**
 * Collects what a {@link Dialect} read from one response. Not thread-safe.
 *
 * <p>A dialect should report policies and limits with the methods that name the fields they
 * came from ({@link #policy(QuotaPolicy, String, String)},
 * {@link #limit(QuotaLimit, String, String)}): a warning about a value (a quota or reset past
 * its {@link dev.headway.SanityCaps cap}) then names that field. Reported with the shorter
 * methods, such a warning's field is {@code "*"} (not known).
 */
public interface SignalSink {
  /**
   * Reports an advertised policy, its fields not named.
   *
   * @param policy the policy, as advertised
   */
  void policy(QuotaPolicy policy);

  /**
   * Reports the current state of a quota, its fields not named.
   *
   * @param limit the quota's state, as reported
   */
  void limit(QuotaLimit limit);

  /**
   * Reports an advertised policy and the lower-cased names of the fields its quota and its
   * window were read from. The default implementation calls {@link #policy(QuotaPolicy)}.
   *
   * @param policy the policy, as advertised
   * @param quotaField the field the quota was read from, such as {@code "x-ratelimit-limit"}
   * @param windowField the field the window was read from (the quota's field if the same)
   */
  default void policy(QuotaPolicy policy, String quotaField, String windowField) {
    policy(policy);
  }

  /**
   * Reports the current state of a quota and the lower-cased names of the fields its remaining
   * count and its reset were read from. The default implementation calls
   * {@link #limit(QuotaLimit)}.
   *
   * @param limit the quota's state, as reported
   * @param remainingField the field the remaining count was read from
   * @param resetField the field the reset was read from (the remaining count's field if the
   *     same, or if there is no reset)
   */
  default void limit(QuotaLimit limit, String remainingField, String resetField) {
    limit(limit);
  }

  /**
   * Reports how long the server asks the client to wait before retrying, its field not named.
   *
   * @param delay how long to wait, from the response's time; not negative
   */
  void retryAfter(Duration delay);

  /**
   * Reports how long the server asks the client to wait before retrying and the lower-cased name
   * of the field it was read from ({@code "retry-after"}, {@code "retry-after-ms"}, ...). The
   * default implementation calls {@link #retryAfter(Duration)}.
   *
   * @param delay how long to wait, from the response's time; not negative
   * @param field the lower-cased name of the field the delay was read from
   */
  default void retryAfter(Duration delay, String field) {
    retryAfter(delay);
  }

  /**
   * Reports when a quota resets, for a response that does not say how many units remain (partial
   * information is kept, draft section 7 notwithstanding: a reset alone still says when to try
   * again). Ignored when a {@link QuotaLimit} of the same policy and partition key is reported.
   * The default implementation ignores it.
   *
   * @param reset the policy, partition key and time to reset
   * @param field the lower-cased name of the field the reset was read from
   */
  default void reset(QuotaReset reset, String field) {}

  /**
   * Reports the wait a vendor's documentation prescribes for this response when the response
   * carries no number to say so (GitHub: "wait at least one minute" after a secondary rate limit
   * without {@code retry-after}). The first report wins. The default implementation ignores it.
   *
   * @param delay the documented wait, not negative
   * @param source where the rule is documented, for warnings and debugging
   */
  default void documentedDelay(Duration delay, String source) {}

  /**
   * Reports the server's own verdict on retrying this response: {@code true} to retry it (an
   * error the client would not retry by itself), {@code false} never to retry it (a 429
   * included). It overrides the client's retry rule in both directions, within the call's
   * attempts and wait. The first report wins. The default implementation ignores it: a dialect
   * for a vendor's veto header calls it, as the built-in one does for {@code x-should-retry},
   * {@code Stripe-Should-Retry} and {@code grpc-retry-pushback-ms}.
   *
   * @param retry whether the server says to retry
   * @param field the lower-cased name of the field the verdict was read from
   */
  default void shouldRetry(boolean retry, String field) {}

  /**
   * Reports the units the request cost, as the server counted them (a {@code RateLimit} item's
   * {@code c} parameter). The first report wins. The default implementation ignores it.
   *
   * @param units the request's cost, not negative
   * @param field the lower-cased name of the field the cost was read from
   */
  default void cost(long units, String field) {}

  /** Reports that the response says the client was throttled, whatever its status. */
  void throttled();

  /**
   * Reports a value that was not taken as sent. A warning alone does not make the dialect one
   * that recognised something ({@link dev.headway.RateLimitSignal#dialects()}).
   *
   * @param field the lower-cased name of the field the value came from
   * @param kind what was done with the value: malformed, capped, dropped, and so on
   * @param message what was wrong, for people; quote the value with {@link FieldValues#quote}
   */
  void warn(String field, SignalWarning.Kind kind, String message);
}
