package dev.headway.internal.pacer;

/**
 * Owns the window of one {@link ServerPolicy}: its length, when the current window resets, when
 * it started (responses to requests sent before belong to an earlier window), and whether the
 * reset is a {@code Retry-After}'s end. Its rules: how a passed reset moves on by whole windows,
 * which of two reset times read from whole seconds to keep, whether a reset starts a later
 * window, and when a {@code Retry-After} takes the reset's place. Part of its policy; under the
 * partition's monitor.
 */
final class ServerWindow {
  private static final long ONE_SECOND_NANOS = 1_000_000_000L;
  /**
   * How far apart two answers of one burst may read a log's reset given in whole seconds (the
   * newest unit's second, Flask-Limiter's) against their whole-second {@code Date}s: an answer
   * whose request was counted in one second and whose {@code Date} was written in the next reads
   * it a second sooner than the answers around it, and the reset itself moves on by a second when
   * the newest unit's second does.
   */
  private static final long TRAIL_READINGS_NANOS = 2 * ONE_SECOND_NANOS;

  /** The window's length; 0 if the server did not say. */
  long windowNanos;
  /** Whether the server said when the window resets. */
  boolean hasReset;
  /** When it resets, if {@link #hasReset}: the tightest upper bound the responses gave. */
  long resetAtNanos;
  /**
   * The earliest the window of the last response taken may end, if {@link #hasReset}: the
   * server rounds the reset to whole seconds and counted the request at some instant of its
   * round trip, so up to a second before the request's send time plus the reset it said.
   */
  private long resetFloorNanos;
  /** Requests sent before this belong to an earlier window: their responses are ignored. */
  long epochStartNanos = Long.MIN_VALUE;
  /** The reset held is one the window moved on to by itself ({@link #next}), no server's yet. */
  private boolean movedOn;
  /** The reset is a Retry-After: when it passes, nothing is assumed back (stale). */
  boolean probeAtReset;
  /**
   * The latest the window that a request of ours opened ends, if its length is whole seconds
   * (see {@link #opened}); Long.MIN_VALUE if none was seen opening.
   */
  private long openedEndNanos = Long.MIN_VALUE;
  /** The reset the answer to the request that opened the window gave. */
  private long openedResetNanos;
  /** Whether an answer to a unit sent at {@link #openedEndNanos} said where it was counted. */
  private boolean openedJudged;
  /**
   * Units sent at an opened end that found the next window, less those that found the window
   * held: below zero, this server's opening answer does not give a window a second long (a
   * delta reset, or a grid of windows), and its windows are not met there again.
   */
  private int openedScore;
  /**
   * The server's last reset, as the earliest response that gave it read it (within a second:
   * whole seconds); Long.MIN_VALUE before any.
   */
  private long serverResetNanos = Long.MIN_VALUE;
  /**
   * Whether the server's reset last moved on by one window: once it had passed (the request
   * that moved it sent no sooner than a second before it), by the window within a second, and
   * by two seconds or more (see {@link #movesByWholeWindows}).
   */
  private boolean movedByAWindow;
  /**
   * The run of answers the last one seen ends: each alone in flight (sent after the one before
   * came back, and nothing else of ours out when either came back, so the server counted
   * nothing of ours between them), admitted, with the count exactly its own units below the
   * one before (nothing came back between them, and nobody else spent any). The count the
   * server held after the last answer seen (negative if none or it said no reset): its own, or,
   * if it came back with answers of ours that were out together, the lowest of theirs (they
   * may come back in another order than they were counted in); when it arrived, whether nothing
   * else of ours was out then, and when the run's first request was sent and the reset its
   * answer gave.
   */
  private long lastLeft = -1;
  private long lastAnsweredNanos;
  private boolean lastAlone;
  private long runSentNanos;
  private long runResetNanos;
  /**
   * Whether the run's first answer found the count holding no more than our own units: our
   * admitted answers that gave its reset (within {@link #TRAIL_READINGS_NANOS}), at its
   * request's cost (a cost learned from the counts is known by then, not for the first answers).
   */
  private boolean runOurs;
  /**
   * The reset our admitted answers last gave (the earliest reading, the others within
   * {@link #TRAIL_READINGS_NANOS}), and how many gave it.
   */
  private long oursResetNanos = Long.MIN_VALUE;
  private long oursAnswers;
  /**
   * Whether the answer last seen ({@link #answered}) is in such a run and its reset moved on from
   * the run's first by the time between their requests: it trails our own requests.
   */
  private boolean trailsRun;

  /** Whether the reset has passed at {@code nowNanos}. */
  boolean passed(long nowNanos) {
    return hasReset && nowNanos >= resetAtNanos;
  }

  /**
   * The reset passed and a new window starts with the quota: with a known length, the reset
   * moves on to the end of the window {@code nowNanos} is in; without one, it is forgotten.
   */
  void next(long nowNanos) {
    if (windowNanos > 0) {
      long windows = (nowNanos - resetAtNanos) / windowNanos + 1;
      resetAtNanos = Time.add(resetAtNanos, Time.mul(windows, windowNanos));
      epochStartNanos = resetAtNanos - windowNanos;
      movedOn = true;
    } else {
      epochStartNanos = resetAtNanos;
      hasReset = false;
    }
  }

  /** The reset passed and nothing is assumed back: a new epoch starts, with no reset known. */
  void end() {
    epochStartNanos = resetAtNanos;
    hasReset = false;
    probeAtReset = false;
  }

  /** Forgets the reset (what the server said about it is no longer believed). */
  void forget() {
    hasReset = false;
    probeAtReset = false;
  }

  /**
   * Takes the reset ({@code resetAt}, or Long.MIN_VALUE if it said none) of a response to a
   * request sent at {@code sentNanos}, received at {@code nowNanos}; {@code sameWindow}: its
   * count is known to be of the window held (not above the count held, not the next window's).
   */
  void take(long resetAt, long sentNanos, long nowNanos, boolean sameWindow) {
    boolean carried = movedOn;
    movedOn = false;
    boolean trails = trailsRun;
    trailsRun = false;
    if (resetAt == Long.MIN_VALUE) {
      hasReset = false;
      return;
    }
    moved(resetAt, sentNanos);
    // "t" is whole seconds, rounded by the server: every response gives an upper bound of the
    // true reset. Within one window a later bound less than a second after ours is rounding;
    // keep the tighter one. Larger moves are the server's, but for one that only trails our
    // own requests (a sliding log's newest unit): see trailsOurRequests.
    if (!(sameWindow && hasReset && resetAtNanos > nowNanos && resetAt >= resetAtNanos
        && (resetAt - resetAtNanos < ONE_SECOND_NANOS || (trails && trailsOurRequests(carried))))) {
      resetAtNanos = resetAt;
    }
    // Less the second of rounding and the round trip, it is a lower bound too.
    resetFloorNanos = Time.sub(resetAt, Time.add(nowNanos - sentNanos, ONE_SECOND_NANOS));
    hasReset = true;
  }

  /**
   * Whether a later reset that trails a run of our own requests ({@link #answered}) leaves the
   * reset held in place: with no window said (nor one carried over or a {@code Retry-After}'s),
   * the run's first answer gave the reset held (within {@link #TRAIL_READINGS_NANOS}). Such a
   * reset is a sliding log's (Flask-Limiter's is when its newest unit leaves): the units counted
   * by the run's first answer are back at the reset held, and what the count holds then is
   * probed as after any reset. A bucket's reset ("full again") moves on by its refill interval
   * with each unit spent; a unit comes back in that time, so a run of exact drops in it spans
   * less than the moves it makes.
   */
  private boolean trailsOurRequests(boolean carried) {
    return windowNanos <= 0 && !carried && !probeAtReset
        && Math.abs(Time.sub(runResetNanos, resetAtNanos)) < TRAIL_READINGS_NANOS;
  }

  /**
   * Sees an answer before it is taken: its reset ({@code resetAt}, Long.MIN_VALUE if none), its
   * count {@code left} of {@code quota}, the {@code units} of its request (sent at
   * {@code sentNanos}), whether it was {@code admitted}, whether no other request of ours was
   * out then ({@code alone}: sent and not answered), and when it came back ({@code nowNanos}).
   * Every answer of the policy, taken or not: it ends the run of exact drops (see
   * {@link #lastLeft}) or continues it, and says whether its reset trails the run by the time
   * between their requests (a second or more: a shorter one cannot be told from the rounding, a
   * fast bucket's whole-second reset jumps on by a second while a few units are spent).
   */
  void answered(long resetAt, long left, long quota, long units, boolean admitted,
      boolean alone, long sentNanos, long nowNanos) {
    if (admitted && resetAt != Long.MIN_VALUE) {
      if (oursResetNanos != Long.MIN_VALUE
          && Math.abs(Time.sub(resetAt, oursResetNanos)) < TRAIL_READINGS_NANOS) {
        oursAnswers++;
        oursResetNanos = Math.min(oursResetNanos, resetAt);
      } else if (oursResetNanos == Long.MIN_VALUE || resetAt > oursResetNanos) {
        oursResetNanos = resetAt;
        oursAnswers = 1;
      }
    }
    boolean step = alone && lastAlone && resetAt != Long.MIN_VALUE && left >= 0 && lastLeft >= 0
        && sentNanos >= lastAnsweredNanos;
    boolean exact = step && admitted && Time.sub(lastLeft, left) == units;
    // Answers that came back while others of ours were out may come back in another order than
    // the server counted their requests in: what it held after them all is the lowest of their
    // counts (had a unit come back meanwhile, the next drop is not exact).
    long counted = !lastAlone && lastLeft >= 0 && left >= 0 && resetAt != Long.MIN_VALUE
        ? Math.min(lastLeft, left) : left;
    if (!exact) {
      runSentNanos = sentNanos;
      runResetNanos = resetAt;
      runOurs = quota > 0 && counted >= 0 && resetAt != Long.MIN_VALUE
          && Math.abs(Time.sub(resetAt, oursResetNanos)) < TRAIL_READINGS_NANOS
          && Time.sub(quota, counted) <= Time.mul(oursAnswers, units);
    }
    long gap = Time.sub(sentNanos, runSentNanos);
    trailsRun = exact && runOurs && gap >= ONE_SECOND_NANOS
        && Math.abs(Time.sub(Time.sub(resetAt, runResetNanos), gap)) < ONE_SECOND_NANOS;
    lastLeft = resetAt == Long.MIN_VALUE ? -1 : counted;
    lastAnsweredNanos = nowNanos;
    lastAlone = alone;
  }

  /**
   * Takes the server's reset {@code resetAt} of a response to a request sent at
   * {@code sentNanos}: the same as the last within a second (the earliest reading kept), or a
   * move, judged by {@link #movesByWholeWindows}.
   */
  private void moved(long resetAt, long sentNanos) {
    long last = serverResetNanos;
    if (last != Long.MIN_VALUE && Math.abs(Time.sub(resetAt, last)) <= ONE_SECOND_NANOS) {
      serverResetNanos = Math.min(last, resetAt);
      return;
    }
    long move = last == Long.MIN_VALUE ? 0 : Time.sub(resetAt, last);
    movedByAWindow = windowNanos > 0 && move >= 2 * ONE_SECOND_NANOS
        && Math.abs(Time.sub(move, windowNanos)) <= ONE_SECOND_NANOS
        && sentNanos >= Time.sub(last, ONE_SECOND_NANOS);
    serverResetNanos = resetAt;
  }

  /**
   * Whether the server's reset last moved on by one window, once it had passed: the end of a
   * fixed window that a counter counts in (a fixed window, or a sliding-window counter, whose
   * reset is the end of its current fixed window). A bucket's reset ("full again") moves with
   * every request and does not pass while it is in use; a one-second window's move is
   * rounding.
   */
  boolean movesByWholeWindows() {
    return movedByAWindow;
  }

  /**
   * Records that the request answered at {@code nowNanos}, whose reset is {@code resetAt}, was
   * the first the server counted in its window (its count is the quota less its own cost). A
   * server that opens a window at the request that finds none (express-rate-limit) ends it a
   * window later; read in whole seconds from the whole second of the answer's {@code Date}, its
   * epoch-second reset is that window plus the second of rounding up (the request reached the
   * server inside the {@code Date}'s second, and a window of whole seconds ends at the same
   * fraction of a later one). So such a window ends no later than this answer plus its reset
   * less a second, within the request's round trip, while the reset held may be up to a second
   * later: waited for, the next window opens just past a whole second, and its reset is rounded
   * up by almost a second again. A reset no further from the answer than the window said is not
   * rounded past it, and records nothing.
   */
  void opened(long resetAt, long nowNanos) {
    if (resetAt == Long.MIN_VALUE
        || (windowNanos > 0 && Time.sub(resetAt, nowNanos) <= windowNanos)) {
      // No further than the window said: not rounded up past it, nothing to meet sooner.
      openedEndNanos = Long.MIN_VALUE;
      return;
    }
    openedResetNanos = resetAt;
    openedEndNanos = Time.sub(resetAt, ONE_SECOND_NANOS);
    openedJudged = false;
  }

  /**
   * Takes the answer to a request sent at {@code sentNanos}: if it was the first sent at the
   * opened end of the window held, before its reset, whether it found the next window
   * ({@code nextWindow}: the count came back with a later reset) or the window held.
   */
  void openedAnswered(long sentNanos, boolean nextWindow) {
    if (openedEndNanos == Long.MIN_VALUE || openedJudged || !hasReset
        || sentNanos < openedEndNanos || sentNanos >= resetAtNanos) {
      return;
    }
    openedJudged = true;
    openedScore = Math.max(-1, Math.min(openedScore + (nextWindow ? 1 : -1), 1 << 20));
  }

  /**
   * The latest the window held ends if a request of ours opened it and it lasts whole seconds
   * (see {@link #opened}), when that is before its reset; Long.MIN_VALUE otherwise (not seen
   * opening, or another window's). A unit sent then finds either the next window (the count
   * comes back: it opens there, up to a second sooner) or the window held, a second short of a
   * whole-second length or a grid of windows whose reset is exact (the unit is spent in it, as
   * it would have been).
   */
  long openedEnd() {
    if (!hasReset || openedEndNanos == Long.MIN_VALUE || probeAtReset || openedScore < 0
        || Math.abs(resetAtNanos - openedResetNanos) >= ONE_SECOND_NANOS
        || openedEndNanos >= resetAtNanos) {
      return Long.MIN_VALUE;
    }
    return openedEndNanos;
  }

  /**
   * Whether the window of the last response taken may have ended at {@code nowNanos}: a count
   * that went up since may be the next window's rather than units given back. Without a reset
   * nothing says so.
   */
  boolean mayHaveEnded(long nowNanos) {
    return hasReset && nowNanos >= resetFloorNanos;
  }

  /**
   * Whether a response's reset ({@code resetAt}, or Long.MIN_VALUE if none) starts a window
   * after the current one: later by more than the second of rounding and by at least half the
   * window.
   */
  boolean newWindow(long resetAt) {
    if (!hasReset || resetAt == Long.MIN_VALUE) {
      return false;
    }
    long moved = Time.sub(resetAt, resetAtNanos);
    return moved > ONE_SECOND_NANOS && moved >= windowNanos / 2;
  }

  /**
   * Whether the first reset a response gives ({@code resetAt}, for a request whose round trip
   * took {@code roundTripNanos}) after the window moved on by its length falls well before the
   * end of that window: earlier by more than the second of rounding and the round trip. A fixed
   * window's resets come a window apart; a server whose reset comes round sooner (a bucket's
   * "when the next unit is back", or "when it is all back" for a small bucket) gives units back
   * as time passes, not all at its reset.
   */
  boolean soonerThanAWindow(long resetAt, long roundTripNanos) {
    return movedOn && resetAt != Long.MIN_VALUE && hasReset && Time.sub(resetAtNanos, resetAt)
        > Time.add(ONE_SECOND_NANOS, Math.max(0, roundTripNanos));
  }

  /**
   * Whether a response's reset ({@code resetAt}, or Long.MIN_VALUE if none) may be the current
   * window's: not earlier than its reset by more than the second of rounding. One that is, is an
   * earlier window's.
   */
  boolean mayBeCurrent(long resetAt) {
    return !hasReset || resetAt == Long.MIN_VALUE
        || resetAt >= Time.sub(resetAtNanos, ONE_SECOND_NANOS);
  }

  /**
   * Whether a unit came back after {@code retryNanos}, as a throttled response's
   * {@code Retry-After} said, much sooner than the reset {@code toResetNanos} away: the server
   * refills continuously (a sliding window's reset is when the whole quota is back).
   */
  static boolean muchSooner(long retryNanos, long toResetNanos) {
    return Time.add(Time.mul(retryNanos, 2), 2 * ONE_SECOND_NANOS) < toResetNanos;
  }

  /**
   * A {@code Retry-After} ending at {@code untilNanos} takes precedence over a later reset: the
   * window is looked at again when it ends, and then only probed. If it ends within the rounding
   * of the two, the later instant is kept: a whole-second {@code Retry-After} may be rounded down
   * (up to a second short, 0 in the window's last second) and the reset up (up to a second late,
   * or measured from a whole-second {@code Date}), so one less than two seconds and the round
   * trip ({@code roundTripNanos}) before the reset names the same instant, and only the reset is
   * sure not to be early.
   */
  void retryAfter(long untilNanos, long roundTripNanos) {
    if (resetAtNanos <= untilNanos) {
      return;
    }
    long rounding = Time.add(2 * ONE_SECOND_NANOS, Math.max(0, roundTripNanos));
    if (Time.sub(resetAtNanos, untilNanos) >= rounding) {
      resetAtNanos = untilNanos;
    }
    probeAtReset = true;
  }
}
