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
 * count, reset or retry delay past its cap is clamped to the cap, and a
 * {@link SignalWarning.Kind#CAPPED} warning names the field, the policy and both values. A value
 * within its caps is returned as it came (the same instance: nothing is allocated). Stateless.
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

  /** Returns {@code limit} with its count and reset capped, warning through {@code sink}. */
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
      sink.addWarning(resetField, SignalWarning.Kind.CAPPED, "policy "
          + FieldValues.quote(limit.policy()) + ": reset " + seconds(reset.get())
          + " capped to " + seconds(caps.maxReset()));
      reset = Optional.of(caps.maxReset());
    }
    return remaining == limit.remaining() && reset == limit.reset() ? limit
        : new QuotaLimit(limit.policy(), remaining, reset, limit.partitionKey(), limit.dialect());
  }

  /** Returns {@code reset} capped to {@code maxReset}, warning through {@code sink}. */
  static QuotaReset reset(SignalCollector sink, QuotaReset reset, String field,
      Duration maxReset) {
    if (reset.reset().compareTo(maxReset) <= 0) {
      return reset;
    }
    sink.addWarning(field, SignalWarning.Kind.CAPPED,
        "policy " + FieldValues.quote(reset.policy()) + ": reset " + seconds(reset.reset())
            + " capped to " + seconds(maxReset));
    return new QuotaReset(reset.policy(), maxReset, reset.partitionKey(), reset.dialect());
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
