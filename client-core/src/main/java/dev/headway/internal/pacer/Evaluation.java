package dev.headway.internal.pacer;

import dev.headway.PacerEvent;
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
  /**
   * The caller keeps its place in line waiting for the answers of the requests already out
   * (probes), not for units: it holds back only younger callers that would take later units.
   */
  boolean forAnswers;
  /** No wait within any deadline would help. */
  boolean refuse;
  /** What a caller told to look again waits for, in words (for the exception); or null. */
  @Nullable String waitingFor;
  /** A server policy advertises a quota of zero: nothing may go until the server says more. */
  boolean zeroQuota;
  /** A client-declared policy holds the request back (no check of a long block may pass it). */
  boolean declaredBlocks;
  /** The policy whose time won, or {@link Hold#THROTTLED}, or null. */
  @Nullable String decider;
  /**
   * The policy whose time won, if a policy's did: names repeat across scopes (each model's
   * {@code tokens}), so what the decision says of it is read here, not looked up by name.
   */
  @Nullable PolicyState deciding;

  /** Events of permits reclaimed past {@code permitLease}, to emit outside the monitor; or null. */
  private PacerEvent @Nullable [] expired;

  /** Records the event of a permit reclaimed past {@code permitLease}. */
  void expired(PacerEvent event) {
    PacerEvent[] e = expired;
    if (e == null) {
      e = new PacerEvent[1];
    } else {
      e = java.util.Arrays.copyOf(e, e.length + 1);
    }
    e[e.length - 1] = event;
    expired = e;
  }

  /** Returns and forgets the events of expired permits; null if none. */
  PacerEvent @Nullable [] takeExpired() {
    PacerEvent[] e = expired;
    expired = null;
    return e;
  }

  /** Starts a decision. */
  void begin() {
    recheck = false;
    queue = false;
    forAnswers = false;
    refuse = false;
    declaredBlocks = false;
    zeroQuota = false;
    waitingFor = null;
    decider = null;
    deciding = null;
  }

  /** Marks the time a lower bound; returns it. */
  long lookAgainAt(long at) {
    recheck = true;
    return at;
  }

  /** Marks the time a lower bound, waiting for {@code what} (in words); returns it. */
  long lookAgainAt(long at, String what) {
    waitingFor = what;
    return lookAgainAt(at);
  }

  /** Marks the time a lower bound the caller waits for in line; returns it. */
  long waitInLineUntil(long at) {
    recheck = true;
    queue = true;
    return at;
  }

  /**
   * Marks the time a lower bound the caller waits for in line, for the answers of the requests
   * already out ({@code what}, in words); returns it.
   */
  long waitForAnswersUntil(long at, String what) {
    forAnswers = true;
    waitingFor = what;
    return waitInLineUntil(at);
  }

  /** Marks the request refused whatever the wait; returns the time it would need. */
  long refuseUntil(long at) {
    refuse = true;
    return at;
  }
}
