package dev.headway.internal.pacer;

/**
 * Owns whether one server policy refills continuously (token bucket, GCRA, sliding window: units
 * come back all the time, not all at the reset) and, if so, how it is paced: from the instant
 * the server counted the last answered request, one unit per window / quota, slowed down by the
 * server's 429s. Part of its {@link ServerPolicy}; under the partition's monitor.
 */
final class RefillPacing {
  /** The slowest refill pacing: 16 times quota / window (several instances sharing the key). */
  static final int MAX_SLOWDOWN = 15 * 1024;

  /** The server showed that it gives units back before its reset. */
  boolean refilling;
  /**
   * The server's resets came round sooner than its window (a bucket's next unit): a 429 at
   * such a reset does not make it a fixed window.
   */
  boolean shortResets;
  /** The count the server itself reported in the response that set the policy's value. */
  long reported = PolicyState.UNKNOWN;
  /** The highest count the server reported (what the count can hold, at least); -1 if none. */
  long mostReported = PolicyState.UNKNOWN;
  /**
   * A 429 answered a request sent at the pace of units back before the reset: others spend the
   * count too (or it is no bucket), and that pace is not used again.
   */
  boolean backBeforeResetDropped;
  /**
   * When the server counted that response's request, as estimated: halfway between its send and
   * its response. In refill mode the policy's count holds at this instant.
   */
  private long fromNanos;
  /**
   * How much slower than quota / window to pace in refill mode, in 1/1024ths: each 429 while
   * paced doubles it (at least 1/64), up to 15 times. A sliding window refills at the rate of the
   * previous window, which a client that lost a few units to a hold left below the quota:
   * exactly quota / window is the edge, and the server's 429s say by how much to stay below it.
   */
  private int slowdown;
  /** When the refill interval was last made longer: one doubling per overshoot. */
  private long slowedAtNanos = Long.MIN_VALUE;
  /** The send and receive instants of the request whose count is {@link #reported}. */
  private long reportedSentNanos;
  private long reportedAtNanos;
  /** A count did not rise although the refill pace promised a unit: the server may step. */
  private boolean flat;
  /**
   * The server gives units back in steps this long apart (a gateway that reads its clock in
   * whole seconds gives a second's units at each second), not one by one; 0: smoothly.
   */
  long stepNanos;
  /**
   * A step falls in [{@link #stepLoNanos}, {@link #stepHiNanos}], and then every
   * {@link #stepNanos}; unknown when {@code stepHiNanos - stepLoNanos >= stepNanos}.
   */
  private long stepLoNanos;
  private long stepHiNanos;

  /** Whether to pace at the refill rate: refilling, with a quota and a window known. */
  boolean paced(long quota, long windowNanos) {
    return refilling && quota > 0 && windowNanos > 0;
  }

  /**
   * Whether the count {@code left}, in the response (status {@code status}) to a request
   * costing {@code cost} that the server counted after the last count, shows units given
   * back: it is above what that count left, less what the request took. A refused request
   * (status 400 or more) took nothing: a count of 0 after 0 is no rise.
   */
  boolean rose(long left, long cost, int status) {
    return reported != PolicyState.UNKNOWN && left > reported - (status >= 400 ? 0 : cost);
  }

  /**
   * Records the server's count {@code count} for a request costing {@code cost} (status
   * {@code status}) sent at {@code sentNanos} and answered at {@code nowNanos};
   * {@code after}: the server counted it after the request of the count held. While paced at
   * the refill rate ({@code quota} per {@code windowNanos}) by a server that does not say when
   * units come back ({@code silentOnReset}: no reset), learns whether they come back in steps,
   * and where the steps fall.
   */
  void counted(long count, long cost, int status, boolean after, boolean silentOnReset,
      long sentNanos, long nowNanos, long quota, long windowNanos) {
    if (after && silentOnReset && refilling && quota > 0 && windowNanos > 0
        && reported != PolicyState.UNKNOWN) {
      steps(count - (reported - (status >= 400 ? 0 : cost)), count, status >= 400, sentNanos,
          nowNanos, quota, Math.max(1, (windowNanos + quota - 1) / quota));
    }
    reported = count;
    mostReported = Math.max(mostReported, count);
    reportedSentNanos = sentNanos;
    reportedAtNanos = nowNanos;
    fromNanos = sentNanos + Math.max(0, nowNanos - sentNanos) / 2;
  }

  /**
   * Steps. A count that came back by {@code rise} units ({@code count} left now) for a request
   * sent at {@code sentNanos} and answered at {@code nowNanos} ({@code refused}: with a 429),
   * against the count before. A server paced at one unit every {@code perUnitNanos} that gave
   * nothing back when a unit was due (or refused a request the pace let go), then two or more at
   * once, refills in steps of (units given back) x (refill interval). From then on a rise puts a
   * step between the last count's send and this answer, no rise (with room below the quota for a
   * step) puts none between the last count's answer and this send; both narrow where the steps
   * fall. A refusal of a request sent after a step surely passed says the steps are longer.
   */
  private void steps(long rise, long count, boolean refused, long sentNanos, long nowNanos,
      long quota, long perUnitNanos) {
    if (stepNanos == 0) {
      // Flat: the pace promised a unit (a unit's time had passed, or the pace let the request
      // go) and the count did not rise.
      if (rise <= 0 && (refused || Time.sub(sentNanos, fromNanos) >= perUnitNanos)) {
        flat = true;
      } else if (rise >= 2 && flat) {
        stepNanos = Time.mul(perUnitNanos, rise);
        stepLoNanos = reportedSentNanos;
        stepHiNanos = nowNanos;
      }
      return;
    }
    if (refused && rise <= 0 && sentNanos >= firstStepAfterCount()) {
      // Refused although sent after a step surely passed since the count: the steps are longer
      // than thought (a step found from a rise that others had already spent part of). A unit's
      // worth longer, never more than the quota's worth (no step gives back more than the
      // bucket holds), and where they fall is to be found again.
      stepNanos = Math.min(Time.add(stepNanos, perUnitNanos), Time.mul(quota, perUnitNanos));
      stepHiNanos = Time.add(stepLoNanos, stepNanos);
      return;
    }
    if (rise > 0) {
      narrowTo(reportedSentNanos, nowNanos);
    } else if (count + stepNanos / perUnitNanos <= quota) {
      exclude(reportedAtNanos, sentNanos);
    }
  }

  /** A step fell within [from, to]: the steps known are those that agree. */
  private void narrowTo(long from, long to) {
    if (Time.sub(to, from) >= stepNanos) {
      return;
    }
    if (Time.sub(stepHiNanos, stepLoNanos) >= stepNanos) {
      stepLoNanos = from;
      stepHiNanos = to;
      return;
    }
    // Move [from, to] by whole steps next to what is known, then keep the overlap.
    long k = Math.floorDiv(Time.sub(stepHiNanos, from), stepNanos);
    long lo = Time.add(from, Time.mul(k, stepNanos));
    long hi = Time.add(to, Time.mul(k, stepNanos));
    if (hi < stepLoNanos) {
      lo = Time.add(lo, stepNanos);
      hi = Time.add(hi, stepNanos);
    }
    if (lo > stepHiNanos || hi < stepLoNanos) {
      stepLoNanos = from; // the steps moved (or are not steps of this length): start again
      stepHiNanos = Time.add(from, stepNanos);
      return;
    }
    stepLoNanos = Math.max(stepLoNanos, lo);
    stepHiNanos = Math.min(stepHiNanos, hi);
  }

  /** No step fell within (from, to): the steps known are narrowed from the side it covers. */
  private void exclude(long from, long to) {
    if (to <= from || Time.sub(stepHiNanos, stepLoNanos) >= stepNanos) {
      return;
    }
    if (Time.sub(to, from) >= stepNanos) {
      stepHiNanos = Time.add(stepLoNanos, stepNanos); // no step in a whole step: forget where
      return;
    }
    long k = Math.floorDiv(Time.sub(stepHiNanos, from), stepNanos);
    long lo = Time.add(from, Time.mul(k, stepNanos));
    long hi = Time.add(to, Time.mul(k, stepNanos));
    for (int i = 0; i < 2; i++, lo = Time.sub(lo, stepNanos), hi = Time.sub(hi, stepNanos)) {
      if (lo <= stepLoNanos && hi >= stepHiNanos) {
        stepHiNanos = Time.add(stepLoNanos, stepNanos);
        return;
      }
      if (lo <= stepLoNanos && hi > stepLoNanos) {
        stepLoNanos = hi;
      } else if (hi >= stepHiNanos && lo < stepHiNanos) {
        stepHiNanos = lo;
      }
    }
  }

  /**
   * Returns when {@code needed} more units than the count have come back. In refill mode the
   * server's count grows by one every window / quota from the instant it was counted, up to
   * the quota: a request may go once the count, less what is in flight, covers it. Requests
   * committed for later are in flight, so a queue of callers is spaced one refill interval
   * apart, and nothing waits for a reset that, for these servers, only says when the quota is
   * entirely back (draft section 4.1.2).
   */
  long backAt(long needed, long quota, long windowNanos) {
    long perUnitNanos = Math.max(1, (windowNanos + quota - 1) / quota);
    if (stepNanos > 0) {
      // In steps: each brings stepNanos / perUnitNanos units, the first sure one after the
      // count's instant is at the upper end of where the steps fall (a step after the count's
      // answer, the latest it can have been counted, when not known where).
      long slowed = Time.add(perUnitNanos, Time.mul(perUnitNanos / 1024, slowdown));
      long perStep = Math.max(1, stepNanos / slowed);
      long steps = (needed + perStep - 1) / perStep;
      long first = firstStepAfterCount();
      return Time.add(first, Time.mul(steps - 1, stepNanos));
    }
    perUnitNanos = Time.add(perUnitNanos, Time.mul(perUnitNanos / 1024, slowdown));
    return Time.add(fromNanos, Time.mul(needed, perUnitNanos));
  }

  /**
   * The first instant a step has surely passed since the server counted the count held: at the
   * upper end of where the steps fall, else a step after the count's answer (the latest it can
   * have been counted).
   */
  private long firstStepAfterCount() {
    if (Time.sub(stepHiNanos, stepLoNanos) >= stepNanos) {
      return Time.add(reportedAtNanos, stepNanos);
    }
    long k = Math.floorDiv(Time.sub(fromNanos, stepLoNanos), stepNanos) + 1;
    return Time.add(stepHiNanos, Time.mul(k, stepNanos));
  }

  /** When the server counted the request of the count held, as estimated. */
  long countedAtNanos() {
    return fromNanos;
  }

  /** Records a successful response while paced at the refill rate: speed up again slowly. */
  void admitted() {
    slowdown -= slowdown >> 8;
  }

  /** Records a 429 while paced at the refill rate: pace slower from now on. */
  void throttled(long sentNanos, long nowNanos) {
    if (sentNanos < slowedAtNanos) {
      return; // sent before the last slowdown: the same overshoot, already answered
    }
    slowedAtNanos = nowNanos;
    slowdown = Math.min(MAX_SLOWDOWN, Math.max(16, slowdown * 2));
  }
}
