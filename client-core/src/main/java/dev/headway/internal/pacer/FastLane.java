package dev.headway.internal.pacer;

import dev.headway.QuotaUnit;
import dev.headway.Ticker;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Owns one partition's lock-free fast lane: a lease of permits that acquire and release take and
 * give back with one compare-and-set each, without the partition's monitor, while nothing can
 * change what the monitor would decide.
 *
 * <p><b>Why.</b> Most requests meet a partition with plenty of quota left, nobody waiting, no
 * hold and nothing to probe. For them the full decision (every policy asked under the monitor,
 * see {@link Admission}) always says "go now", and all it changes is the units in flight and
 * the commit sequence. Taking the monitor for that makes two threads on one partition park
 * where a peer limiter's CAS retries. The lane hands out exactly those "go now" decisions,
 * computed in advance, and keeps the monitor for everything else.
 *
 * <p><b>How.</b> When a decision under the monitor lets a permit go now, {@link #open} asks
 * whether the next permits of the same cost would go now too, and how many: the lease. For each
 * server policy with a count, that is how many more permits fit in {@code remaining - inFlight}
 * while the pacing strategy still leaves no gap after them (burst-then-spread: above its low
 * water; spread: only without a reset time; a strategy of the user's: never, since its spacing
 * cannot be predicted); a policy with no count limits nothing. The lane is not opened at all
 * when anything else could make a permit wait or look again: a hold, probing or a ramp after
 * one, anyone in the waiting line, a server sub-partition, a declared policy (its balance moves
 * with time), a concurrency cap, a stale, unconfirmed or refill-paced policy, a pacing cursor
 * in the future. The lease expires at the earliest reset of a policy, the instant the state
 * would roll (so a permit at a reset instant takes the monitor, which rolls the window and
 * probes it: no 429 at a reset instant).
 *
 * <p>The leased permits are put in flight at once, in bulk ({@link InFlight#addLease}), and the
 * sequence numbers they will take are set aside: so whatever the monitor sees while the lane is
 * open already counts every permit the lane could hand out, and no unit can be spent twice. The
 * lane's whole state is one {@code long}: a generation (odd while open), the number of permits
 * taken since it opened, and the number left. A fast acquire is one CAS taking one (left - 1,
 * taken + 1; its commit sequence is the sequence set aside plus the taken count, its send time
 * the ticker read before the CAS); a fast release of a permit taken from the same generation is
 * one CAS giving it back (left + 1).
 *
 * <p>Every section under the partition's monitor that reads or changes its state (a decision, a
 * response, a snapshot, eviction) starts with {@link Partition#closeLane}: one CAS to the next (even) generation; the permits left are taken
 * out of flight again and the sequence moves past the permits taken. From then on the state is
 * exact again: a permit taken from the lane is in flight on its own, like one the monitor
 * committed, and its release or response goes through the monitor (its CAS finds another
 * generation). A fast acquire whose CAS succeeded did so before the close: it was decided
 * before whatever the monitor does next, with a time read before it, exactly as if it had taken
 * the monitor first. Responses, holds, waits and snapshots therefore see the same state as
 * without a lane, and the deterministic tests of the slow path hold unchanged. The lane reopens
 * at the next "go now" under the monitor, and, priced as before, at the end of a response or a
 * snapshot ({@link #reopen}). The release of a permit the monitor committed does not close it:
 * giving units back leaves the lease valid.
 *
 * <p>Why a lease and not a CAS-swapped immutable state (resilience4j): the slow path needs the
 * mutable per-policy state anyway, and an immutable state allocates on every acquire; a lease
 * is two words. Why not a striped counter: a stripe cannot say "exactly the last unit" without
 * summing every stripe under a lock, and the lease already tells each thread what it may take.
 *
 * <p>Thread-safe: {@link #take} and {@link #giveBack} from any thread; {@link #open} and
 * {@link #close} under the partition's monitor.
 */
final class FastLane {
  /** The most permits one lease holds (20 bits). */
  static final int MAX_LEASE = (1 << 20) - 1;
  private static final int UNITS_BITS = 20;
  private static final int TAKEN_BITS = 20;
  private static final long UNITS_MASK = (1L << UNITS_BITS) - 1;
  private static final long TAKEN_MASK = (1L << TAKEN_BITS) - 1;
  private static final long TAKEN_ONE = 1L << UNITS_BITS;
  private static final int GEN_SHIFT = UNITS_BITS + TAKEN_BITS;
  private static final long GEN_MASK = (1L << (64 - GEN_SHIFT)) - 1;
  private static final VarHandle STATE;

  static {
    try {
      STATE = MethodHandles.lookup().findVarHandle(FastLane.class, "state", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /** Generation (odd: open), permits taken since it opened, permits left. */
  private volatile long state;
  // Written under the monitor before the state that opens the lane (a volatile store), read
  // after reading that state: a reader that sees the open generation sees these.
  /** What each leased permit costs; -1 before the lane first opened. */
  private long costRequests = -1;
  private long costBytes;
  private long costTokens;
  /** The lease is valid strictly before this (the earliest reset). */
  private long expiresAtNanos;
  /** The commit sequence of the first permit of the lease. */
  private long seqBase;

  /**
   * Takes a permit from the lane if it is open, has one left, the permit costs what the lease
   * was priced for, and the lease has not expired: one CAS. Commits the permit (in flight,
   * send time now, commit sequence) and returns true; false to take the monitor instead.
   */
  boolean take(PermitImpl permit, Partition base, Ticker ticker) {
    long v = state;
    if (!available(v) || base.child != null || base.evicted) {
      return false;
    }
    long now = ticker.read();
    while (true) {
      long seq = seqBase + taken(v);
      if (permit.costRequests != costRequests || permit.costBytes != costBytes
          || permit.costTokens != costTokens || now >= expiresAtNanos) {
        return false;
      }
      if (STATE.compareAndSet(this, v, v - 1 + TAKEN_ONE)) {
        permit.laneGen = (int) generation(v);
        permit.seq = seq;
        permit.sendAt(now);
        permit.commitFresh();
        base.touch(now);
        return true;
      }
      v = state;
      if (!available(v)) {
        return false;
      }
    }
  }

  /**
   * Gives back a permit taken from the lane if the lane has not closed since: one CAS. Returns
   * false if it closed (the permit is then in flight on its own: release it under the monitor).
   */
  boolean giveBack(PermitImpl permit) {
    int gen = permit.laneGen;
    if (gen == 0) {
      return false;
    }
    while (true) {
      long v = state;
      if (generation(v) != gen || (v & UNITS_MASK) == UNITS_MASK) {
        return false;
      }
      if (STATE.compareAndSet(this, v, v + 1)) {
        return true;
      }
    }
  }

  /**
   * Opens the lane on {@code partition} (whose monitor is held, the lane closed), right after a
   * permit costing what {@code shape} costs was committed to go now, if the next permits of that
   * cost would go now too; see the class comment.
   */
  void open(Partition partition, PermitImpl shape, Settings settings, long now) {
    open(partition, shape.costRequests, shape.costBytes, shape.costTokens, settings, now);
  }

  private void open(Partition partition, long requests, long bytes, long tokens,
      Settings settings, long now) {
    long lease = lease(partition, requests, bytes, tokens, settings, now);
    if (lease <= 0) {
      return;
    }
    costRequests = requests;
    costBytes = bytes;
    costTokens = tokens;
    expiresAtNanos = expiry(partition);
    seqBase = partition.peekSeq();
    partition.inFlight.addLease(costRequests, costBytes, costTokens, lease);
    long gen = (generation(state) + 1) & GEN_MASK;
    STATE.setVolatile(this, (gen << GEN_SHIFT) | lease);
  }

  /**
   * Opens the lane again, priced as when it last opened, once a response was applied (the
   * partition's monitor held): the next permit need not take the monitor to reopen it. The
   * response's time may be a little behind the ticker; that is safe, every condition that time
   * enters only gets easier later.
   */
  void reopen(Partition partition, Settings settings, long now) {
    if (costRequests >= 0 && !isOpen()) {
      open(partition, costRequests, costBytes, costTokens, settings, now);
    }
  }

  /**
   * Closes the lane (the partition's monitor held): the permits left go out of flight again.
   * Returns how many permits were taken from it (their sequence numbers are used), 0 if it was
   * not open.
   */
  long close(InFlight inFlight) {
    long v;
    do {
      v = state;
      if ((generation(v) & 1) == 0) {
        return 0;
      }
    } while (!STATE.compareAndSet(this, v, ((generation(v) + 1) & GEN_MASK) << GEN_SHIFT));
    long left = v & UNITS_MASK;
    inFlight.addLease(costRequests, costBytes, costTokens, -left);
    return taken(v);
  }

  /** Whether the lane is open. */
  boolean isOpen() {
    return (generation(state) & 1) == 1;
  }

  /** Returns how many permits the open lane has left; 0 if closed. */
  long left() {
    long v = state;
    return (generation(v) & 1) == 1 ? v & UNITS_MASK : 0;
  }

  private static boolean available(long v) {
    return (generation(v) & 1) == 1 && (v & UNITS_MASK) > 0 && taken(v) < TAKEN_MASK;
  }

  private static long generation(long v) {
    return (v >>> GEN_SHIFT) & GEN_MASK;
  }

  private static long taken(long v) {
    return (v >>> UNITS_BITS) & TAKEN_MASK;
  }

  /** How many more permits of {@code shape}'s cost would go now; 0 if the lane must stay shut. */
  private static long lease(Partition partition, long requests, long bytes, long tokens,
      Settings settings, long now) {
    if (partition.pk != null || partition.child != null || !partition.hold.settled(now)
        || !partition.line.empty()) {
      return 0;
    }
    long lease = MAX_LEASE;
    for (PolicyState policy : partition.policies()) {
      if (!(policy instanceof ServerPolicy state)) {
        return 0; // a declared policy's balance moves with time
      }
      long cost = state.unit == QuotaUnit.CONTENT_BYTES ? bytes
          : state.unit == QuotaUnit.TOKENS ? tokens : requests;
      lease = Math.min(lease, lease(state, partition.inFlight, cost, settings, now));
      if (lease <= 0) {
        return 0;
      }
    }
    return lease;
  }

  private static long lease(ServerPolicy state, InFlight inFlight, long cost,
      Settings settings, long now) {
    if (state.unit == QuotaUnit.CONCURRENT_REQUESTS || state.stale || state.unconfirmed
        || state.refillPaced()) {
      return 0;
    }
    if (state.remaining == PolicyState.UNKNOWN) {
      return MAX_LEASE;
    }
    if (cost == 0) {
      return MAX_LEASE; // asks for no unit, moves no cursor
    }
    if (state.nextFreeNanos > now) {
      return 0;
    }
    long units = state.quota > 0 ? Math.min(cost, state.quota) : cost;
    long floor = Strategies.burstFloor(settings.strategy, state.quota, state.hasReset);
    long least = Math.max(units, floor);
    long available = Time.sub(state.remaining, inFlight.units(state.unit));
    if (least == Long.MAX_VALUE || available < least) {
      return 0;
    }
    // The j-th permit of the lease (from 0) finds available - j * cost: it must still cover
    // its units, and leave the strategy above the level where it starts spacing.
    return (available - least) / cost + 1;
  }

  /** The earliest reset of a policy: the state rolls then, and the monitor must see it. */
  private static long expiry(Partition partition) {
    long at = Long.MAX_VALUE;
    for (PolicyState policy : partition.policies()) {
      if (policy instanceof ServerPolicy state && state.hasReset) {
        at = Math.min(at, state.resetAtNanos);
      }
    }
    return at;
  }
}
