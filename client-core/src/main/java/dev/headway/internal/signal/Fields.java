package dev.headway.internal.signal;

import dev.headway.HttpFields;
import dev.headway.QuotaLimit;
import dev.headway.QuotaPolicy;
import dev.headway.QuotaReset;
import dev.headway.SignalWarning;
import dev.headway.QuotaUnit;
import dev.headway.dialect.DialectContext;
import dev.headway.dialect.FieldValues;
import dev.headway.dialect.ResetValues;
import dev.headway.dialect.SignalSink;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The lower-cased names of a limit / remaining / reset header triple that together describe one
 * named policy, and the code that reads them: a policy when the limit is present, a limit when
 * the remaining count is, with the reset read by the {@link ResetValues epoch-versus-delta
 * rule}. Immutable.
 */
record Fields(String policy, QuotaUnit unit, String limit, String remaining, String reset,
    Optional<Duration> window) {

  static Fields of(String policy, QuotaUnit unit, String limit, String remaining, String reset) {
    return new Fields(policy, unit, limit, remaining, reset, Optional.empty());
  }

  /**
   * Reports a reset that came without a remaining count as a {@link QuotaReset}, with an
   * {@link SignalWarning.Kind#INCOMPLETE} warning naming the missing count.
   */
  static void resetWithoutCount(SignalSink sink, String policy, Optional<String> partitionKey,
      Duration reset, String resetField, String dialect, String missing) {
    sink.warn(resetField, SignalWarning.Kind.INCOMPLETE, "policy " + FieldValues.quote(policy)
        + ": reset kept without a remaining count (no " + missing + ")");
    sink.reset(new QuotaReset(policy, reset, partitionKey, dialect), resetField);
  }

  /** Reads the triple under this policy name; returns whether any of its headers was present. */
  boolean read(DialectContext context, SignalSink sink, String dialect) {
    return read(context, sink, dialect, policy);
  }

  /** Reads the triple under {@code policyName}; returns whether any header was present. */
  boolean read(DialectContext context, SignalSink sink, String dialect, String policyName) {
    HttpFields headers = context.headers();
    List<String> remainingValues = headers.values(remaining);
    List<String> limitValues = headers.values(limit);
    List<String> resetValues = headers.values(reset);
    if (remainingValues.isEmpty() && limitValues.isEmpty() && resetValues.isEmpty()) {
      return false;
    }
    OptionalLong limitCount = limitValues.isEmpty() ? OptionalLong.empty()
        : FieldValues.count(limit, limitValues.get(0), sink);
    OptionalLong remainingCount = remainingValues.isEmpty() ? OptionalLong.empty()
        : FieldValues.count(remaining, remainingValues.get(0), sink);
    Optional<Duration> resetValue = Optional.empty();
    if (!resetValues.isEmpty()) {
      resetValue = ResetValues.reset(reset, resetValues.get(0), context, sink);
    }
    if (limitCount.isPresent()) {
      sink.policy(new QuotaPolicy(policyName, limitCount.getAsLong(), unit, window,
          Optional.empty(), dialect), limit, limit);
    }
    if (remainingCount.isPresent()) {
      sink.limit(new QuotaLimit(policyName, remainingCount.getAsLong(), resetValue,
          Optional.empty(), dialect), remaining, reset);
    } else if (resetValue.isPresent() && remainingValues.isEmpty()) {
      resetWithoutCount(sink, policyName, Optional.empty(), resetValue.get(), reset, dialect,
          remaining);
    }
    return true;
  }
}
