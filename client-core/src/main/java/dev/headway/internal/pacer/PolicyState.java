package dev.headway.internal.pacer;

import dev.headway.PacingStrategy;
import dev.headway.PolicySnapshot;
import dev.headway.QuotaUnit;

/**
 * The mutable state of one policy of one partition, and its rules: when a request may go, what
 * committing one costs, and what it reports. Every method runs under the partition's monitor.
 * Not thread-safe by itself.
 */
abstract class PolicyState {
  /** Marks an unknown count. */
  static final long UNKNOWN = -1;

  final String name;
  QuotaUnit unit;
  String source;
  long updatedAtNanos;

  PolicyState(String name, QuotaUnit unit, String source, long nowNanos) {
    this.name = name;
    this.unit = unit;
    this.source = source;
    this.updatedAtNanos = nowNanos;
  }

  /** Whether the policy is declared by the client (charged at commit, not counted in flight). */
  abstract boolean declared();

  /** Moves the state forward to {@code now}: windows that ended are reset. */
  abstract void roll(long nowNanos);

  /**
   * Returns the earliest time, not before {@code notBeforeNanos}, at which a request costing
   * {@code cost} may be sent from {@code partition}. Marks {@code evaluation} when the time is
   * only a lower bound (the state must be looked at again then), or when no wait would help.
   */
  abstract long earliest(Settings settings, Evaluation evaluation, Partition partition,
      long cost, long nowNanos, long notBeforeNanos, long deadlineNanos);

  /**
   * Charges a request costing {@code cost} that will be sent at {@code sendAtNanos}, before its
   * units join {@code inFlight}; returns how far it moved the policy's pacing cursor (0 if not).
   */
  abstract long commit(PacingStrategy strategy, InFlight inFlight, long cost, long nowNanos,
      long sendAtNanos);

  /**
   * Gives back what {@link #commit} took for a request that was never sent (cancelled, timed
   * out, released while waiting): its units, and its slot in the schedule ({@code gapNanos}, what
   * its commit moved the cursor), so that the requests after it close up.
   */
  abstract void refund(long cost, long gapNanos);

  /** Returns an immutable view. */
  abstract PolicySnapshot snapshot(InFlight inFlight, long nowNanos);
}
