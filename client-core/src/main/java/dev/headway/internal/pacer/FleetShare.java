package dev.headway.internal.pacer;

import dev.headway.store.ServerCount;
import dev.headway.store.SharedQuota;
import java.time.Duration;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * This instance's share of the server's count while the fleet cannot coordinate through its
 * store: the store does not answer (an outage, a failover), or answered again less than the
 * outage's length ago (other instances may still be pacing without it, and the units they send
 * meanwhile are in no lease: see {@link Fleet#coordinating}). Every instance then reads the server's counts of the whole fleet in its own responses;
 * spending them as its own, {@code n} instances would spend them {@code n} times. So an instance
 * that last saw {@code n} instances spends at most 1/n of the latest count it read (less what it
 * sent since that count's instant), of a whole quota once the count's window has reset, and of
 * what a server that refills continuously gives back since the count, at 1/n of its rate.
 *
 * <p>Counts without a quota (the server never said it) are shared as of the most units a count
 * showed left; a spent share waits for the reset, and past a reset of an unknown window for a
 * count of the new one: an instance never goes because it cannot tell when its share comes back.
 *
 * <p>What it costs: shares are rounded down, so up to {@code n - 1} units a window go unused, and
 * an instance with fewer callers than its share leaves the rest of it unused (the others do not
 * know). Part of a {@link SharedBudget}; under the partition's monitor.
 */
final class FleetShare {
  /** Own sends kept (time and units), enough for a share of a window at any usual quota. */
  private static final int SENDS = 256;
  /** How often an instance whose share waits for a count looks again. */
  private static final long POLL_NANOS = 50_000_000L;

  private final long[] sentAt = new long[SENDS];
  private final long[] sentUnits = new long[SENDS];
  private int next;
  private int size;

  /** The latest count: remaining at the engine time {@code countedUpTo}; none yet if -1. */
  private long remaining = -1;
  private long countedUpTo;
  /** The send of the request that carried it: own units sent after it are not in it. */
  private long ownSince;
  /** Its reset (engine time), or Long.MIN_VALUE; its quota (or -1) and window (or 0). */
  private long resetNanos = Long.MIN_VALUE;
  private long quota = -1;
  /**
   * The most units a count of this key has shown left: the quota, as far as this instance knows,
   * where the server never said it (a {@code RateLimit} without its policy, {@code
   * X-RateLimit-Remaining} without a limit). Never more than the quota.
   */
  private long floor = -1;
  private long windowNanos;
  /** Units per nanosecond the server gives back, for a policy paced at its refill rate; or 0. */
  private double refillPerNano;
  /**
   * Own units sent after this (engine time) count against the current window: the last count of
   * the window before, when a count showed a new window; else the store's answer before its last
   * one. Long.MIN_VALUE before either.
   */
  private long windowSince = Long.MIN_VALUE;

  /** Records {@code units} of this instance sent (or to be sent) at {@code at}. */
  void sent(long units, long at) {
    if (size > 0) {
      int last = Math.floorMod(next - 1, SENDS);
      if (sentAt[last] == at) {
        sentUnits[last] = Time.add(sentUnits[last], units);
        return;
      }
    }
    sentAt[next] = at;
    sentUnits[next] = units;
    next = (next + 1) % SENDS;
    size = Math.min(SENDS, size + 1);
  }

  /**
   * Records a server count this instance's own response carried, holding for the engine time
   * {@code upTo}, to the request sent at {@code sentNanos}, its reset at {@code reset} (engine
   * time, or Long.MIN_VALUE), and the policy it counts for, if known. A count older than the one
   * kept is ignored.
   */
  void counted(ServerCount count, long upTo, long sentNanos, long reset,
      @Nullable ServerPolicy policy) {
    if (remaining >= 0 && upTo < countedUpTo) {
      return;
    }
    boolean next = newWindow(count.remaining(), reset, count.window(), sentNanos);
    if (remaining >= 0 && !next && count.remaining() > remaining
        && (policy == null || !policy.refillPaced())) {
      // The same window of a server that gives nothing back before its reset: the count with
      // fewer units left is the later one, even when its request was sent after (it reached the
      // server first). Taken as a window that started, it let this instance spend its share of
      // a whole window again while the store was down.
      return;
    }
    remaining = count.remaining();
    countedUpTo = upTo;
    ownSince = sentNanos;
    resetNanos = reset;
    quota = count.quota().orElse(-1);
    floor = Math.max(floor, remaining);
    windowNanos = count.window().map(java.time.Duration::toNanos).orElse(0L);
    refillPerNano = 0;
    if (policy != null && policy.refillPaced() && policy.quota > 0) {
      long window = policy.inferred.or(policy.window.windowNanos);
      if (window > 0) {
        refillPerNano = (double) policy.quota / window;
      }
    }
  }

  /**
   * Records what a store answer at {@code now} (engine time) said of the server's count: the
   * units the fleet had left, plus {@code ownUnits} this instance holds in leases (they count as
   * its own once sent). The store knows what every instance took and reported up to its answer,
   * which an instance's own last count may not (its last response may be a second old while the
   * others spent the window).
   */
  void read(SharedQuota state, long ownUnits, long now, Fleet fleet) {
    if (state.count().isEmpty() || (remaining >= 0 && now < countedUpTo)
        || !fleet.coordinating(now)) {
      // Not while the fleet does not coordinate (the store just came back): the others still
      // keep to their shares, and the units they send are in no lease, so what the store says
      // the fleet has left is not. Read as the whole fleet's, the answers of a store that came
      // back empty (a failover to a replica that lagged) let one instance spend the window the
      // others shared.
      return;
    }
    ServerCount count = state.count().get();
    Instant wall = fleet.settings.wallClock.instant();
    long reset = count.resetAt().map(r -> fleet.nanos(r, now)).orElse(Long.MIN_VALUE);
    if (remaining >= 0) {
      // The window cap (below) counts own units from the answer before this one: should the
      // store go down now, in the middle of a window, the units this instance sent in that window
      // before are in what the store said it had left, those sent since are not.
      windowSince = ownSince;
    }
    remaining = Time.add(state.available(wall).orElse(0), ownUnits);
    countedUpTo = now;
    ownSince = now;
    resetNanos = reset;
    quota = count.quota().orElse(-1);
    floor = Math.max(floor, count.remaining());
    windowNanos = count.window().map(java.time.Duration::toNanos).orElse(0L);
    refillPerNano = state.refillRate().filter(r -> fleet.plausibleLearnedAt(r.learnedAt()))
        .map(r -> (double) r.units() / r.period().toNanos()).orElse(0.0);
  }

  /**
   * Notes a window that started since the count kept, as a count of this instance's own response
   * with {@code newRemaining} units left and a reset at {@code reset}, its request sent at {@code
   * sentNanos}, shows it: a reset more than half a window later; where the window is unknown, a
   * request sent at or after the kept count's reset, that count from before it; where resets are
   * unknown, more units left than before (counts reach the server out of order: with a reset to
   * tell windows apart, a count with more units left in the same window is an earlier one). Returns whether one started. Own units sent
   * after the last count of the window before count against it (some of them may have gone in
   * that window: the instance spends less, never more).
   */
  private boolean newWindow(long newRemaining, long reset, java.util.Optional<Duration> window,
      long sentNanos) {
    if (remaining < 0) {
      return false;
    }
    long w = window.map(Duration::toNanos).orElse(0L);
    boolean resets = reset != Long.MIN_VALUE && resetNanos != Long.MIN_VALUE;
    boolean started = resets && w > 0 ? Time.sub(reset, resetNanos) > w / 2
        : resets ? sentNanos >= resetNanos && countedUpTo < resetNanos
        : newRemaining > remaining;
    if (started) {
      windowSince = ownSince;
    }
    return started;
  }

  /**
   * Returns the earliest time, not before {@code at}, at which {@code cost} more units fit this
   * instance's share of the latest count with {@code instances} instances: {@code at} when they
   * fit or nothing is known, else when the window resets or the refill gives them back, or
   * when neither says, when a count of this instance's own requests should have told (see
   * {@link #untilCounted}): never "never", which a caller could only take for "go".
   */
  long earliest(long cost, long at, int instances) {
    if (remaining < 0 || instances <= 1) {
      return at;
    }
    // A quota the server never said is taken as the most units a count showed left.
    long quota = this.quota > 0 ? this.quota : floor;
    long since;
    double available;
    boolean rolled = resetNanos != Long.MIN_VALUE && at >= resetNanos && quota > 0;
    if (rolled) {
      // The window reset since the count: a whole quota, counted from the window's start.
      // Its start is known to a second at best (resets in whole seconds): the units this
      // instance sent since the count count against the new window too.
      since = ownSince;
      long windows = windowNanos > 0 ? Time.sub(at, resetNanos) / windowNanos : 0;
      if (windows > 0) {
        since = Time.add(resetNanos, Time.mul(windows, windowNanos));
      }
      available = quota;
    } else {
      since = ownSince;
      available = remaining + refillPerNano * Math.max(0, Time.sub(at, countedUpTo));
      if (quota > 0) {
        available = Math.min(available, quota);
      }
    }
    long own = sentAfter(since);
    double need = (double) own + cost;
    boolean fits = need * instances <= available;
    if (fits && !rolled && windowSince != Long.MIN_VALUE && refillPerNano == 0 && quota > 0) {
      // A window started while the store was down: what this instance sent in it counts against
      // its share of the whole window, whatever the counts (others' sends in flight are in none).
      fits = ((double) sentAfter(windowSince) + cost) * instances <= quota;
    }
    if (fits) {
      return at;
    }
    long later = Long.MAX_VALUE;
    if (!rolled && refillPerNano > 0) {
      double wait = (need * instances - remaining) / refillPerNano;
      later = Time.add(countedUpTo, (long) Math.min(Long.MAX_VALUE / 4.0, Math.ceil(wait)));
    }
    if (resetNanos != Long.MIN_VALUE && (quota > 0 || resetNanos > at)) {
      long reset = resetNanos > at ? resetNanos : windowNanos > 0
          ? Time.add(resetNanos, Time.mul(Time.sub(at, resetNanos) / windowNanos + 1,
              windowNanos))
          : untilCounted(at);
      later = Math.min(later, reset);
    }
    if (later == Long.MAX_VALUE) {
      // Neither a reset nor a refill says when the share comes back (a count without a reset,
      // or past the reset of counts that never showed a unit left): the next count this
      // instance's own requests bring does, as past the reset of a window it does not know.
      later = untilCounted(at);
    }
    return Math.max(at, later);
  }

  /**
   * Past a reset, the window unknown and this instance's share of the new one spent: when to look
   * again. The answers to its requests sent since bring a count of the new window (and its reset);
   * should none come back for {@link Fleet#STUCK_NANOS} (they failed without a word), it goes.
   */
  private long untilCounted(long at) {
    long last = size == 0 ? Long.MIN_VALUE : sentAt[Math.floorMod(next - 1, SENDS)];
    if (last == Long.MIN_VALUE || Time.sub(at, last) >= Fleet.STUCK_NANOS) {
      return at;
    }
    return Math.min(Time.add(at, POLL_NANOS), Time.add(last, Fleet.STUCK_NANOS));
  }

  /** Units this instance sent after {@code since}. */
  private long sentAfter(long since) {
    long sum = 0;
    for (int i = 1; i <= size; i++) {
      int slot = Math.floorMod(next - i, SENDS);
      if (sentAt[slot] <= since) {
        continue;
      }
      sum = Time.add(sum, sentUnits[slot]);
    }
    return sum;
  }
}
