package dev.headway.internal.pacer;

import dev.headway.QuotaUnit;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A count that gives units back before its reset at a pace nothing tells (a bucket's, token
 * bucket or GCRA, whose {@code X-RateLimit} fields say no window): its reset is when it is full
 * again, a second or two ahead while in use, and its count a few units. Two rules, both only
 * for such a count, the partition's only policy, paced alone ({@link SharedBudget#pacesAlone}:
 * no store, or no other instance seen yet, before the store's first answer too, or none for a
 * second; with others the fleet's budget paces, and alone a store never takes away what the
 * instance would do without one):
 *
 * <ul>
 *   <li><b>The times already given follow the answers</b> ({@link #sooner}). The pacing spreads
 *       the few units left over the reset and gives the callers waiting times up to a second
 *       ahead; as the next answers show the count back near its quota, those times would not
 *       move. So after each answer the callers waiting asynchronously for a later time before
 *       the reset are given again, oldest commit first, the time the pacing strategy gives now
 *       from the count left by the requests already sent; never a later one than they had. A
 *       caller whose unit the count does not hold (with those before it) keeps its time, and so
 *       does every one after it: a unit is never given twice.
 *   <li><b>Spent, not waited out to its reset</b> ({@link #backBeforeReset}). A bucket's reset
 *       is when it holds what it can hold again; so the units it lacks come back by then, at
 *       (what it can hold, less the count, less one) over the time to the reset, evenly from
 *       now. What it can hold is the most it ever reported plus one; the one less is for the part
 *       of a unit the count (a whole number) does not show. Read late (whole seconds, a
 *       whole-second {@code Date}), that pace is slower than the bucket's own. A 429 to a
 *       request sent at that pace drops it for good: several clients spending one count each
 *       start at the whole pace.
 * </ul>
 *
 * Under the partition's monitor.
 */
final class Retiming {
  private Retiming() {}

  /**
   * Re-times the callers waiting for a later time on {@code base}, if its only policy is a count
   * that refills at a pace not known; returns the waiters whose time moved earlier (to be woken
   * then, outside the monitor), or null if none did.
   */
  static @Nullable List<AsyncAcquire> sooner(Partition base, Settings settings, long now) {
    ServerPolicy policy = loose(base, now);
    if (policy == null || base.child != null || !SharedBudget.pacesAlone(settings, base)
        || base.hold.untilNanos() > now) {
      return null;
    }
    long resetAt = policy.window.resetAtNanos;
    List<PermitImpl> waiting = null;
    long sent = base.inFlight.units(QuotaUnit.REQUESTS);
    for (PermitImpl p = base.oldestLive(); p != null; p = p.newerLive) {
      if (!p.handedOut && p.isCommitted() && p.waiter != null && p.sendAtNanos > now
          && p.sendAtNanos < resetAt && p.child == null) {
        if (waiting == null) {
          waiting = new ArrayList<>();
        }
        waiting.add(p);
        sent -= p.costRequests;
      }
    }
    if (waiting == null) {
      return null;
    }
    List<AsyncAcquire> moved = null;
    long quota = policy.quota;
    long taken = 0;
    long t = now;
    for (PermitImpl p : waiting) {
      long cost = p.costRequests;
      long available = Time.sub(Time.sub(policy.count.remaining, sent), taken);
      if (available < Math.min(cost, quota)) {
        return moved; // the count does not hold it: it and those after it keep their times
      }
      long at = t;
      if (at < p.sendAtNanos) {
        p.sendAt(at);
        if (moved == null) {
          moved = new ArrayList<>();
        }
        AsyncAcquire waiter = p.waiter;
        if (waiter != null) {
          moved.add(waiter);
        }
      } else {
        at = p.sendAtNanos;
      }
      long spacing = settings.strategy.spacingNanos(Math.max(1, available), quota,
          Math.max(0, resetAt - at));
      long gap = spacing > 0 ? Time.mul(spacing, cost) : 0;
      p.gapNanos = gap;
      t = Time.add(at, gap);
      taken = Time.add(taken, cost);
    }
    policy.nextFreeNanos = t;
    return moved;
  }

  /**
   * Returns when a request of {@code permit} may go on a count that gives units back before its
   * reset at a pace not known and is spent, if sooner than {@code earliest} (the reset): the
   * units it lacks back at the pace of a count that is back to what it can hold (the most it
   * reported, plus one) at its reset, evenly from now. A bucket's reset is when it is full again,
   * read late (whole seconds): that pace is never faster than its own.
   */
  static long backBeforeReset(ServerPolicy policy, Partition partition, PermitImpl permit,
      Evaluation ev, long earliest, long now, long notBefore) {
    permit.backBeforeReset = false;
    if (earliest <= notBefore || ev.refuse || permit.child != null
        || partition.policies().length != 1 || !policy.pacedAlone || !loose(policy, now)
        || policy.refill.mostReported < 0
        || policy.refill.backBeforeResetDropped) {
      return earliest;
    }
    long resetAt = policy.window.resetAtNanos;
    long units = Math.min(permit.cost(policy.unit), policy.quota);
    long inFlight = policy.flight(partition.inFlight).units(policy.unit);
    long needed = Time.sub(Time.add(inFlight, units), policy.count.remaining);
    long holds = Math.min(policy.quota, policy.refill.mostReported + 1);
    long back = holds - policy.count.remaining - 1;
    if (needed <= 0 || back <= 0 || needed > back) {
      return earliest;
    }
    long at = Time.add(now, (long) Math.ceil((double) needed * (resetAt - now) / back));
    at = Math.max(at, notBefore);
    if (at >= earliest || at >= resetAt) {
      return earliest;
    }
    ev.recheck = false;
    ev.queue = false;
    ev.waitingFor = null;
    permit.backBeforeReset = true;
    return at;
  }

  /**
   * Takes a throttled answer to {@code permit}: if its time came from {@link #backBeforeReset},
   * the partition's count is not paced so again. Several clients spending one count each start
   * at the whole pace; one 429 each, and they wait for the reset as before.
   */
  static void throttled(Partition base, PermitImpl permit) {
    PolicyState[] policies = base.policies();
    if (permit.backBeforeReset && policies.length == 1
        && policies[0] instanceof ServerPolicy p) {
      p.refill.backBeforeResetDropped = true;
    }
  }

  /**
   * Returns the partition's only policy if it is a count of requests seen to give units back
   * before its reset, not paced at a refill or as a log (no window said, inferred nor bounded),
   * believed, and before its reset; else null.
   */
  static @Nullable ServerPolicy loose(Partition base, long now) {
    PolicyState[] policies = base.policies();
    if (policies.length != 1 || !(policies[0] instanceof ServerPolicy p)) {
      return null;
    }
    return loose(p, now) ? p : null;
  }

  /**
   * Whether {@code p} is a count of requests seen to give units back before its reset, not
   * paced at a refill or as a log (no window said, inferred nor bounded), believed, and before
   * its reset.
   */
  static boolean loose(ServerPolicy p, long now) {
    if (p.unit != QuotaUnit.REQUESTS || p.qualifier != null || p.excludingRoutes > 0
        || p.quota <= 0 || p.stale || p.unconfirmed || !p.count.known()
        || !p.refill.refilling || p.refillPaced() || p.logPaced()
        || !p.window.hasReset || p.window.resetAtNanos <= now) {
      return false;
    }
    return true;
  }
}
