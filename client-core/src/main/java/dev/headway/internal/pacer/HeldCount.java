package dev.headway.internal.pacer;

import dev.headway.QuotaUnit;

/**
 * Owns the count one {@link ServerPolicy} holds (units left in the current window, not counting
 * requests in flight) and where it came from: the request whose response set it, when that
 * request was sent, when the response arrived, and what was in flight then. Its rules say
 * whether another response is older than the count (it must not replace it), concurrent with
 * it (the server may have counted the two requests in either order) or counted after it, and
 * how many units in flight the server may already have counted. Part of its policy; under the
 * partition's monitor.
 */
final class HeldCount {
  /** Units left in the current window, not counting requests in flight; UNKNOWN if never said. */
  long remaining = PolicyState.UNKNOWN;
  /** The commit sequence of the request whose response set the count (tie-breaker). */
  private long seq = -1;
  /** When that request was sent. */
  private long sentNanos = Long.MIN_VALUE;
  /**
   * When the response that set the count arrived: a request sent after it reached the server
   * after that request did, so its count is newer; one sent before it is concurrent, and the
   * server may have counted it in either order.
   */
  private long receivedNanos = Long.MIN_VALUE;
  /**
   * Units in flight when that response arrived, less those answered since: sent before the
   * count was known, the server may already have counted them in {@link #remaining}.
   */
  private long overlapUnits;
  /**
   * Of {@link #overlapUnits}, those whose requests had been sent when the response arrived
   * (not committed to a later time), less those answered since: the server may have counted
   * these; a request not sent yet it cannot have.
   */
  private long sentOverlapUnits;
  /**
   * Requests answered after the request that set the count was sent whose own counts were not
   * taken (older than it, or concurrent with it and not lower): if a window rolled meanwhile,
   * the server may have counted them in the next window, after that request, so a later count
   * of that window is that much lower than the quota by our own requests.
   */
  private final UntakenAnswers untaken = new UntakenAnswers();
  /**
   * Units of requests sent before the window began whose responses came in it (their counts
   * ignored: they may be the earlier window's). The server may have counted them in this
   * window after any count taken from a request sent before {@link #strayAnsweredNanos}.
   */
  private long strayUnits;
  /** When the last of those responses arrived. */
  private long strayAnsweredNanos = Long.MIN_VALUE;

  /** Whether the server said how many units are left. */
  boolean known() {
    return remaining != PolicyState.UNKNOWN;
  }

  /**
   * Starts a window at {@code epochStartNanos} with {@code count} units left (UNKNOWN if not
   * assumed): as if a response at its start had said so, with nothing in flight before it.
   */
  void restart(long count, long epochStartNanos) {
    remaining = count;
    seq = -1;
    sentNanos = epochStartNanos;
    receivedNanos = epochStartNanos;
    overlapUnits = 0;
    sentOverlapUnits = 0;
    untaken.clear();
    strayUnits = 0;
    strayAnsweredNanos = Long.MIN_VALUE;
  }

  /**
   * Takes {@code count} from the response to {@code permit}, with {@code inFlightUnits} out, of
   * which {@code unsentUnits} committed to a later time; {@code sameWindow}: of the window whose
   * answers were not taken (not a later one's).
   */
  void set(long count, PermitImpl permit, long sentNanos, long nowNanos, long inFlightUnits,
      long unsentUnits, boolean sameWindow) {
    lower(count, sentNanos);
    seq = permit.seq;
    this.sentNanos = sentNanos;
    receivedNanos = nowNanos;
    overlapUnits = inFlightUnits;
    sentOverlapUnits = Math.max(0, Time.sub(inFlightUnits, unsentUnits));
    // An answer that arrived before this request was sent was counted before it: in its count.
    // One that arrived later may have been counted after it, in a window that began since.
    untaken.forgetBefore(sentNanos);
    if (!sameWindow) {
      untaken.forgetCounts();
    } else if (remaining != PolicyState.UNKNOWN) {
      // Such an answer that said less was counted after this request (or the server gave units
      // back between the two): the lower count is what may be left. The answers are no longer
      // in flight, so without it their units would be handed out again.
      remaining = Math.min(remaining, untaken.lowestCount());
    }
  }

  /**
   * Takes {@code count} from the response to a request sent at {@code sentNanos}, less the
   * stray units the server may have counted after it: those answered since that request was
   * sent. Once a request sent after the last of them is counted, they are in its count.
   */
  void lower(long count, long sentNanos) {
    if (strayUnits > 0 && sentNanos > strayAnsweredNanos) {
      strayUnits = 0;
    }
    remaining = count == PolicyState.UNKNOWN ? count : Math.max(0, count - strayUnits);
  }

  /**
   * Takes the lower {@code count} of a response to a request sent at {@code sentNanos}, before
   * the count held arrived, answered at {@code nowNanos} (see {@link #lower}). The answer is kept
   * with its count: a request sent before it arrived may have been counted before it, and that
   * request's higher count, taken later, must not hand its units out again.
   */
  void lowered(long count, long sentNanos, long nowNanos) {
    lower(count, sentNanos);
    untaken.add(nowNanos, 0, count);
  }

  /**
   * Records the response to {@code permit}'s request, sent before the window began, arriving at
   * {@code nowNanos}: its count is not taken (it may be the earlier window's), but the server may
   * have counted the request in this window after the count held, so its units are spent from
   * it until a count from a request sent after this answer holds them.
   */
  void stray(PermitImpl permit, QuotaUnit unit, long nowNanos) {
    long cost = permit.cost(unit);
    strayUnits = Time.add(strayUnits, cost);
    strayAnsweredNanos = nowNanos;
    if (remaining != PolicyState.UNKNOWN) {
      remaining = Math.max(0, remaining - cost);
    }
  }

  /**
   * Whether a request sent at {@code sentNanos} is concurrent with the one that set the count:
   * sent before its response arrived, so the server may have counted the two in either order.
   */
  boolean concurrent(long sentNanos) {
    return sentNanos <= receivedNanos;
  }

  /**
   * Whether the request of {@code permit}, sent at {@code sentNanos}, was counted after the one
   * that set the count: sent strictly after the count arrived (at one instant the order is
   * unknown) and committed after it.
   */
  boolean countedAfter(PermitImpl permit, long sentNanos) {
    return sentNanos > receivedNanos && permit.seq > seq;
  }

  /**
   * Whether the permit's request was sent before the one whose response set the count. Ordered
   * by send time, then by commit order: a reservation is committed early but sent late.
   */
  boolean olderThan(PermitImpl permit) {
    return permit.sendAtNanos < sentNanos
        || (permit.sendAtNanos == sentNanos && permit.seq < seq);
  }

  /**
   * Records that the request of {@code permit} was answered: if it was in flight when the count
   * arrived, it no longer overlaps it.
   */
  void answered(PermitImpl permit, QuotaUnit unit) {
    if (overlapUnits > 0 && permit.sendAtNanos <= receivedNanos) {
      overlapUnits = Math.max(0, overlapUnits - permit.cost(unit));
      sentOverlapUnits = Math.max(0, sentOverlapUnits - permit.cost(unit));
    }
  }

  /**
   * Records that the response to {@code permit}'s request, with {@code status}, was answered at
   * {@code nowNanos} but its count ({@code count} left; {@code Long.MAX_VALUE} if another
   * window's) not taken: the request was counted, in this window or, if it rolled meanwhile, in
   * the next one.
   */
  void untaken(PermitImpl permit, QuotaUnit unit, long nowNanos, long count, int status) {
    // (A refused request took nothing: it never counts as spent after the count held.)
    untaken.add(nowNanos, status < 400 ? permit.sendAtNanos : Long.MIN_VALUE,
        permit.cost(unit), count);
  }

  /**
   * Returns the units of answers whose counts were not taken and whose requests were sent after
   * the request that set the count: the server counted them after it, so the count held does
   * not show them, and they are no longer in flight. A server that gives units back as time
   * passes has given them back to them: a pace from the count held must not hand them out
   * again.
   */
  long answeredSince() {
    return untaken.unitsSentAfter(sentNanos);
  }

  /**
   * Returns how many units of a window that began since the count was set our own requests may
   * have spent: the {@code inFlightUnits}, those answered after the count's request was sent
   * whose counts were not taken, and the strays the count does not hold yet (sent before the
   * window began, answered in it: the server may have counted them in the next one).
   */
  long ours(long inFlightUnits) {
    return Time.add(Time.add(inFlightUnits, untaken.units()), strayUnits);
  }

  /** Returns how many of {@code inFlightUnits} the server may already have counted. */
  long overlap(long inFlightUnits) {
    return Math.min(overlapUnits, inFlightUnits);
  }

  /**
   * Returns how many of {@code inFlightUnits} were sent before the count arrived and are not
   * answered yet: the server may have counted them in it (those committed to a later time it
   * cannot have).
   */
  long sentOverlap(long inFlightUnits) {
    return Math.min(sentOverlapUnits, inFlightUnits);
  }

  /**
   * Spends the {@code unit}s of {@code permit}'s request, answered by a response that did not
   * mention the policy, unless the count is unknown or the server had counted the request in it
   * (sent before the request that set it). Returns whether it spent them.
   */
  boolean spend(PermitImpl permit, QuotaUnit unit) {
    if (remaining == PolicyState.UNKNOWN || permit.sendAtNanos < sentNanos) {
      return false;
    }
    remaining = Math.max(0, remaining - permit.cost(unit));
    return true;
  }
}
