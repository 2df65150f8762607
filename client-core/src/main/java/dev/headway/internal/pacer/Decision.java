package dev.headway.internal.pacer;

import org.jspecify.annotations.Nullable;

/**
 * What admission decided for a permit: its {@link Verdict}, the time it names (the committed
 * send time, the time to look again, or the earliest time it could have gone), when the
 * decision was taken, the policy that decided and what it waits for. Immutable once returned. The common outcome, go now, is the
 * shared {@link #NOW} (no allocation on the fast path).
 */
final class Decision {
  /** The kinds of decisions. */
  enum Verdict {
    /** Committed: send at {@link #atNanos}. */
    GO,
    /** Not committed: look again at {@link #atNanos}. */
    RECHECK,
    /** The wait would pass the deadline: fail now ({@link #atNanos} is when it could go). */
    REJECT,
    /** The permit was released while acquiring. */
    CANCELLED
  }

  /** Committed, to be sent at once. Carries no times (nothing waits). */
  static final Decision NOW = new Decision(Verdict.GO, 0, 0, null);
  /** Released while acquiring. */
  static final Decision CANCELLED = new Decision(Verdict.CANCELLED, 0, 0, null);

  final Verdict verdict;
  final long atNanos;
  final long decidedNanos;
  final @Nullable String decider;
  /** What a caller told to look again (or refused) waited for, in words; or null. */
  @Nullable String waitingFor;

  private Decision(Verdict verdict, long atNanos, long decidedNanos, @Nullable String decider) {
    this.verdict = verdict;
    this.atNanos = atNanos;
    this.decidedNanos = decidedNanos;
    this.decider = decider;
  }

  /** Returns this decision saying what it waits for (never on the shared ones). */
  Decision waitingFor(@Nullable String what) {
    if (what != null && this != NOW && this != CANCELLED) {
      waitingFor = what;
    }
    return this;
  }

  /** Returns what the caller waited for, in words. */
  String reason() {
    if (waitingFor != null) {
      return waitingFor;
    }
    if (Hold.THROTTLED.equals(decider)) {
      return "the hold after a throttled response";
    }
    return decider != null ? "policy " + decider : "its turn";
  }

  /** Committed for {@code atNanos}, decided at {@code decidedNanos}. */
  static Decision go(long atNanos, long decidedNanos, @Nullable String decider) {
    return atNanos <= decidedNanos ? NOW : new Decision(Verdict.GO, atNanos, decidedNanos,
        decider);
  }

  /** Look again at {@code atNanos}, or fail now if that is past {@code deadlineNanos}. */
  static Decision later(long atNanos, long deadlineNanos, long decidedNanos,
      @Nullable String decider) {
    return new Decision(atNanos > deadlineNanos ? Verdict.REJECT : Verdict.RECHECK, atNanos,
        decidedNanos, decider);
  }

  /** Fail now: the earliest time is {@code atNanos}. */
  static Decision reject(long atNanos, long decidedNanos, @Nullable String decider) {
    return new Decision(Verdict.REJECT, atNanos, decidedNanos, decider);
  }

  /** Look again at {@code atNanos}. */
  static Decision recheck(long atNanos, long decidedNanos, @Nullable String decider) {
    return new Decision(Verdict.RECHECK, atNanos, decidedNanos, decider);
  }

  /** Whether the permit is committed and may be sent at once. */
  boolean goesNow() {
    return this == NOW;
  }

  /** Returns how long after the decision its time is; 0 if not later. */
  long waitNanos() {
    return Math.max(0, Time.sub(atNanos, decidedNanos));
  }
}
