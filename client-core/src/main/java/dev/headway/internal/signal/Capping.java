package dev.headway.internal.signal;

import dev.headway.QuotaLimit;
import dev.headway.QuotaPolicy;
import dev.headway.QuotaReset;
import dev.headway.SanityCaps;
import dev.headway.SignalWarning;
import dev.headway.dialect.FieldValues;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.Optional;

/**
 * Owns how the {@link SanityCaps} apply to what the dialects report: a quota, window, remaining
 * count or retry delay past its cap is clamped to the cap, and a
 * {@link SignalWarning.Kind#CAPPED} warning names the field, the policy and both values. A value
 * within its caps is returned as it came (the same instance: nothing is allocated). Stateless.
 *
 * <p>A reset past {@code maxReset} is not clamped but dropped, with a
 * {@link SignalWarning.Kind#DROPPED} warning: its count is kept as if it came with no reset. A
 * reset is the end of the window the count covers; clamped to a day, a count that lasts until a
 * nonsense instant (a reset in the year 5138) became a count that lasts a day, and the pacer
 * spread its last units over that day, refusing every call while the server admitted them. A
 * count without a reset is paced by what the server does (its 429s, the reset it sends next), which
 * is right for the bug and costs a genuine quota longer than {@code maxReset} only its end: raise
 * {@code maxReset} for such an API. A retry delay is different: it says to hold, and a hold is
 * bounded by the cap and probed after {@code maxWait}.
 */
final class Capping {
  private Capping() {}

  /** Returns {@code policy} with its quota and window capped, warning through {@code sink}. */
  static QuotaPolicy policy(SignalCollector sink, SanityCaps caps, QuotaPolicy policy,
      String quotaField, String windowField) {
    long quota = policy.quota();
    if (quota > caps.maxQuota()) {
      sink.addWarning(quotaField, SignalWarning.Kind.CAPPED, "policy "
          + FieldValues.quote(policy.name()) + ": quota " + quota + " capped to "
          + caps.maxQuota());
      quota = caps.maxQuota();
    }
    Optional<Duration> window = policy.window();
    if (window.isPresent() && window.get().compareTo(caps.maxWindow()) > 0) {
      sink.addWarning(windowField, SignalWarning.Kind.CAPPED, "policy "
          + FieldValues.quote(policy.name()) + ": window " + seconds(window.get())
          + " capped to " + seconds(caps.maxWindow()));
      window = Optional.of(caps.maxWindow());
    }
    return quota == policy.quota() && window == policy.window() ? policy
        : new QuotaPolicy(policy.name(), quota, policy.unit(), window, policy.partitionKey(),
            policy.dialect());
  }

  /**
   * Returns {@code limit} with its count capped and a reset past {@code maxReset} dropped,
   * warning through {@code sink}.
   */
  static QuotaLimit limit(SignalCollector sink, SanityCaps caps, QuotaLimit limit,
      String remainingField, String resetField) {
    long remaining = limit.remaining();
    if (remaining > caps.maxRemaining()) {
      sink.addWarning(remainingField, SignalWarning.Kind.CAPPED, "policy "
          + FieldValues.quote(limit.policy()) + ": remaining " + remaining + " capped to "
          + caps.maxRemaining());
      remaining = caps.maxRemaining();
    }
    Optional<Duration> reset = limit.reset();
    if (reset.isPresent() && reset.get().compareTo(caps.maxReset()) > 0) {
      warnResetDropped(sink, resetField, limit.policy(), reset.get(), caps.maxReset());
      reset = Optional.empty();
    }
    return remaining == limit.remaining() && reset == limit.reset() ? limit
        : new QuotaLimit(limit.policy(), remaining, reset, limit.partitionKey(), limit.dialect());
  }

  /**
   * Returns whether {@code reset} is within {@code maxReset}; if not, warns through {@code sink}
   * that it is dropped.
   */
  static boolean resetBelievable(SignalCollector sink, QuotaReset reset, String field,
      Duration maxReset) {
    if (reset.reset().compareTo(maxReset) <= 0) {
      return true;
    }
    warnResetDropped(sink, field, reset.policy(), reset.reset(), maxReset);
    return false;
  }

  private static void warnResetDropped(SignalCollector sink, String field, String policy,
      Duration reset, Duration maxReset) {
    sink.addWarning(field, SignalWarning.Kind.DROPPED, "policy " + FieldValues.quote(policy)
        + ": reset " + seconds(reset) + " is past maxReset (" + seconds(maxReset)
        + "), ignored: the count is paced as if it came with no reset");
  }

  /** Returns a retry delay from {@code field} capped, warning through {@code sink}. */
  static Duration retry(SignalCollector sink, SanityCaps caps, String field, Duration delay) {
    if (delay.compareTo(caps.maxRetryAfter()) > 0) {
      sink.addWarning(field, SignalWarning.Kind.CAPPED,
          "delay " + seconds(delay) + " capped to " + seconds(caps.maxRetryAfter()));
      return caps.maxRetryAfter();
    }
    return delay;
  }

  /**
   * Returns a duration as seconds for a warning: {@code "86400 s"}, {@code "1.5 s"} (plain
   * decimal, never ISO-8601 such as {@code PT24H}, never exponent notation).
   */
  static String seconds(Duration duration) {
    BigDecimal seconds = BigDecimal.valueOf(duration.getSeconds())
        .add(BigDecimal.valueOf(duration.getNano(), 9));
    return seconds.stripTrailingZeros().toPlainString() + " s";
  }
}
