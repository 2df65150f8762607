package dev.headway.internal.pacer;

import dev.headway.PacingStrategy;
import dev.headway.PolicySnapshot;
import dev.headway.QuotaUnit;
import dev.headway.RateLimitSignal;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A rate learned from what a server does when it says nothing about its quota: it throttles
 * (a bare 429, or one with only {@code Retry-After}) and gives no number. One per partition,
 * added at the first such 429 after the server admitted a request, and dropped as soon as a
 * response carries a quota or a count (a header number always wins over a guess) or the check
 * of a long block lifts the block it was learned from. Paces one request every
 * {@code 1 / rate} and adapts the rate; docs/pacer.md ("When the server says little: the
 * learner") explains the rules and their limits.
 *
 * <ul>
 *   <li>The first 429 knows no pace: the ceiling is what the partition sent since first
 *       contact, over that time and the hold (an upper bound: a burst spent stored capacity).
 *       The rate is one request per hold (a {@code Retry-After} of a bucket that holds one
 *       token), not a burst. After a hold longer than maxWait, or a {@code Retry-After} further
 *       off than the burst that spent the server took (and than a second), the hold's end is a
 *       window's end and the first window a whole cycle: what the server admitted from first
 *       contact to it (less half a request; those in flight at the 429 count too) over the
 *       window's length (with a whole-second {@code Retry-After}, the whole number of seconds
 *       in the last second before the told end) is the rate discovered and the ceiling at once.
 *       It is dropped at the first 429 to a request paced at it or below, and not probed past
 *       before a minute has gone by and a window paced at it has passed (from the end of the
 *       first hold, where that pace starts).
 *   <li>At a 429 to a request sent since the last cut, with one admitted since, the rate that
 *       overshot becomes the ceiling and the rate is cut to the lower of nine tenths of it and
 *       what the server sustained over the cycle (the requests it admitted since the previous
 *       cut, over the time from the end of that cut's hold to the end of this one; no more than
 *       the rate discovered), but not below one request per {@code Retry-After} hold: that hold
 *       says when the next one is back. A bare 429's hold is the pacer's own backoff and bounds
 *       nothing, nor does a hold shorter than the pace's spacing (the request was that much too
 *       early). A told cycle that admitted only its reopening (the first request paced after a
 *       told end refused, with a {@code Retry-After} of more than a second) leaves no ceiling
 *       above the cut: that pace was never admitted. Unless another client spends the same
 *       quota (a request sent at or after a told end was refused with nothing admitted since
 *       the cut: the server did not give at the end it told; the store has seen other
 *       instances; or the cut that drops a told first window's measure tells the next end a
 *       whole first window after the last: a window spent after giving this instance one
 *       request), where the others may have taken what this pace would have got.
 *   <li>A 429 with nothing admitted since the cut: the server is spent. With a
 *       {@code Retry-After} the hold waits for it; a bare 429 halves the rate of the requests
 *       into it (no slower than one per 32 {@code maxWait}, the longest gap between two checks of
 *       a long block: {@link LongBlocks} does not check past a learned pace), and the first
 *       admitted request restores the rate from before.
 *   <li>The rate discovered: from the first request admitted after one cut (the reopening) to
 *       the first admitted after the next, the server went from giving, through spent, to giving
 *       again, so what it admitted over that time is what it gives (a bucket's refill, a
 *       window's quota per window). Each such cycle that tells it well enough (ten admitted or
 *       more, or one or more when {@code Retry-After} told both ends of a cycle of 20 s or more;
 *       a pace that kept up; reopenings known to a tenth of it) adds to the rate discovered,
 *       recent cycles weighing more. Cycles in a row too short to count on their own are one
 *       cycle from the first one's reopening to the last one's, and count once they admitted
 *       ten. The cycle after the first 429 follows the first burst and
 *       measures nothing, unless it followed a told first window and admitted as many as that
 *       window (a fixed window met part-way: between two told ends it gave its quota): then it
 *       replaces the first window's measure.
 *   <li>Each admitted request sent since the last cut closes an eighth of the gap to the rate
 *       discovered, and goes past it only as a probe for a raised limit: a minute after the last
 *       429 (twice as long after each probe refused within a cut of the rate discovered, up to
 *       32 maxWait; a minute again after one refused further past it), while callers wait for
 *       the pace, each admitted request adds 1/1024 of the rate. Before anything is
 *       discovered it closes an eighth of the gap to 0.95 of the ceiling (halfway between it
 *       and a cut to nine tenths) and adds {@code 1/4096} of the rate.
 *   <li>A bare server whose cycle between two reopenings admitted as many as the one before (or,
 *       for the first, as the first burst), ten or more, is a steady window of that count: no
 *       more than it goes between one reopening and the next one predicted, where one request
 *       probes ({@link SteadyWindow}).
 *   <li>Only a 429 teaches: a 503 says the server is overloaded, not that a quota is spent.
 * </ul>
 *
 * <p>Under the partition's monitor.
 */
final class LearnedRate extends PolicyState {
  /** The name (and source) of the learned policy in snapshots. */
  static final String NAME = "learned";
  private static final double SECOND = 1e9;
  /** The cut: a 429 leaves at most this share of the rate that drew it. */
  private static final double CUT = 0.9;
  /** The slowest pace: one request a day (the check of a long block goes anyway). */
  private static final double MIN_RATE = 1.0 / 86_400;
  /**
   * How long after a 429 the pace stays at the rate discovered: a probe past it (for a limit
   * that may have been raised) goes at most once in this time.
   */
  static final long PROBE_INTERVAL_NANOS = 60_000_000_000L;
  /**
   * How fast a probe raises the pace past the rate discovered: this share of the rate per
   * admitted request (it doubles in about 710 requests: a minute or two against a server that
   * gives a few a second, and no faster than the server gives against a slow one).
   */
  private static final double PROBE_STEP = 1.0 / 1024;
  /**
   * How long a cycle's measure counts in the rate discovered: its weight halves every this long
   * of later cycles, so a limit that changed is rediscovered within a few of them.
   */
  private static final double MEMORY_NANOS = 120e9;
  /** A cycle measures a rate only if it admitted at least this many requests. */
  private static final long MEASURED_ADMITTED = 10;
  /** A cycle whose pace started at this share of what it sustained or more kept up with it. */
  private static final double SATURATED = 0.8;

  /** Requests per second paced now. */
  private double rate;
  /** The rate that drew the last 429 (or, before any pace, the first burst's rate). */
  private double ceiling;
  /** When the last request was committed to be sent. */
  private long lastSendNanos = Long.MIN_VALUE;
  /** When the current cycle started: the end of the previous cut's hold. */
  private long cycleStartNanos;
  /**
   * The rate discovered: the requests admitted over whole cycles (from one reopening after a
   * cut to the next), over their time, recent cycles weighing more; 0 before the first cycle
   * that tells it.
   */
  private double found;
  /** The admitted requests and the time (ns) behind {@link #found}, decayed. */
  private double foundAdmitted;
  private double foundNanos;
  /** The pace when the current cycle started (its slowest: it only rises within a cycle). */
  private double cycleStartRate;
  /** When the first request admitted in the current cycle was sent; MIN_VALUE before it. */
  private long openedAtNanos = Long.MIN_VALUE;
  /** How far apart the sign the server was spent and the reopening of the current cycle were. */
  private long openedGapNanos;
  /** Whether a request into the spent server was refused since the last cut, none admitted. */
  private boolean probedSpent;
  /** Whether the current cycle's reopening was found by such probes. */
  private boolean openedProbed;
  /** The cycle the last cut closed, measured once the next opens: its admitted requests. */
  private long closingAdmitted;
  /** When that cycle opened; Long.MIN_VALUE if there is none to measure. */
  private long closingFromNanos = Long.MIN_VALUE;
  /** The pace that cycle started at. */
  private double closingStartRate;
  /** The {@code Retry-After} hold that ended that cycle; 0 after a bare 429. */
  private long closingHoldNanos;
  /**
   * Cycles in a row, each too short to count, that end where the cycle being closed began: when
   * the first of them opened (Long.MIN_VALUE if there are none), what they admitted, and the
   * slowest pace they started at.
   */
  private long shortFromNanos = Long.MIN_VALUE;
  private long shortAdmitted;
  private double shortStartRate;
  /**
   * The server was spent at least until this: the latest refused request was sent then, or a
   * {@code Retry-After} said so.
   */
  private long spentUntilNanos = Long.MIN_VALUE;
  /** When a caller last waited for the pace: callers want more than it gives. */
  private long wantedMoreNanos = Long.MIN_VALUE;
  /** Requests admitted in the current cycle. */
  private long cycleAdmitted;
  /** A 429 to a request sent before this belongs to the overshoot already cut. */
  private long cutAtNanos;
  /** The 429s the rate was cut at. */
  private int cuts;
  /** The latest end a {@code Retry-After} told; Long.MIN_VALUE before any. */
  private long toldEndNanos = Long.MIN_VALUE;
  /**
   * Whether another client spends the same quota: a request sent at or after an end a
   * {@code Retry-After} told was refused with nothing admitted since the cut, so the server did
   * not give at the end it told (the instances of a fleet without a store all come back there);
   * or the store has seen other instances share the partition.
   */
  private boolean othersSpend;
  /** The rate before a run of bare 429s to a spent server halved it; 0 outside such a run. */
  private double spentFrom;
  /**
   * Whether {@link #found} is still only the first window's measure (a told first hold), which
   * the first 429 to a request paced at it or below drops.
   */
  private boolean firstWindow;
  /** The length of the told first window (its measure's time); 0 if there was none. */
  private double firstWindowNanos;
  /** What the first window admitted, while {@link #firstWindow}. */
  private double firstAdmitted;
  /** A bare server that gave the same count twice: a steady window of that count. */
  private final SteadyWindow steady = new SteadyWindow();
  /**
   * How long after a 429 a probe may go past the rate discovered: a minute, doubled by each
   * probe refused within a cut of it (up to the longest gap between two checks of a long block),
   * back to a minute after one refused further past it.
   */
  private long probeWaitNanos = PROBE_INTERVAL_NANOS;

  private LearnedRate(long nowNanos) {
    super(NAME, QuotaUnit.REQUESTS, NAME, nowNanos);
  }

  /**
   * Learns from the response to {@code permit}'s request, applied to {@code partition} at
   * {@code now} ({@code heldUntil}: the partition's hold after it; {@code alone}: no other
   * instance of a fleet is known to share the partition's quota through a store). Returns
   * whether the learned rate changed (a cut, a start or an end), for the events.
   */
  static boolean learn(Partition partition, PermitImpl permit, RateLimitSignal signal,
      long heldUntil, long maxWaitNanos, boolean alone, long now) {
    LearnedRate learned = find(partition);
    boolean ok = !signal.throttled() && signal.status() < 400;
    if (ok) {
      partition.admitted++;
    }
    if (!signal.limits().isEmpty() || !signal.policies().isEmpty()) {
      if (learned != null) {
        partition.remove(learned); // a header number always wins over a guess
        return true;
      }
      return false;
    }
    if (signal.status() == 429) {
      long holdNanos = Math.max(0, heldUntil - now);
      if (learned == null && partition.admitted == 0) {
        return false; // refused before anything was admitted: no pace to learn, the hold waits
      }
      if (learned == null) {
        for (PolicyState s : partition.policies()) {
          if (s instanceof ServerPolicy sp && sp.quota >= 0) {
            return false; // the server gave a quota before: it governs
          }
        }
        learned = new LearnedRate(now);
        learned.steady.firstBurst(partition.admitted, partition.bornNanos);
        boolean wholeSeconds = signal.retryAfter().isPresent()
            && signal.retryAfter().get().getNano() == 0;
        // Whole seconds: the round trip of the 429, which the server's own clock did not see.
        learned.first(partition.commits(), partition.admitted, now - partition.bornNanos,
            holdNanos, holdNanos > maxWaitNanos || (signal.retryAfter().isPresent()
                && holdNanos > Math.max(SECOND, now - partition.bornNanos)),
            wholeSeconds ? Math.max(0, now - permit.sendAtNanos) : -1, now);
        learned.refused(permit.sendAtNanos, signal.retryAfter().isPresent() ? heldUntil
            : Long.MIN_VALUE);
        partition.add(learned);
        return true;
      }
      boolean afterToldEnd = learned.refused(permit.sendAtNanos,
          signal.retryAfter().isPresent() ? heldUntil : Long.MIN_VALUE);
      // One second is the least a whole-second Retry-After says: the next unit anywhere in it.
      boolean toldPastASecond = signal.retryAfter().isPresent()
          && signal.retryAfter().get().compareTo(Duration.ofSeconds(1)) > 0;
      if (!alone) {
        learned.othersSpend = true; // the store has seen other instances spend the quota
      }
      return learned.throttled(permit.sendAtNanos, holdNanos, signal.retryAfter().isPresent(),
          toldPastASecond, afterToldEnd, maxWaitNanos, now);
    }
    if (learned != null && ok) {
      learned.admitted(permit.sendAtNanos, now);
    }
    return false;
  }

  private static LearnedRate find(Partition partition) {
    for (PolicyState s : partition.policies()) {
      if (s instanceof LearnedRate learned) {
        return learned;
      }
    }
    return null;
  }

  /**
   * The first 429: {@code sent} requests in {@code elapsedNanos}, {@code admitted} of them, then
   * a hold; {@code told}: the server said when to come back ({@code Retry-After}) or the hold is
   * longer than maxWait.
   */
  private void first(long sent, long admitted, long elapsedNanos, long holdNanos, boolean told,
      long roundTripNanos, long now) {
    long hold = Math.max(1, holdNanos);
    startCycle(now, hold);
    cuts = 1;
    if (!told) {
      // A bare 429's hold is the pacer's own backoff: one request per hold, not a burst of
      // probes. What was sent, refused requests included, bounds the pace from above.
      ceiling = Math.max(1, sent) * SECOND / Math.max(1, elapsedNanos + hold);
      rate = Math.min(ceiling, SECOND / hold);
      cycleStartRate = rate;
      return;
    }
    // A hold the server told ends the first window if the server counts in windows: the server
    // gave what it admitted from first contact to that end, was spent, and said when it gives
    // again, so that is what it gives, as a whole cycle tells it (a window's quota comes back
    // whole at its end). The end is the latest the told whole seconds allow, so the measure is
    // at its low end, and it is taken less half a request as a cycle's. It stands as the rate
    // discovered until a 429 to a request paced at it or below says it is too fast (a bucket
    // gives less than its first burst): then it is dropped and the cycles find the rate. The
    // requests refused after the window was spent say nothing about a pace: the ceiling is what
    // was admitted, not what was sent.
    foundNanos = Math.max(1, elapsedNanos + hold);
    if (roundTripNanos >= 0 && foundNanos - roundTripNanos > SECOND) {
      // A whole-second Retry-After: the told end is the latest of a second (the time left,
      // rounded up), so from first contact the window's end lies in a second ending at the
      // told end, less the round trip the server's clock did not see (the first request's way
      // there, the 429's way back). A window counted from its first request is late there by
      // the part of a second the first burst took, and one configured in whole seconds (60 s,
      // 1 h; every limiter the project runs) is the whole number of seconds in that second.
      // One that is not is paced too fast by less than a second, and its first paced window's
      // 429 drops the measure.
      foundNanos = Math.floor((foundNanos - roundTripNanos) / SECOND) * SECOND;
    }
    firstWindow = true;
    firstWindowNanos = foundNanos;
    firstGiven(Math.max(1, admitted));
  }

  /**
   * The first window, whose end was told, admitted {@code given}: its measure is the rate
   * discovered, and the ceiling, until a cut.
   */
  private void firstGiven(double given) {
    firstAdmitted = given;
    ceiling = given * SECOND / foundNanos;
    foundAdmitted = given - Math.min(0.5, given / 20.0);
    found = foundAdmitted * SECOND / foundNanos;
    rate = found;
    cycleStartRate = rate;
  }

  /**
   * A 429 to a request sent at {@code sentNanos}, {@code told}: it said when to come back
   * ({@code Retry-After}), {@code toldPastASecond}: further off than a second;
   * {@code afterToldEnd}: the request was sent at or after the end an earlier
   * {@code Retry-After} told. Returns whether the rate changed.
   */
  private boolean throttled(long sentNanos, long holdNanos, boolean told,
      boolean toldPastASecond, boolean afterToldEnd, long maxWaitNanos, long now) {
    if (steady.refused(sentNanos)) {
      // The predicted reopening of a steady window was too early: the window opens after this
      // request, and nothing else is learned from it.
      updatedAtNanos = now;
      return false;
    }
    if (sentNanos < cutAtNanos) {
      return false; // the same overshoot, already answered
    }
    if (cycleAdmitted == 0) {
      // Nothing admitted since the cut: the server is spent (a window waiting for its end),
      // which says nothing about the pace. A Retry-After says when it is back (the hold waits
      // for it); a bare 429 does not, so the requests into it go half as often each time, and
      // the first admitted request brings the pace back.
      if (told) {
        if (afterToldEnd) {
          // Refused at or after the end the server told, with nothing admitted since: it did
          // not give there, so another client took what came back (another instance of a
          // fleet, told the same end).
          othersSpend = true;
        }
        return false;
      }
      if (spentFrom == 0) {
        spentFrom = rate;
      }
      probedSpent = true;
      // The spacing is the schedule of tries into the spent server (LongBlocks does not check
      // a learned pace): it grows no further than the longest gap between two checks.
      double slowest = maxWaitNanos <= 0 ? MIN_RATE
          : Math.max(MIN_RATE, SECOND / ((double) maxWaitNanos * LongBlocks.MAX_BACKOFF_FACTOR));
      rate = Math.max(Math.min(rate, slowest), rate / 2);
      cutAtNanos = now;
      updatedAtNanos = now;
      return true;
    }
    long hold = Math.max(1, holdNanos);
    // The cycle after a told first window began at that window's told end, where the server
    // gave again: if it admitted as many as the first window, the first burst left nothing
    // behind (a sliding window still full of it gives back less), and it is a whole cycle.
    boolean afterToldWindow = firstWindow && cuts == 1 && cycleAdmitted >= firstAdmitted;
    // The cut that drops a told first window's measure tells the next end a whole first window
    // or more after the one the cycle began at: the server counts in windows of that length, and
    // one that gave this instance a single request before it was spent was spent by others.
    boolean windowAgain = firstWindow && now + hold - cycleStartNanos >= firstWindowNanos;
    if (firstWindow) {
      firstWindow = false;
      if (rate <= found || afterToldWindow) {
        // Refused at the first window's measure or below: the server gives less than that
        // window admitted (a bucket's first burst spent what it had stored; a window met
        // part-way gave its quota in part of its time), or the window after it, a whole cycle,
        // tells it instead (a probe may have lifted the pace past the first window's measure).
        // The cycles tell the rate from here.
        found = 0;
        foundAdmitted = 0;
        foundNanos = 0;
      }
    }
    if (found > 0 && rate > found) {
      // A probe past the rate discovered was refused. Refused within a cut of it, it found the
      // limit where the cycles had measured it (a 429 places a limit no finer than a cut), and
      // paid a 429 for nothing: the next probe waits twice as long, no longer than the longest
      // gap between two checks of a long block. Refused further past it, it found more (a limit
      // measured low, or raised): the next goes a minute after the 429 again.
      long longest = Math.max(PROBE_INTERVAL_NANOS,
          Time.mul(maxWaitNanos, LongBlocks.MAX_BACKOFF_FACTOR));
      probeWaitNanos = CUT * rate <= found
          ? Math.min(longest, Time.mul(probeWaitNanos, 2)) : PROBE_INTERVAL_NANOS;
    }
    double sustained = cycleAdmitted * SECOND / Math.max(1, now + hold - cycleStartNanos);
    // The cycle is measured once the next one opens (its first admitted request).
    closingAdmitted = cycleAdmitted;
    steady.cycleClosed(cycleAdmitted, !told && openedAtNanos != Long.MIN_VALUE, sentNanos, now);
    // The cycle after the first 429 follows the first burst, which spent what the server had
    // stored (a sliding window still full of it gives back only a trickle): it measures nothing,
    // unless it followed a told first window and admitted as much as that window did.
    closingFromNanos = cuts > 1 || afterToldWindow ? openedAtNanos : Long.MIN_VALUE;
    closingStartRate = cycleStartRate;
    closingHoldNanos = told ? hold : 0;
    // A Retry-After says when the next unit is back: the cut keeps at least one request per
    // hold. A bare 429's hold is the pacer's own backoff, which says nothing about the server:
    // only what the server sustained bounds the cut from below. Nor does a hold shorter than
    // the pace's own spacing: the request came that much too early (a GCRA's next unit, a
    // fraction of a second off, rounded up to a second), not one unit back every hold.
    double floor = told && hold >= intervalNanos() ? SECOND / hold : MIN_RATE;
    ceiling = rate;
    double below = found > 0 ? Math.min(sustained, found) : sustained;
    rate = Math.min(CUT * rate, Math.max(below, floor));
    if (toldPastASecond && cycleAdmitted == 1 && !othersSpend && !windowAgain) {
      // The cycle admitted only its reopening, the request at the told end of the hold before:
      // the first request paced after it was refused, and the server said its next unit is
      // more than a second off. That pace was never admitted, so it says the server gives
      // less, not how much less (a bucket or a sliding window taken for a window by its first
      // Retry-After gives far less than that window's measure, a first burst far more than the
      // bucket's refill): it is no ceiling to go back to quickly, and the pace climbs from the
      // cut. Not after a Retry-After of one second, the least a whole-second header says: the
      // next unit anywhere in that second, the request was early by as little as a few
      // milliseconds (a GCRA's next unit), which says nothing of how far off the pace is. Nor
      // where others spend the same quota (a told end missed, other instances in the store, a
      // window that gave this instance one request): the refusal may be theirs (they took what
      // came back at the told end), not this pace's.
      ceiling = rate;
    }
    startCycle(now, hold);
    cuts++;
    return true;
  }

  /**
   * A request sent at {@code sentNanos} was refused; {@code toldUntil}: the end of the hold its
   * {@code Retry-After} asked for, or Long.MIN_VALUE. Returns whether it was sent at or after the
   * end an earlier {@code Retry-After} told.
   */
  private boolean refused(long sentNanos, long toldUntil) {
    spentUntilNanos = Math.max(spentUntilNanos, Math.max(sentNanos, toldUntil));
    boolean afterToldEnd = toldEndNanos != Long.MIN_VALUE && sentNanos >= toldEndNanos;
    if (toldUntil != Long.MIN_VALUE) {
      toldEndNanos = Math.max(toldEndNanos, toldUntil);
    }
    return afterToldEnd;
  }

  /** An admitted request sent at {@code sentNanos}, answered at {@code now}. */
  private void admitted(long sentNanos, long now) {
    steady.admitted(sentNanos);
    if (spentFrom > 0) {
      rate = Math.max(rate, spentFrom); // the spent server is back
      spentFrom = 0;
    }
    if (sentNanos < cutAtNanos) {
      if (firstWindow && cuts == 1) {
        // In flight when the first 429 came back (a refusal can overtake an admitted answer):
        // the first window admitted it too.
        firstGiven(firstAdmitted + 1);
      }
      return; // sent before the cut: admitted at the old pace, not the new cycle's
    }
    if (cycleAdmitted++ == 0) {
      opened(sentNanos);
    }
    if (found == 0) {
      // Nothing discovered yet: back quickly to near the pace that last overshot, slowly past.
      rate += Math.max(0, (1 + CUT) / 2 * ceiling - rate) / 8 + rate / 4096;
      return;
    }
    // Discovered: back quickly to the rate discovered, and past it only as a probe for a raised
    // limit, once the last 429 is a probe interval old and while callers want more.
    rate += Math.max(0, found - rate) / 8;
    // The first window's measure is not probed past before a window of pacing at it could
    // have refused it: a window from the end of the first hold, where that pace started (a slow
    // server's window is longer than the probe's minute, and its hold takes most of a window).
    long probeFrom = firstWindow
        ? Math.max(Time.add(cutAtNanos, probeWaitNanos),
            Time.add(cycleStartNanos, (long) foundNanos))
        : Time.add(cutAtNanos, probeWaitNanos);
    if (now >= probeFrom && wantedMoreNanos != Long.MIN_VALUE
        && now - wantedMoreNanos <= 2 * intervalNanos()) {
      rate = Math.max(rate, found) * (1 + PROBE_STEP);
    }
  }

  /**
   * The first request admitted since the cut, sent at {@code sentNanos}, opens a cycle and
   * closes the measure of the one before: from its first admitted request to this one, the
   * server was spent in between (a bucket emptied, a window used up) and is giving again at both
   * ends (a bucket's first token back, a window's start), so what it admitted in that time is
   * what it gives: a bucket's refill, a window's quota per window.
   */
  private void opened(long sentNanos) {
    // The server gave again somewhere between the last sign it was spent (a refused request, a
    // Retry-After's end) and this request: the middle of that is as late as it is early. A
    // Retry-After's end is the reopening itself; the probes into a bare spent server find it
    // up to a probe's gap late.
    long gap = spentUntilNanos != Long.MIN_VALUE && spentUntilNanos < sentNanos
        ? sentNanos - spentUntilNanos : 0;
    openedAtNanos = sentNanos - gap / 2;
    steady.opened(sentNanos - gap, sentNanos);
    sentNanos = openedAtNanos;
    long closingGap = openedGapNanos;
    boolean closingProbed = openedProbed;
    openedGapNanos = gap;
    openedProbed = probedSpent;
    if (closingFromNanos == Long.MIN_VALUE || sentNanos <= closingFromNanos) {
      shortFromNanos = Long.MIN_VALUE; // no cycle closes here: the next is not in a row
      return;
    }
    long cycleNanos = sentNanos - closingFromNanos;
    double measured = closingAdmitted * SECOND / cycleNanos;
    // A cycle ended by a Retry-After has an exact count (the server said it was spent, and when
    // it would give again) and ends known to a second (whole seconds): if a second is at most a
    // twentieth of it, fewer than ten admitted tell the rate too (a slow bucket gives one or two
    // a cycle).
    boolean exact = closingHoldNanos > 0 && !closingProbed && !probedSpent && cycleNanos >= 20 * SECOND
        && (gap + closingGap) / 2 <= cycleNanos / 20;
    boolean probed = closingProbed || probedSpent;
    if (!exact && closingAdmitted < MEASURED_ADMITTED && !probed
        && closingStartRate >= SATURATED * measured) {
      // Too few admitted to tell a rate on its own, but a cycle all the same: the server went
      // from giving, through spent, to giving again. Cycles in a row are one cycle from the
      // first one's reopening to the last one's (the reopenings between them are inside it), so
      // this one waits for the next and they count together once they admitted ten.
      if (shortFromNanos == Long.MIN_VALUE) {
        shortFromNanos = closingFromNanos;
        shortAdmitted = 0;
        shortStartRate = closingStartRate;
      }
      shortAdmitted += closingAdmitted;
      shortStartRate = Math.min(shortStartRate, closingStartRate);
      closingFromNanos = Long.MIN_VALUE;
      if (shortAdmitted < MEASURED_ADMITTED) {
        return;
      }
      closingFromNanos = shortFromNanos;
      closingAdmitted = shortAdmitted;
      closingStartRate = shortStartRate;
      cycleNanos = sentNanos - closingFromNanos;
      measured = closingAdmitted * SECOND / cycleNanos;
    }
    closingFromNanos = Long.MIN_VALUE;
    shortFromNanos = Long.MIN_VALUE;
    if (closingAdmitted < (exact ? 1 : MEASURED_ADMITTED)
        || closingStartRate < SATURATED * measured
        || (probed && (gap + closingGap) / 2 > cycleNanos / 10)) {
      // Its two reopenings known less well than a tenth of it (each is the middle of a gap; the
      // first request after a hold is as far from the reopening each time, but probes into a
      // spent server find it anywhere in their gap), too few admitted to tell a rate (one
      // request more or fewer is more than a tenth of it:
      // a token, a straggler through a sliding window still full of an earlier burst), or the
      // pace started well below what the server gave (a bucket refilled past what it holds, a
      // window went partly unused): the measure says less than the server gives.
      return;
    }
    // The measure is good to one request a cycle (the one refused might have been admitted a
    // moment earlier, a window's end is known to a second), or a twentieth of a measure told
    // exactly: the pace takes its low end.
    double decay = Math.pow(0.5, cycleNanos / MEMORY_NANOS);
    foundAdmitted = foundAdmitted * decay + closingAdmitted - Math.min(0.5, closingAdmitted / 20.0);
    foundNanos = foundNanos * decay + cycleNanos;
    found = foundAdmitted * SECOND / foundNanos;
    rate = Math.min(rate, found);
  }

  private void startCycle(long now, long holdNanos) {
    cycleStartNanos = now + holdNanos;
    cycleStartRate = rate;
    cycleAdmitted = 0;
    probedSpent = false;
    openedAtNanos = Long.MIN_VALUE;
    cutAtNanos = now;
    updatedAtNanos = now;
  }

  /** The spacing of requests, in nanoseconds. */
  long intervalNanos() {
    return (long) Math.min(Long.MAX_VALUE / 4, Math.ceil(SECOND / rate));
  }

  /** How much the rate is backed by: 1 - 1 / (1 + the 429s it was cut at), in [0, 1). */
  double confidence() {
    return 1 - 1.0 / (1 + cuts);
  }

  @Override
  boolean declared() {
    return false;
  }

  @Override
  void roll(long nowNanos) {
    // Nothing: a learned rate has no window.
  }

  @Override
  long earliest(Settings settings, Evaluation evaluation, Partition partition, long cost,
      long nowNanos, long notBeforeNanos, long deadlineNanos) {
    if (lastSendNanos == Long.MIN_VALUE) {
      return notBeforeNanos;
    }
    long interval = intervalNanos();
    long at = Math.max(notBeforeNanos, Time.add(lastSendNanos, interval));
    if (steady.active() && steady.probing(nowNanos, partition.hold.patienceNanos())) {
      // The probe of a steady window's reopening is out: look again a round trip later.
      wantedMoreNanos = nowNanos;
      return evaluation.waitInLineUntil(Math.max(at, Time.add(Math.max(nowNanos, notBeforeNanos),
          Math.max(partition.hold.roundTripNanos(), 1_000_000L))));
    }
    // Once a steady window's count is sent, the next request probes its predicted reopening.
    at = steady.notBefore(at);
    if (at > notBeforeNanos) {
      wantedMoreNanos = nowNanos; // a caller waits for the pace: callers want more than it
    }
    if (at > Time.add(Math.max(nowNanos, notBeforeNanos), interval)) {
      // Callers queued behind the next slot wait in line and decide again at the rate learned
      // by then, rather than commit now to slots the rate may have moved.
      return evaluation.waitInLineUntil(at);
    }
    return at;
  }

  @Override
  long commit(PacingStrategy strategy, InFlight inFlight, long cost, long nowNanos,
      long sendAtNanos) {
    long extra = Math.max(0, cost - 1);
    steady.commit(cost, sendAtNanos);
    long before = lastSendNanos;
    lastSendNanos = Math.max(lastSendNanos, Time.add(sendAtNanos, Time.mul(extra,
        intervalNanos())));
    return before == Long.MIN_VALUE ? 0 : Math.max(0, Time.sub(lastSendNanos, before));
  }

  @Override
  void refund(long cost, long gapNanos) {
    // A request that was never sent gives its slot back: the cursor moves back by its gap.
    if (gapNanos > 0 && lastSendNanos != Long.MIN_VALUE) {
      lastSendNanos = Time.sub(lastSendNanos, gapNanos);
    }
  }

  @Override
  PolicySnapshot snapshot(InFlight inFlight, long nowNanos) {
    return new PolicySnapshot(name, OptionalLong.of(1), OptionalLong.empty(),
        inFlight.permits(), Optional.empty(), Optional.of(Duration.ofNanos(intervalNanos())),
        unit, source, Duration.ofNanos(Math.max(0, nowNanos - updatedAtNanos)))
        .asLearned(confidence());
  }
}
