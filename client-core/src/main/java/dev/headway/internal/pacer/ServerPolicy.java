package dev.headway.internal.pacer;

import dev.headway.PacingStrategy;
import dev.headway.PolicySnapshot;
import dev.headway.QuotaPolicy;
import dev.headway.QuotaUnit;
import dev.headway.SanityCaps;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A policy a server advertised: its quota and window ({@code RateLimit-Policy}), and what is
 * left and when it resets ({@code RateLimit}). It owns the quota, whether the count is believed
 * (stale, unconfirmed), the pacing cursor, and the rules that turn them into a time to send; the
 * count and where it came from are its {@link HeldCount}, the window and reset its
 * {@link ServerWindow}, the refill its {@link RefillPacing}. See docs/pacer.md for how it is
 * used.
 */
final class ServerPolicy extends PolicyState {
  private static final long ONE_SECOND_NANOS = 1_000_000_000L;
  long quota = UNKNOWN;
  /** The count held: units left in the current window, and the response that said so. */
  final HeldCount count = new HeldCount();
  /** The window's length and its reset. */
  final ServerWindow window = new ServerWindow();
  /** The pacing cursor: the next request is not sent before this. */
  long nextFreeNanos = Long.MIN_VALUE;
  /**
   * Where the last commit would have put the cursor had the requests in flight that its count
   * may hold already (sent before the count arrived) been subtracted from it again; past
   * {@link #nextFreeNanos} only when that spacing was wider. Long.MIN_VALUE if none.
   */
  private long heldCursorNanos = Long.MIN_VALUE;
  /** The reset passed and the quota is unknown: only probes go until a response says more. */
  boolean stale;
  /**
   * A reset passed and no response from the new window has come back: only probes go (the
   * server may not have given the whole quota back, draft section 4.1.2).
   */
  boolean unconfirmed;
  /** The update stamp of the last response that mentioned this policy. */
  long touchedStamp;
  /** The count held when the last reset passed (UNKNOWN if none was). */
  private long leftAtReset = UNKNOWN;
  /** The server's last reset that passed (not a Retry-After's end); Long.MIN_VALUE if none. */
  private long passedResetNanos = Long.MIN_VALUE;
  /**
   * How far the reset moved on past the one that passed, as a 429 told it with the count still
   * spent; 0 if none. Taken as the window's bound once its Retry-After says a unit is back
   * much sooner than that reset.
   */
  private long spentMoveNanos;
  /**
   * A bound on the window of a count without one, until it is inferred: how far the reset moved
   * on past the one that passed with the count still spent (a window server's reset moves by
   * whole windows, so at least one). 0 if none.
   */
  private long movedWindowNanos;
  /** A 429 said a unit comes back at the reset: the count does not refill at a move's pace. */
  private boolean backAtReset;
  /**
   * An answer came back after one of the server's resets passed: what the count does there
   * (comes back whole, or still holds what was spent before it) is known.
   */
  private boolean toldAtReset;
  /** Whether this was its partition's only policy when it last decided. */
  private boolean onlyPolicy;
  /** First contact showed a bucket of one (see {@link #noteFirstContact}). */
  private boolean bucketOfOne;
  /** An answer said more than 0 left. */
  private boolean aboveZero;
  /** Requests of first contact (sent before its first answer) admitted with 0 left. */
  private int admittedAtZero;
  /** When the first answer that mentioned this policy came back; Long.MIN_VALUE before. */
  private long firstAnswerNanos = Long.MIN_VALUE;
  /** When the move was taken: a 429 to a request sent before is the overshoot it answered. */
  private long movedSinceNanos = Long.MAX_VALUE;
  /**
   * Whether our own admitted requests spent the count held: an admitted answer to one of them
   * said 0 left, and our requests admitted lately account for the quota ({@link #spentByUs(int,
   * long, long)}). Such a count is believed until its reset, not checked as a long block may be
   * (see {@link LongBlocks}); one a refusal said, or others spent, is not. False whenever the
   * count held came some other way.
   */
  boolean spentByUs;
  /** When our requests this policy's answers admitted lately were sent. */
  final OwnAdmissions own = new OwnAdmissions();
  /** Whether, and how, the server gives units back before its reset. */
  final RefillPacing refill = new RefillPacing();
  /** The window of a count whose headers give none, from how its reset moves. */
  final InferredWindow inferred = new InferredWindow();
  /** Whether the server is a sliding log, from its counts, and when its units come back. */
  final SlidingLog log = new SlidingLog();

  /**
   * Whether this instance paced the count alone when last asked ({@link
   * SharedBudget#pacesAlone}): no store, or no other instance seen sharing it.
   */
  boolean pacedAlone = true;

  ServerPolicy(String name, QuotaUnit unit, String source, long nowNanos) {
    super(name, unit, source, nowNanos);
  }

  @Override
  boolean declared() {
    return false;
  }

  @Override
  void roll(long nowNanos) {
    if (!window.passed(nowNanos) || refillPaced() || logPaced()) {
      return;
    }
    refill.reported = UNKNOWN;
    leftAtReset = count.remaining;
    spentByUs = false;
    if (!window.probeAtReset) {
      passedResetNanos = window.resetAtNanos;
    }
    if (quota >= 0 && !window.probeAtReset) {
      unconfirmed = true;
      window.next(nowNanos);
      count.restart(quota, window.epochStartNanos);
    } else {
      window.end();
      stale = true;
      count.restart(UNKNOWN, window.epochStartNanos);
    }
  }

  /**
   * Returns when this policy lets a request of {@code cost} go, in turn: a concurrency cap; a
   * stale or unconfirmed count (only probes go); no count (nothing known limits it); a zero
   * quota (refused); refill pacing; units left in the count (the pacing cursor); units missing
   * but maybe counted by the server already (look again); no reset known (probes); spent
   * (after the reset).
   */
  @Override
  long earliest(Settings settings, Evaluation evaluation, Partition partition, long cost,
      long nowNanos, long notBeforeNanos, long deadlineNanos) {
    pacedAlone = SharedBudget.pacesAlone(settings, partition);
    onlyPolicy = partition.policies().length == 1;
    InFlight inFlight = flight(partition.inFlight);
    if (unit == QuotaUnit.CONCURRENT_REQUESTS) {
      return underCap(settings, evaluation, inFlight, nowNanos, notBeforeNanos);
    }
    if (logPaced()) {
      log.pacing(nowNanos);
      if (!stale && count.known()
          && Time.sub(count.remaining, inFlight.units(unit)) >= Math.min(cost, quota)) {
        // The server's own count has room: the log only ever lets a request go sooner than
        // the count would, never later (a counter or a bucket can pass for a log a while).
        return notBeforeNanos;
      }
      return logEarliest(settings, evaluation, inFlight, cost, nowNanos, notBeforeNanos);
    }
    if (stale) {
      return probe(settings, evaluation, inFlight, nowNanos, notBeforeNanos, probes(settings));
    }
    if (count.remaining == UNKNOWN) {
      return notBeforeNanos;
    }
    if (quota == 0) {
      return zeroQuota(evaluation, notBeforeNanos);
    }
    if (refillPaced()) {
      return refillEarliest(settings, evaluation, inFlight, cost, nowNanos, notBeforeNanos);
    }
    boolean untold = untoldAtReset() && onlyOurs();
    int probes = untold ? 1 : probes(settings);
    if (unconfirmed && inFlight.permits() >= probes) {
      return probe(settings, evaluation, inFlight, nowNanos, notBeforeNanos, probes);
    }
    long units = quota > 0 ? Math.min(cost, quota) : cost;
    long available = Time.sub(count.remaining, inFlight.units(unit))
        - (untold && keepsLastUnit() ? 1 : 0);
    if (available >= units) {
      if (units > 0 && heldCursorNanos > nextFreeNanos
          && count.sentOverlap(inFlight.units(unit)) > 0) {
        return settlingSpread(settings, evaluation, nowNanos, notBeforeNanos);
      }
      return units == 0 ? notBeforeNanos : Math.max(notBeforeNanos, nextFreeNanos);
    }
    if (mayBeCountedAlready(settings, inFlight, units, available, nowNanos)) {
      // What is missing is in flight since before the count arrived, and the server may have
      // counted it already: look again once it may have answered rather than wait for, or
      // fail until, the reset.
      return evaluation.lookAgainAt(Math.max(notBeforeNanos,
          Time.add(nowNanos, settings.recheckNanos)),
          "answers to requests in flight on policy " + name);
    }
    if (!window.hasReset) {
      // Spent, and the server never said when it comes back: learn from a few probes.
      return probe(settings, evaluation, inFlight, nowNanos, notBeforeNanos, probes(settings));
    }
    return afterReset(settings, evaluation, inFlight, units, nowNanos, notBeforeNanos,
        deadlineNanos, probes);
  }

  /**
   * Returns how many requests may be in flight while the count is not known (after a reset,
   * stale, or spent with no reset said): {@code probes}, but one for a count whose headers give
   * a quota and no window that first contact showed to be a bucket of one
   * ({@link #noteFirstContact}): a GCRA or token bucket whose burst is one answers 0 left to
   * every request, its reset is its next unit, and a second probe sent there with the first is
   * a 429 each time. Judged at first contact only: instances sharing a larger bucket without a
   * store see it spent by the others later on, and send their probes as before; an instance
   * whose store shows others using the key is paced by the fleet's budget. Only as the
   * partition's only policy (a declared one paces it too).
   */
  private int probes(Settings settings) {
    return bucketOfOne && pacedAlone && onlyPolicy && quota > 0 && window.windowNanos <= 0 ? 1
        : settings.probes;
  }

  /**
   * Notes what first contact said of a bucket of one: an admitted answer with nothing left to
   * a request sent before the first answer came back (one request emptied the count from a
   * cold start), and no answer ever above 0. Any count above 0 ends it for good, and so does a
   * second request of first contact admitted at 0: from a cold start a bucket of one admits one,
   * and the next is a 429 (a counter stuck at 0 admits them all).
   */
  private void noteFirstContact(long left, int status, long sent, long now) {
    boolean first = firstAnswerNanos == Long.MIN_VALUE;
    if (first) {
      firstAnswerNanos = now;
    }
    if (left > 0) {
      aboveZero = true;
      bucketOfOne = false;
    } else if (left == 0 && status < 400 && !aboveZero && (first || sent < firstAnswerNanos)) {
      bucketOfOne = ++admittedAtZero == 1;
    }
  }

  /**
   * Whether this is a count whose headers give no window, none inferred or paced, and none of
   * whose resets has been seen pass: nothing yet tells a fixed window (its whole quota back at
   * the reset) from a sliding-window counter (at its reset it still holds everything the window
   * before spent, and gives it back over the next window). Spent to its last unit, the first
   * requests at the reset would be 429s from the counter; with one unit left, the first request
   * at the reset is admitted by either, and its answer tells them apart (the quota back, or our
   * own units still held). So such a count keeps its last unit for the reset, and only one
   * request goes there until it is answered. A fixed window loses that unit once; a counter
   * loses nothing (the unit is spent at the reset, where it still fits). Not a count whose reset
   * did not stand still (a bucket's "full again" moves on with each request) nor one seen to
   * give units back before its reset (not a fixed window: its units come back as they age).
   */
  private boolean untoldAtReset() {
    return !toldAtReset && quota > 1 && window.windowNanos <= 0 && !window.probeAtReset
        && !refill.refilling && inferred.or(0) <= 0 && !refillPaced() && !logPaced()
        && inferred.stoodStill();
  }

  /**
   * Whether a count {@link #untoldAtReset} keeps its last unit for the reset: before the reset
   * (not one passed and unconfirmed), whose reset stood still (a window's; a bucket's moves on
   * with every request, and it is full again at its reset), and that held no more than this
   * client's own units under that reset (the answer at the reset can tell a counter by our units
   * still held only then; others spending the count make that answer say nothing).
   */
  private boolean keepsLastUnit() {
    return !unconfirmed && window.hasReset;
  }

  /**
   * Whether the count held no more than this client's own units under its reset: only then can
   * the answer at the reset tell a counter by our units still held (others spending the count
   * make that answer say nothing, and their requests at the reset would find it as they may).
   */
  private boolean onlyOurs() {
    return Time.sub(quota, count.remaining) <= inferred.admittedUnder(window.resetAtNanos) + 1;
  }

  /** A limit of concurrent requests: a free slot now, or look again once one may be free. */
  private long underCap(Settings settings, Evaluation evaluation, InFlight inFlight,
      long nowNanos, long notBeforeNanos) {
    long cap = quota >= 0 ? Math.max(1, quota) : UNKNOWN; // the effective cap
    if (cap == UNKNOWN || inFlight.permits() < cap) {
      return notBeforeNanos;
    }
    return evaluation.lookAgainAt(Math.max(notBeforeNanos,
        Time.add(nowNanos, settings.recheckNanos)), "a free slot under policy " + name
        + " (a limit of concurrent requests)");
  }

  /**
   * A zero quota: nothing may ever be sent, whatever the window. Refused (checked now and then,
   * see LongBlocks), rather than waiting for resets that give nothing back.
   */
  private long zeroQuota(Evaluation evaluation, long notBeforeNanos) {
    evaluation.zeroQuota = true;
    return evaluation.refuseUntil(window.hasReset
        ? Math.max(notBeforeNanos, window.resetAtNanos) : Long.MAX_VALUE);
  }

  /**
   * Returns when a request may go while the last commit's spacing waits for answers still out
   * (see {@link #commit}): the requests in flight that the count may hold already were spaced as
   * counted, and the spread of what is left depends on the count their answers settle on. So it
   * looks again after a recheck interval (by then they may have answered), unless the cursor the
   * count as it stands would give ({@link #heldCursorNanos}) comes sooner, or the reset does.
   */
  private long settlingSpread(Settings settings, Evaluation evaluation, long nowNanos,
      long notBeforeNanos) {
    long again = Time.add(nowNanos, settings.recheckNanos);
    if (heldCursorNanos <= again || !window.hasReset || again >= window.resetAtNanos) {
      return Math.max(notBeforeNanos, heldCursorNanos);
    }
    return evaluation.lookAgainAt(Math.max(notBeforeNanos, again),
        "answers to requests in flight on policy " + name + " (the spread they settle)");
  }

  /**
   * Whether the {@code units} missing from {@code available} are in flight since before the
   * count arrived (the server may have counted them already), with the reset still further off
   * than a recheck interval.
   */
  private boolean mayBeCountedAlready(Settings settings, InFlight inFlight, long units,
      long available, long nowNanos) {
    long overlap = count.overlap(inFlight.units(unit));
    return overlap > 0 && available + overlap >= units && window.hasReset
        && Time.add(nowNanos, settings.recheckNanos) < window.resetAtNanos;
  }

  /**
   * A spent policy with a reset: when a request of {@code units} may go in the next window (or
   * a later one), with jitter on the server's own time, and never before the pacing cursor. The
   * hold (already jittered) may push it later: never jitter on jitter.
   */
  private long afterReset(Settings settings, Evaluation evaluation, InFlight inFlight,
      long units, long nowNanos, long notBeforeNanos, long deadlineNanos, int probes) {
    long resetAtNanos = window.resetAtNanos;
    long windowNanos = window.windowNanos;
    if (quota < 0) {
      // Unknown quota after the reset: look again then (probing, never a stampede).
      return evaluation.waitInLineUntil(Math.max(notBeforeNanos,
          settings.jitter.serverTime(resetAtNanos, nowNanos, deadlineNanos, windowNanos, true)));
    }
    if (window.probeAtReset) {
      return evaluation.waitInLineUntil(Math.max(notBeforeNanos,
          settings.jitter.serverTime(resetAtNanos, nowNanos, deadlineNanos, 0, false)));
    }
    long nextAvailable = Time.sub(quota, inFlight.units(unit));
    if (nextAvailable < units || inFlight.permits() >= probes) {
      // The next window is not assumed to give the whole quota back (draft section 4.1.2): a
      // few probes are committed to its start, the others look again then.
      if (windowNanos <= 0 || nextAvailable >= units) {
        return evaluation.waitInLineUntil(Math.max(notBeforeNanos, settings.jitter.serverTime(
            resetAtNanos, nowNanos, deadlineNanos, windowNanos, true)));
      }
      long deficit = units - nextAvailable;
      long windows = (deficit + quota - 1) / quota;
      long base = Time.add(resetAtNanos, Time.mul(windows, windowNanos));
      return Math.max(Math.max(notBeforeNanos,
          settings.jitter.serverTime(base, nowNanos, deadlineNanos, windowNanos, true)),
          nextFreeNanos);
    }
    return Math.max(Math.max(notBeforeNanos,
        settings.jitter.serverTime(resetAtNanos, nowNanos, deadlineNanos, windowNanos, true)),
        nextFreeNanos);
  }

  /**
   * Whether the policy is paced as a sliding log (see {@link SlidingLog}): a count whose headers
   * give no window, that behaves as one.
   */
  boolean logPaced() {
    return quota > 0 && window.windowNanos <= 0 && (refill.refilling || logTrail())
        && log.active(logTrail());
  }

  /**
   * How many admitted answers in a row, each sent two seconds or more after the last, gave a
   * reset as far after their send as the last did (within the whole-second rounding): a reset
   * that trails each request (a sliding log's newest unit leaving, Flask-Limiter), not a
   * window's end that stands still. A bucket in steady use trails each request too, by the time
   * its spent units take to come back: in proportion to what its count holds. So the trail is a
   * log's only once it stayed the same while the count held amounts a bucket would have trailed
   * by seconds apart ({@link #trailTold}).
   */
  private int trailing;
  private long trailNanos;
  /** The trail the current run of {@link #trailing} answers began with. */
  private long trailFirstNanos;
  private long trailSentNanos = Long.MIN_VALUE;
  /** The units the count held (quota less what was left) when the trail was taken. */
  private long trailHeld;
  /** Whether the trail stayed the same across counts a bucket's trail would have told apart. */
  private boolean trailTold;

  /**
   * Takes the reset {@code resetAt} of an admitted answer to a request sent at {@code sent},
   * with {@code left} units left.
   */
  private long trail(long resetAt, long sent, int status, long left) {
    if (resetAt == Long.MIN_VALUE || status >= 400) {
      return Long.MAX_VALUE;
    }
    long trail = resetAt - sent;
    long held = quota > 0 && left >= 0 ? Math.max(1, quota - left) : 0;
    if (trailSentNanos == Long.MIN_VALUE || sent - trailSentNanos >= 2_000_000_000L) {
      if (trailSentNanos != Long.MIN_VALUE) {
        // The same as the last and as the first of the run: a log's trail is its window every
        // time, where a window's shrinking one, sampled at whole-second rounding, can creep a
        // second a sample and stay within the rounding of the last each time.
        boolean same = Math.abs(trail - trailNanos) < 1_500_000_000L
            && Math.abs(trail - trailFirstNanos) < 1_500_000_000L;
        trailing = same ? Math.min(trailing + 1, 1 << 20) : 0;
        // What a bucket's trail would have been at this count: the last one's, in proportion to
        // the units held. Seconds away from the last, and yet the trail stayed: a log's.
        boolean tells = held > 0 && trailHeld > 0 && Math.abs(
            (double) trailNanos * held / trailHeld - trailNanos) >= 2_500_000_000.0;
        trailTold = same && (trailTold || tells);
      }
      if (trailing == 0) {
        trailFirstNanos = trail;
      }
      trailNanos = trail;
      trailSentNanos = sent;
      trailHeld = held;
    }
    // A reset that trails each request is when this request's unit is back, at the latest.
    return logTrail() ? Math.max(0, trail) : Long.MAX_VALUE;
  }

  /** Whether the reset trails each request as a sliding log's does (see {@link #trailing}). */
  private boolean logTrail() {
    return trailing >= 2 && trailTold;
  }

  /**
   * Whether this is a window of known quota and length (said or inferred): the waiting line
   * keeps its order at its reset, the new window's probes go to the oldest callers waiting for
   * it, and a caller's turn in line is counted in such windows. (One paced at its refill rate or
   * as a sliding log is one too here: see {@link Admission} for the one rule that leaves those
   * out.)
   */
  boolean windowOfKnownQuota() {
    return quota > 0 && inferred.or(window.windowNanos) > 0;
  }

  /** Whether the policy is paced at its refill rate (see {@link RefillPacing}). */
  boolean refillPaced() {
    return refill.paced(quota, refillWindow());
  }

  /**
   * The window the refill is paced at: the server's, else the one inferred, else the bound a
   * reset that moved on with the count still spent gave ({@link #movedWindowNanos}); 0 if none.
   */
  long refillWindow() {
    long known = inferred.or(window.windowNanos);
    return known > 0 || backAtReset ? known : movedWindowNanos;
  }

  /**
   * How far a response's reset ({@code resetAt}) moved on past the server's reset that passed,
   * for a request sent ({@code sentNanos}) once it had passed and answered at {@code nowNanos},
   * of a count without a window said or inferred; 0 if it did not, or by no more than two
   * seconds (rounding, or a bucket's reset creeping on), or if the new reset is less than half
   * the move away (a window's reset moves on by whole windows just after the old one passed; a
   * bucket's "full again" creeps on with each request).
   */
  private long movedPastReset(long resetAt, long sentNanos, long nowNanos) {
    if (quota <= 0 || inferred.or(window.windowNanos) > 0 || resetAt == Long.MIN_VALUE
        || passedResetNanos == Long.MIN_VALUE
        || sentNanos < Time.sub(passedResetNanos, ONE_SECOND_NANOS)) {
      return 0;
    }
    long move = Time.sub(resetAt, passedResetNanos);
    return move > 2 * ONE_SECOND_NANOS && Time.sub(resetAt, nowNanos) >= move / 2 ? move : 0;
  }

  /** In refill mode: a request goes once what came back covers it and what is in flight. */
  private long refillEarliest(Settings settings, Evaluation evaluation, InFlight inFlight,
      long cost, long nowNanos, long notBeforeNanos) {
    long units = Math.min(cost, quota);
    long wanted = Time.add(inFlight.units(unit), units);
    if (wanted > quota) {
      // More in flight than the server can ever hold: look again once some have answered.
      return evaluation.lookAgainAt(Math.max(notBeforeNanos,
          Time.add(nowNanos, settings.recheckNanos)));
    }
    // Answers counted after the count held but not taken spent units the refill gave back
    // (a server that says no reset is paced by the steps its counts show instead). Not in a
    // fleet: an instance's answers are its own, and the fleet's budget paces the fleet.
    long since = window.hasReset && pacedAlone ? count.answeredSince() : 0;
    long needed = Time.add(wanted, since) - count.remaining;
    if (needed <= 0) {
      return notBeforeNanos;
    }
    return Math.max(notBeforeNanos,
        refill.backAt(needed, refillUnits(nowNanos), refillWindow()));
  }

  /**
   * The units given back per {@link #refillWindow()}: the quota, but for a counter whose reset
   * moves by whole windows, what this client spent in the window before (at least one): such a
   * counter (a sliding-window counter) weighs the window before into its count, and that weight
   * falls evenly over the current window. Paced at the whole quota after a window that held
   * less, or at its steady state (a strict counter fits only the quota less one a window after
   * a full one), it overdraws. A count without a window said is such a counter once its window
   * is inferred or bounded by a move; one whose headers give the window, once its reset last
   * moved on by that window after it passed ({@link ServerWindow#movesByWholeWindows}), unless
   * its resets come round sooner than the window (a bucket's next unit), or other instances
   * share it through a store (not {@link #pacedAlone}): one instance's window before is its
   * share, not the counter's, and the fleet's budget paces the fleet. Other clients' units are
   * not counted: each gives back only its own.
   */
  long refillUnits(long nowNanos) {
    boolean counter = window.windowNanos > 0
        ? pacedAlone && window.movesByWholeWindows() && !refill.shortResets
        : movedWindowNanos > 0 || inferred.or(0) > 0;
    if (quota <= 0 || !refill.refilling || !counter || logPaced()) {
      return quota;
    }
    long w = refillWindow();
    long before = Math.min(inferred.spentInWindowBefore(nowNanos, w),
        inferred.spentInWindowBefore(refill.countedAtNanos(), w));
    return Math.max(1, Math.min(quota, before));
  }

  /** A sliding log: a request goes once the units given back leave room for it. */
  private long logEarliest(Settings settings, Evaluation evaluation, InFlight inFlight,
      long cost, long nowNanos, long notBeforeNanos) {
    long at = log.earliest(quota, cost, inFlight.units(unit), nowNanos, notBeforeNanos);

    if (at == Long.MAX_VALUE) {
      // More in flight than the log gives back: look again once some have answered.
      return evaluation.lookAgainAt(Math.max(notBeforeNanos,
          Time.add(nowNanos, settings.recheckNanos)));
    }
    at = Math.max(at, nextFreeNanos);
    if (refillPaced()) {
      // A bucket can look like a log while it is used steadily: never sooner than its refill.
      at = Math.max(at, refillEarliest(settings, evaluation, inFlight, cost, nowNanos,
          notBeforeNanos));
    }
    return at;
  }

  private static long probe(Settings settings, Evaluation evaluation, InFlight inFlight,
      long nowNanos, long notBeforeNanos, int probes) {
    if (inFlight.permits() < probes) {
      return notBeforeNanos;
    }
    evaluation.waitingFor = "answers to the requests probing a quota not known now (probes)";
    return evaluation.waitInLineUntil(Math.max(notBeforeNanos,
        Time.add(nowNanos, settings.recheckNanos)));
  }

  @Override
  long commit(PacingStrategy strategy, InFlight inFlight, long cost, long nowNanos,
      long sendAtNanos) {
    if (unit == QuotaUnit.CONCURRENT_REQUESTS || cost == 0) {
      return 0;
    }
    if (logPaced()) {
      // Spread at the log's pace: each send then shows where the window ends (a burst would
      // come back as one, and say only that all of it had left).
      long gap = Time.mul(Math.max(1, log.windowNanos() / quota), Math.min(cost, quota));
      // (One gap after the latest send: requests the server's count had room for go without
      // pushing the others back.)
      long before = nextFreeNanos;
      nextFreeNanos = Math.max(nextFreeNanos, Time.add(sendAtNanos, gap));
      return Math.max(0, nextFreeNanos - Math.max(before, sendAtNanos));
    }
    heldCursorNanos = Long.MIN_VALUE;
    if (stale || !count.known() || refillPaced()) {
      return 0;
    }
    long units = inFlight.units(unit);
    ServerWindow w = window;
    long resetAtNanos = w.resetAtNanos;
    long windowNanos = w.windowNanos;
    long available;
    long timeToReset;
    if (w.hasReset && sendAtNanos >= resetAtNanos) {
      // A reservation in a later window.
      available = quota >= 0 ? Time.sub(quota, units) : 1;
      timeToReset = windowNanos > 0 ? Time.sub(Time.add(resetAtNanos, windowNanos), sendAtNanos)
          : 0;
    } else {
      available = Time.sub(count.remaining, units);
      timeToReset = w.hasReset ? resetAtNanos - sendAtNanos : 0;
    }
    long limit = quota >= 0 ? quota : Math.max(1, available);
    long spacing = strategy.spacingNanos(Math.max(1, available), limit, Math.max(0, timeToReset));
    long overlap = count.sentOverlap(units);
    if (overlap > 0 && spacing > 0 && sendAtNanos < w.openedEnd() && toldAtReset
        && !refill.refilling && pacedAlone) {
      // Requests in flight that the count may hold already (sent before it arrived): subtracted
      // again, they would push the cursor a whole spread ahead, and the window's last units
      // past the end a request of ours opened it to. It moves as if they were counted, and the
      // callers after it look again once their answers are in (see settlingSpread). Only in a
      // window seen opened by a request of ours, after a reset was seen, never seen giving
      // units back before its reset: a log's or a bucket's units come back as time passes, and
      // the spread from the count as it stands is theirs.
      long counted = strategy.spacingNanos(Math.max(1, Time.add(available, overlap)), limit,
          Math.max(0, timeToReset));
      if (counted < spacing) {
        heldCursorNanos = Time.add(sendAtNanos, Time.mul(spacing, cost));
        spacing = counted;
      }
    }
    if (spacing > 0) {
      long gap = Time.mul(spacing, cost);
      nextFreeNanos = Time.add(sendAtNanos, gap);
      return gap;
    }
    return 0;
  }

  @Override
  void refund(long cost, long gapNanos) {
    // In-flight units are returned by the partition. The slot: the cursor moves back by the gap
    // the request took. The requests after it keep their times, and the next new one takes the
    // slot nobody will use: the schedule closes up, and no more requests go in any stretch of
    // time than the strategy spaced. (A cursor moved back into the past is harmless: a request
    // never goes before now.)
    if (gapNanos > 0) {
      nextFreeNanos = Time.sub(nextFreeNanos, gapNanos);
    }
    heldCursorNanos = Long.MIN_VALUE;
  }

  @Override
  PolicySnapshot snapshot(InFlight all, long nowNanos) {
    long inFlight = unit == QuotaUnit.CONCURRENT_REQUESTS ? all.permits() : all.units(unit);
    OptionalLong left = !count.known() ? OptionalLong.empty()
        : OptionalLong.of(Math.max(0, Time.sub(count.remaining, inFlight)));
    ServerWindow w = window;
    if (unit == QuotaUnit.CONCURRENT_REQUESTS && quota >= 0) {
      left = OptionalLong.of(Math.max(0, quota - inFlight));
    }
    return inferred.mark(new PolicySnapshot(name,
        quota >= 0 ? OptionalLong.of(quota) : OptionalLong.empty(),
        left,
        inFlight,
        w.hasReset ? Optional.of(Duration.ofNanos(Math.max(0, w.resetAtNanos - nowNanos)))
            : Optional.empty(),
        inferred.shown(w.windowNanos),
        unit,
        source,
        Duration.ofNanos(Math.max(0, nowNanos - updatedAtNanos))), w.windowNanos);
  }

  // ------------------------------------------------------------- what responses say

  /**
   * Takes what a {@code RateLimit-Policy} item says: quota (capped), unit and window. A stale
   * policy is known again, its whole quota assumed left.
   */
  void declare(QuotaPolicy policy, SanityCaps caps, long stamp) {
    quota = Math.min(policy.quota(), caps.maxQuota());
    unit = policy.unit();
    window.windowNanos = policy.window().isPresent() ? Time.nanos(policy.window().get()) : 0;
    source = policy.dialect();
    touchedStamp = stamp;
    if (stale) {
      stale = false;
      count.remaining = quota;
      spentByUs = false;
    }
  }

  /**
   * The check of a long block succeeded: if this policy is what blocked (spent, or a zero quota),
   * what it said is no longer believed. It is unknown (stale) until the response's own values
   * replace it, and dropped if the response does not mention it.
   */
  void forgetIfBlocking() {
    if (stale || !count.known() || (count.remaining > 0 && quota != 0)) {
      return;
    }
    if (quota == 0) {
      quota = UNKNOWN;
    }
    count.remaining = UNKNOWN;
    spentByUs = false;
    window.forget();
    unconfirmed = false;
    stale = true;
  }

  /**
   * Records that the request of {@code permit} was answered: if it was in flight when the count
   * we hold arrived, it no longer overlaps that count.
   */
  void answered(PermitImpl permit) {
    count.answered(permit, unit);
  }

  /**
   * Takes a count from a {@code RateLimit} item of the response to {@code permit}'s request,
   * received at {@code now}: {@code left} units left (capped), reset at {@code resetAt}
   * (Long.MIN_VALUE if not said), while {@code inFlight} was in flight. A count from an earlier
   * window or older than the one held never replaces it; see docs/pacer.md.
   */
  void accept(PermitImpl permit, long left, long resetAt, int status, InFlight inFlight,
      String dialect, long stamp, long now) {
    touchedStamp = stamp;
    if (status < 400) {
      own.admitted(permit.sendAtNanos, Time.mul(window.windowNanos, 2));
    }
    log.counted(quota, left, permit.cost(unit), status, permit.sendAtNanos, now,
        inFlight.units(unit), trail(resetAt, permit.sendAtNanos, status, left));
    roll(now);
    long ours = inferred.admittedUnder(passedResetNanos); // before this answer's
    long mostLeft = inferred.mostLeftUnder(passedResetNanos);
    inferred.answered(resetAt, status, left);
    // The first answer after a reset, whose own reset moved on past the one that passed.
    boolean afterReset = unconfirmed && !stale && status < 400 && resetAt != Long.MIN_VALUE
        && resetAt - window.resetAtNanos > ONE_SECOND_NANOS;
    long sent = permit.sendAtNanos;
    noteFirstContact(left, status, sent, now);
    // A 429, the first answer since the reset passed: the count was spent at the reset (a
    // bucket's is back at its reset, and only its own burst spends it again).
    spentMoveNanos = status >= 400 && left == 0 && unconfirmed && !stale
        ? movedPastReset(resetAt, sent, now) : 0;
    if (sent < window.epochStartNanos) {
      if (window.mayBeCurrent(resetAt)) {
        count.stray(permit, unit, now); // its count may be the earlier window's, its unit ours
      }
      return; // from an earlier window: a late response must not resurrect a value
    }
    HeldCount held = count;
    boolean known = !stale && held.known();
    if (known && held.concurrent(sent) && !window.newWindow(resetAt)) {
      // Concurrent with the request whose count we hold: the server may have counted them in
      // either order (callers committed at the same instant, unequal network delays). Taking
      // the larger count would forget the requests it counted after this one, whose responses
      // already left the in-flight count: within a window only the smaller count is safe.
      if (left >= held.remaining) {
        held.untaken(permit, unit, now, left, status);
        return;
      }
      if (held.olderThan(permit)) {
        held.lowered(left, sent, now);
        spentByUs = spentByUs(status, left, now);
        updatedAtNanos = now;
        return;
      }
    } else if (held.olderThan(permit) && !window.newWindow(resetAt)) {
      held.untaken(permit, unit, now, window.mayBeCurrent(resetAt) ? left : Long.MAX_VALUE,
          status);
      return; // older than what we know: a late response must not resurrect a value
    }
    // (An older request's answer whose reset is a later window's was counted after the window
    // held ended, whatever the order they were sent in: its count is the next window's.)
    // Counted after the request whose count we hold, and yet the count did not drop by this
    // request's cost: the server gave units back. Answered before that count's window can have
    // ended, it refills continuously. Answered after, with the whole quota back but what may be
    // ours (in flight, or answered with counts not taken), it is the next window's count (at a
    // 1-second window a whole-second reset cannot tell the two apart; a refilling server is all
    // back only when nobody used it), and the reset comes with it.
    long cost = permit.cost(unit);
    boolean after = held.countedAfter(permit, sent);
    boolean rose = after && refill.rose(left, cost, status);
    boolean next = rose && window.mayHaveEnded(now)
        && Time.add(Time.add(left, cost), held.ours(inFlight.units(unit))) >= quota;
    if (rose && !next && !refill.refilling && !window.newWindow(resetAt)) {
      refill.refilling = true;
    }
    if (afterReset && quota > 0 && window.windowNanos <= 0 && leftAtReset >= 0
        && left <= leftAtReset
        && Time.add(Time.add(left, cost), held.ours(inFlight.units(unit))) < quota) {
      // The reset passed and moved on, and yet the count did not come back (no more left than
      // when the reset passed, and less than the quota less our own requests: a bucket whose
      // burst is below its quota comes back to its burst): the server does not give its quota
      // back at its reset
      // (NestJS: the reset is a tracker's expiry, each unit leaves a window after its request).
      // Without a window said, its units come back as they age: paced as a log or a refill,
      // not by waiting a whole new window for a reset that gives back nothing more.
      refill.refilling = true;
    }
    if (afterReset && quota > 0 && window.windowNanos <= 0 && status < 400
        && movedWindowNanos == 0 && !backAtReset && passedResetNanos != Long.MIN_VALUE) {
      // The first answer after the reset, whose reset moved on, holding much of what this
      // client alone was admitted under the reset that passed (at least half, and no more; and
      // that was at least half the quota: a fixed window others spend holds theirs too): a
      // sliding counter weighs the window before into its count. Its reset moved by whole
      // windows: paced at the quota per that move, as a 429 with a much sooner Retry-After
      // would pace it. (A bucket is full again at its reset; one whose burst is below its quota
      // holds units this client did not spend.)
      long holds = quota - left - cost;
      long moved = movedPastReset(resetAt, sent, now);
      long upTo = ours + 1;
      long atLeast = ours;
      if (!pacedAlone && leftAtReset >= 0 && mostLeft > leftAtReset
          && Time.sub(sent, passedResetNanos)
              <= Time.add(Time.sub(now, sent), ONE_SECOND_NANOS)) {
        // In a fleet the counts are the fleet's, and each instance was admitted a share of
        // them: what the fleet spent under the reset that passed is how far this instance saw
        // the count fall there. Which units a count holds is not known, so the count must
        // still be all but spent (nine tenths of the quota held), in an answer to a request
        // sent within its round trip and a second of the reset: a fixed window's count there
        // holds only what the fleet sent since, a bucket's only what it took since it was full.
        ours = Math.max(ours, mostLeft - leftAtReset);
        upTo = quota;
        atLeast = Math.max(ours, 2 * (quota - Math.max(1, quota / 10)));
      }
      if (ours >= 2 && ours * 2 >= quota && holds * 2 >= atLeast && holds <= upTo
          && moved > 0) {
        refill.refilling = true;
        movedWindow(moved);
        movedSinceNanos = now;
      }
    }
    if (window.soonerThanAWindow(resetAt, now - sent)) {
      refill.refilling = true; // its resets are not a window apart
      refill.shortResets = true;
    }
    boolean later = next || window.newWindow(resetAt);
    inferred.observe(resetAt, sent, status, rose,
        window.windowNanos <= 0 && inferred.or(0) > 0 && refillPaced(), now);
    // A reset carried over from an earlier window (unconfirmed) is only a guess: replaced.
    window.take(resetAt, sent, now,
        !next && !unconfirmed && held.known() && left <= held.remaining);
    if (refillPaced() && status < 400) {
      refill.admitted();
    }
    // Which of the units out were sent is read only where the cursor rule may use it (see
    // commit): elsewhere none counts as sent, and the live permits are not walked.
    long out = inFlight.units(unit);
    long unsent = out > 0 && pacedAlone && window.openedEnd() != Long.MIN_VALUE
        ? unsent(permit.base, now) : out;
    held.set(left, permit, sent, now, out, unsent, !later);
    spentByUs = spentByUs(status, left, now);
    refill.counted(left, cost, status, after, resetAt == Long.MIN_VALUE, sent, now, quota,
        refillWindow());
    stale = false;
    toldAtReset |= unconfirmed;
    unconfirmed = false;
    window.probeAtReset = false;
    source = dialect;
    updatedAtNanos = now;
  }

  /**
   * Returns the units of this policy's unit that the permits of {@code base} committed to a time
   * after {@code now} hold (in flight, not sent yet).
   */
  private long unsent(Partition base, long now) {
    long units = 0;
    for (PermitImpl p = base.oldestLive(); p != null; p = p.newerLive) {
      if (p.sendAtNanos > now) {
        units = Time.add(units, p.cost(unit));
      }
    }
    return units;
  }

  /**
   * Whether the count just taken from an answer with {@code status} and {@code left} units left,
   * received at {@code now}, is one our own admitted requests spent: the answer admitted our
   * request and said none is left (the count held is 0), and the last quota of our requests
   * this policy admitted were all sent within two of the windows the server told. A window
   * counts only what was sent in it, a bucket spent had its quota taken within a window, a
   * sliding-window counter weighs the window before too: our requests alone account for the
   * count told. A count of requests only (units of other kinds are not counted per answer).
   */
  private boolean spentByUs(int status, long left, long now) {
    if (status >= 400 || left != 0 || count.remaining != 0 || quota <= 0
        || unit != QuotaUnit.REQUESTS || window.windowNanos <= 0) {
      return false;
    }
    return own.spentQuotaWithin(quota, Time.mul(window.windowNanos, 2), now);
  }

  /**
   * Takes a move of the reset past the one that passed, with the count still spent, as the
   * window's bound until one is inferred: rounded up by the second the resets are rounded to.
   */
  private void movedWindow(long moved) {
    if (moved > 0 && !backAtReset) {
      movedWindowNanos = Time.add(moved, ONE_SECOND_NANOS);
    }
  }

  /**
   * Records a response to {@code permit}'s request that did not mention this policy (servers
   * need not repeat themselves): it still spent a unit, unless the server had counted it in the
   * value we hold. Returns whether the policy is gone: probed, and the server no longer speaks
   * of it.
   */
  boolean unmentioned(PermitImpl permit, long now) {
    roll(now);
    if (stale) {
      return permit.sendAtNanos >= window.epochStartNanos;
    }
    if (unit != QuotaUnit.CONCURRENT_REQUESTS && count.spend(permit, unit)) {
      unconfirmed = false; // a response of the new window, silent about it
    }
    return false;
  }

  /**
   * Records a throttled response whose {@code Retry-After} ({@code retryNanos}, ending at
   * {@code untilNanos}) takes precedence over the reset (draft section 7): a spent policy whose
   * reset lies beyond it is looked at again when it ends, and then only probed (the server did
   * not say how much is back: section 4.1.2, a client MUST NOT assume all of it).
   */
  void retryAfter(long retryNanos, long untilNanos, long sentNanos, long now) {
    if (logPaced()) {
      log.refused(true, sentNanos, now); // it let a request go the server had no room for
      log.blocked(untilNanos); // and the server may forget all spent before the hold ends
    }
    if (stale || count.remaining != 0 || !window.hasReset) {
      return;
    }
    long toReset = Time.sub(window.resetAtNanos, now);
    if (quota > 0 && inferred.or(window.windowNanos) <= 0) {
      // No window known. A unit back much sooner than the reset, with the count still spent
      // after its reset moved on: the server refills (a sliding window's count carries the
      // window before), at least at the quota per that move. One back about at the reset while
      // paced so: a fixed window others spent, never paced at a move's pace again.
      boolean sooner = ServerWindow.muchSooner(retryNanos, toReset);
      if (sooner && refillPaced() && sentNanos >= movedSinceNanos) {
        // Paced at the move and refused: the move was more than this client's share (several
        // sharing the count), or a bucket's burst, not a window. The guess is dropped for good.
        movedWindowNanos = 0;
        backAtReset = true;
      }
      if (sooner && spentMoveNanos > 0 && movedWindowNanos == 0) {
        refill.refilling = true;
        movedWindow(spentMoveNanos);
        movedSinceNanos = now;
        if (refillPaced()) {
          return;
        }
      } else if (!sooner && movedWindowNanos > 0) {
        backAtReset = true;
      }
    }
    if (quota > 0 && window.windowNanos > 0) {
      // A unit back much sooner than the reset: the server refills continuously (a sliding
      // window's "t" is when the whole quota is back). One back about at the reset: it does
      // not, whatever we thought.
      if (ServerWindow.muchSooner(retryNanos, toReset)) {
        if (refill.refilling) {
          refill.throttled(sentNanos, now);
        }
        refill.refilling = true;
        return;
      }
      if (refill.shortResets && toReset < window.windowNanos / 2) {
        // Its resets come round sooner than its window: a reset this near, with nothing left,
        // is its next unit, and a unit back at it says nothing of a fixed window. Paced at the
        // refill rate and refused: pace a little slower.
        refill.throttled(sentNanos, now);
        return;
      }
      refill.refilling = false;
    }
    window.retryAfter(untilNanos, now - sentNanos);
  }
}
