package dev.headway.internal.pacer;

import org.jspecify.annotations.Nullable;

/**
 * Owns checking that a long block is real. A hold longer than {@code maxWait} (a
 * {@code Retry-After} of a day), a server policy spent until a reset further off, or a server
 * policy's zero quota may be a server's mistake, or may have ended early: left alone it would
 * refuse every call until then (or for good), and nothing would ever check. So once such a
 * block has lasted {@code maxWait} (and at least {@code baseBackoff}: the <em>check gap</em>),
 * a single request goes as its <em>check</em>; if it is throttled again (or the server still
 * says zero), the next check waits twice as long (at most {@link #MAX_BACKOFF_FACTOR} times the
 * check gap); a success lifts the block. A block seen after the last one would have ended by
 * itself is a new one, with its own check gap. A
 * policy that still has units left is not a block, nor is a window our own admitted requests
 * spent, whose reset the server told within its window: an honest server's word about our own
 * requests, and a check would only draw the 429 it announced. One block at a time per base
 * partition. Guarded by the base partition's monitor.
 */
final class LongBlocks {
  /** The longest gap between two checks, as a multiple of the check gap. */
  static final int MAX_BACKOFF_FACTOR = 32;
  private static final long ONE_SECOND_NANOS = 1_000_000_000L;

  /** When the next check may go; Long.MIN_VALUE while no long block was seen. */
  private long nextCheckNanos = Long.MIN_VALUE;
  private long backoffNanos;
  /**
   * When the block seen would end by itself (the latest end a decision gave it): a block seen
   * after that is another one, checked only once it has lasted {@code maxWait} in turn.
   */
  private long blockEndNanos = Long.MIN_VALUE;
  /**
   * When the server last told the block the deciding server policy says (the answer that set
   * its count); Long.MIN_VALUE when a hold or something else decided. A check verifies a block
   * nobody has looked at for {@code maxWait}: none goes sooner than {@code maxWait} after that
   * answer, which is as fresh as the check's would be.
   */
  private long toldNanos = Long.MIN_VALUE;
  /** The permit sent as the check, until it is answered or released. */
  private @Nullable PermitImpl sentCheck;

  /**
   * Whether a decision's wait until {@code at} (seen at {@code now}) is a block longer than
   * {@code maxWaitNanos} that a check may go into: a zero quota, a hold ({@code Retry-After})
   * further off, or any wait that long, unless the policy that decided it still has units left
   * (fewer than the request costs, or spread by the pacing strategy: the server counts as it
   * says, and a check would draw the 429 it announced or skip the pacing), or is paced at its
   * refill rate and gives its next unit back within {@code maxWaitNanos} (a line of callers the
   * pacer is pacing through, one unit back every window / quota: a check sent ahead of the line
   * would only find the bucket empty), or was spent by our own admitted requests and waits for
   * the reset the server told within its window ({@link #spentByUs}), or is the learned rate (a
   * learned pace adapts itself, and into a spent server its spacing is its own schedule of tries:
   * a check past it that was admitted dropped the learned rate, and the pace that drew the 429s
   * came back). Records when the server told the block a server policy decides, for
   * {@link #mayCheck}.
   */
  static boolean longBlock(Partition base, Evaluation evaluation, long at, long now,
      long maxWaitNanos, long maxResetNanos) {
    base.longBlocks.toldNanos = evaluation.deciding instanceof ServerPolicy told && !told.stale
        && told.count.known() ? told.updatedAtNanos : Long.MIN_VALUE;
    if (evaluation.zeroQuota || Time.sub(base.hold.untilNanos(), now) > maxWaitNanos) {
      return true;
    }
    if (Time.sub(at, now) <= maxWaitNanos) {
      return false;
    }
    String decider = evaluation.decider;
    if (LearnedRate.NAME.equals(decider)) {
      return false; // the learned spacing is a pace, and its own schedule of tries: not a block
    }
    return decider == null || !(evaluation.deciding instanceof ServerPolicy sp
        && (refillsSoon(sp, now, maxWaitNanos) || hasUnitsLeft(sp)
            || spentByUs(sp, at, now, maxResetNanos)));
  }

  /**
   * Whether the server policy {@code sp} is a window our own admitted requests spent (see
   * {@link ServerPolicy#spentByUs}: an admitted answer to our request said 0 left, and the last
   * quota of our requests it admitted went within two of its told windows), and the
   * wait until {@code at} ends by the reset an answer of this window told, itself within the
   * window the server told (plus a second for a reset in whole seconds and the jitter's
   * fiftieth of a window) and within {@code maxResetNanos}. That is an honest server's account
   * of our own requests: believed, the callers are refused until the reset and no check draws
   * the 429 it announced. A count a refusal said (a 429 with {@code r=0} for an hour), or one
   * others spent, or a reset past the window told (a day on a window of a minute), may be a
   * server's mistake, and is checked.
   */
  private static boolean spentByUs(ServerPolicy sp, long at, long now, long maxResetNanos) {
    long w = sp.window.windowNanos;
    if (!sp.spentByUs || sp.stale || sp.unconfirmed || !sp.count.known()
        || sp.count.remaining > 0 || w <= 0 || !sp.window.hasReset
        || sp.updatedAtNanos < sp.window.epochStartNanos) {
      return false; // not spent by us, as told in this window: nothing to believe
    }
    long toReset = Time.sub(sp.window.resetAtNanos, now);
    long rounding = Time.add(w / 50, ONE_SECOND_NANOS);
    return toReset > 0 && toReset <= Time.add(w, rounding) && toReset <= maxResetNanos
        && Time.sub(at, now) <= Time.add(toReset, rounding);
  }

  /**
   * Whether the server policy {@code sp} says it has units left: a wait it decides is for a
   * request that costs more than them (tokens) or for the pacing strategy's own spread, not a
   * block. The server is counting as it says, so a check would only skip the pacing or draw
   * the 429 it announced; only a spent policy (or a zero quota) may be a server's mistake.
   */
  private static boolean hasUnitsLeft(ServerPolicy sp) {
    return !sp.stale && sp.count.known() && sp.quota != 0 && sp.count.remaining > 0;
  }

  /**
   * Whether the server policy {@code sp} is paced at its refill rate and its next unit is back
   * within {@code maxWaitNanos} (now if it has units left).
   */
  private static boolean refillsSoon(ServerPolicy sp, long now, long maxWaitNanos) {
    if (sp.stale || !sp.count.known() || !sp.refillPaced()) {
      return false;
    }
    long back = sp.refill.backAt(1 - sp.count.remaining, sp.refillUnits(now), sp.refillWindow());
    return Time.sub(back, now) <= maxWaitNanos;
  }

  /**
   * Commits {@code permit} to go now as the single check of a long block of {@code base} (its
   * monitor held).
   */
  Decision check(PermitImpl permit, Partition base, @Nullable Partition child, long now) {
    permit.child = child;
    permit.sendAt(now);
    if (!permit.commitState()) {
      return Decision.CANCELLED;
    }
    permit.route = base.routes.find(permit.routeHash());
    base.enter(permit, permit.route, now);
    if (child != null) {
      child.enter(permit, null, now);
    }
    permit.seq = base.nextSeq();
    sent(permit);
    return Decision.NOW;
  }

  /**
   * Records that a decision at {@code now} found a block longer than {@code maxWait}, until
   * {@code untilNanos}; returns whether the request deciding may go now as the single
   * check. A block seen after the last one would have ended by itself (at its reset, unchecked)
   * is a new one: its check waits {@code checkGapNanos} from now, not from when the old one was
   * seen. Nor does a check go sooner than {@code checkGapNanos} after the server last told the
   * block (a GCRA whose burst of one comes back every three minutes says so after every
   * request; the callers refused behind the first, told later times, made the block seem to
   * last past the next reset, and the check sent right after that reset's answer drew the 429
   * it had just announced).
   */
  boolean mayCheck(long now, long untilNanos, long checkGapNanos) {
    if (sentCheck != null) {
      blockEndNanos = Math.max(blockEndNanos, untilNanos);
      return false;
    }
    // A zero quota's block never ends by itself; one seen after it that does is another block
    // (the zero quota was lifted by an answer other than the check's).
    if (nextCheckNanos == Long.MIN_VALUE || now >= blockEndNanos
        || (blockEndNanos == Long.MAX_VALUE && untilNanos != Long.MAX_VALUE)) {
      backoffNanos = checkGapNanos;
      nextCheckNanos = Time.add(now, backoffNanos);
      blockEndNanos = untilNanos;
      return false;
    }
    blockEndNanos = Math.max(blockEndNanos, untilNanos);
    return now >= nextCheckNanos && now >= Time.add(toldNanos, checkGapNanos);
  }

  /** The permit goes as the check. */
  void sent(PermitImpl permit) {
    sentCheck = permit;
  }

  /** Whether {@code permit} is the check in flight. */
  boolean isCheck(PermitImpl permit) {
    return sentCheck == permit;
  }

  /**
   * The check was answered at {@code now}: {@code lifted}, the block is over (a success);
   * otherwise the next check waits twice as long.
   */
  void answered(boolean lifted, long now, long checkGapNanos) {
    sentCheck = null;
    if (lifted) {
      nextCheckNanos = Long.MIN_VALUE;
      blockEndNanos = Long.MIN_VALUE;
      return;
    }
    long cap = Time.mul(checkGapNanos, MAX_BACKOFF_FACTOR);
    backoffNanos = Math.min(cap, Time.mul(backoffNanos, 2));
    nextCheckNanos = Time.add(now, backoffNanos);
  }

  /**
   * The block ended by another instance's check, not one of this instance's: a block seen after
   * it is a new one, checked only once it has lasted {@code maxWait} in turn.
   */
  void ended() {
    nextCheckNanos = Long.MIN_VALUE;
    blockEndNanos = Long.MIN_VALUE;
  }

  /** The check ended without an answer (released, expired): the next request may check. */
  void released(PermitImpl permit) {
    if (sentCheck == permit) {
      sentCheck = null;
    }
  }
}
