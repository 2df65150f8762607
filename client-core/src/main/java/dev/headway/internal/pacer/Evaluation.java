package dev.headway.internal.pacer;

import org.jspecify.annotations.Nullable;

/**
 * The working state of one admission decision while its policies are asked: whether the time
 * found is only a lower bound (look again then), whether the caller keeps its place in line
 * meanwhile, whether no wait would help, and which policy decided. One per base partition,
 * used only under its monitor (a decision allocates nothing but its permit); read into an
 * immutable {@link Decision} before the monitor is left.
 */
final class Evaluation {
  /** The time is only a lower bound: the state must be looked at again then. */
  boolean recheck;
  /** The recheck waits for units a rate policy lacks: the caller keeps its place in line. */
  boolean queue;
  /** No wait within any deadline would help. */
  boolean refuse;
  /** The policy whose time won, or {@link Hold#THROTTLED}, or null. */
  @Nullable String decider;

  /** Starts a decision. */
  void begin() {
    recheck = false;
    queue = false;
    refuse = false;
    decider = null;
  }

  /** Marks the time a lower bound; returns it. */
  long lookAgainAt(long at) {
    recheck = true;
    return at;
  }

  /** Marks the time a lower bound the caller waits for in line; returns it. */
  long waitInLineUntil(long at) {
    recheck = true;
    queue = true;
    return at;
  }

  /** Marks the request refused whatever the wait; returns the time it would need. */
  long refuseUntil(long at) {
    refuse = true;
    return at;
  }
}
