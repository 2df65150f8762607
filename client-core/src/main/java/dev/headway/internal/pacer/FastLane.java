package dev.headway.internal.pacer;

import dev.headway.Ticker;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;

/**
 * Owns one partition's lock-free fast lane: a lease of permits that acquire and release take and
 * give back with one compare-and-set each, without the partition's monitor, while nothing could
 * change what the monitor would decide.
 *
 * <p><b>Why.</b> Most requests meet a partition with plenty of quota left, nobody waiting, no
 * hold and nothing to probe. For them the full decision ({@link Admission}, every policy asked
 * under the monitor) always says "go now", and all it changes is the units in flight, the commit
 * order and the list of live permits. Taking the monitor for that makes two threads on one
 * partition park where a peer limiter's CAS retries. The lane hands out exactly those "go now"
 * decisions, priced in advance, and leaves everything else to the monitor.
 *
 * <p><b>When it is open.</b> When a decision under the monitor lets a permit go now (and after a
 * response or a snapshot, which end with the lane's state exact), {@link #open} asks whether the
 * next permits of the same cost would go now too, and how many: the lease. Each server policy
 * with a known count limits it to the permits that fit in {@code remaining - inFlight} while the
 * pacing strategy still leaves no gap after them (burst-then-spread: above its low water;
 * spread: only without a reset time; a strategy of the user's: never, its spacing cannot be
 * predicted). The lane stays shut when anything else could make a permit wait, look again or be
 * charged differently: a hold, probing or the ramp after one, a probe of a long block in flight
 * ({@link Verifier}), anyone in the waiting line, a server sub-partition, a declared policy (its
 * balance moves with time), a concurrency cap, a stale, unconfirmed, zero or refill-paced policy,
 * a pacing cursor in the future, policies scoped to routes or to a request attribute (the lane
 * does not know a request's route), an evicted partition. The lease expires at the earliest
 * reset of a policy (the state must roll under the monitor: no 429 at a reset instant) and when
 * the oldest permit in flight, or one the lane could hand out, reaches its {@code permitLease}
 * (so a leaked permit is reclaimed on time, see below).
 *
 * <p><b>How.</b> The leased permits are put in flight at once, in bulk, and the commit sequence
 * numbers they will take are set aside: whatever the monitor could see while the lane is open
 * already counts every permit the lane may hand out, so no unit is ever spent twice. The lane's
 * state is one {@code long}: a generation (odd while open), the laps rolled since it opened, the
 * permits taken in this lap, the permits left. A fast acquire is one CAS (left - 1, taken + 1);
 * the permit then records its send time and commit number ({@code seqBase + lap * SLOTS +
 * taken}) and publishes itself in its slot: the even laps use one half of the slots, the odd
 * laps the other; within a half, permits taken one after the other land on different cache
 * lines (four interleaved rows), so threads taking turns do not write each other's lines. A
 * fast release touches nothing shared: one CAS on the permit itself ({@code LANE} to
 * {@code GIVEN}). Its units stay in flight, part of the lease, until its half of the slots is
 * reused (they then return to the permits left) or the lane closes (they leave flight). So a
 * lease of {@link #MAX_LEASE}, two laps, keeps the lane going for callers who release before
 * the next one acquires; a smaller lease (few units left on the server) runs out after that
 * many permits and the next acquire takes the monitor, which closes the lane and opens a new
 * lease with the units given back.
 *
 * <p><b>Laps.</b> When a lap's {@link #SLOTS} are used, the next taker rolls the lane to the
 * next lap with one CAS (taken back to 0, the lap + 1, the units of the permits given back in
 * the reused half added to the permits left), without the monitor, if every permit of the lap
 * before the current one (the half the next lap reuses) has ended. A permit still out
 * there keeps its slot: that acquire takes the monitor, which closes the lane and adopts it. So
 * the slots always hold every permit of the lane still out: those of the last two laps.
 *
 * <p><b>Closing.</b> Every section under the monitor that reads or changes the partition's
 * state (a decision, a response, a snapshot, a peek, eviction) starts with
 * {@link Partition#closeLane}: one CAS to the next even generation. The permits left, and those
 * given back whose units did not return to the lease yet, go out of flight; each permit taken
 * and still out (in the last two laps, oldest first) is adopted by the
 * monitor: it joins the list of live permits with its send time as its commit time (so an
 * uncompleted one is reclaimed after {@code permitLease}, with a {@code PermitExpired} event), is
 * charged to its route, and from then on is a permit like any other. A permit that ended
 * meanwhile with a response (its state said so first) is not adopted: it leaves flight through
 * the monitor itself. The units in flight, the commit sequence
 * and the live list are then exactly what they would be had every lane permit taken the
 * monitor, so the slow path sees the state it always saw and its guarantees hold unchanged.
 *
 * <p>Thread-safe: {@link #take} from any thread (and {@link PermitImpl#release}); {@link #open},
 * {@link #reopen} and {@link #close} under the partition's monitor.
 */
final class FastLane extends LanePadding.After {
  /** The most permits one lap of the lane hands out before it rolls to the next (its slots). */
  static final int SLOTS = 64;
  /**
   * The most permits one lease holds: two laps. Units given back return to the lease only when
   * their half of the slots is reused, two laps later, so a lease of two laps lets one caller
   * at a time go through the lane for ever.
   */
  static final int MAX_LEASE = 2 * SLOTS;
  private static final int LEFT_BITS = 8; // left <= the lease <= MAX_LEASE
  private static final int TAKEN_BITS = 8; // taken <= SLOTS
  private static final int LAP_BITS = 24;
  private static final long LEFT_MASK = (1L << LEFT_BITS) - 1;
  private static final long TAKEN_MASK = (1L << TAKEN_BITS) - 1;
  private static final long LAP_MASK = (1L << LAP_BITS) - 1;
  private static final int TAKEN_SHIFT = LEFT_BITS;
  private static final int LAP_SHIFT = LEFT_BITS + TAKEN_BITS;
  private static final int GEN_SHIFT = LAP_SHIFT + LAP_BITS;
  private static final long TAKEN_ONE = 1L << TAKEN_SHIFT;
  private static final long LAP_ONE = 1L << LAP_SHIFT;
  private static final VarHandle STATE;
  private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(PermitImpl[].class);

  static {
    try {
      STATE = MethodHandles.lookup().findVarHandle(LanePadding.State.class, "state", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  // The state (LanePadding.State.state, on a cache line of its own): generation (odd: open) |
  // laps rolled since it opened | permits taken in this lap | permits left.

  // Written under the monitor before the volatile store that opens the lane, read after reading
  // the state: a reader that sees the open generation sees these.
  /**
   * The permits taken in this generation: two halves of {@link #SLOTS}, the even laps' and the
   * odd laps'; null until the lane first opens. Empty whenever the lane is closed.
   */
  private PermitImpl[] slots;
  /** What each leased permit costs; -1 before the lane first opened. */
  private long costRequests = -1;
  private long costBytes;
  private long costTokens;
  /** The lease is valid strictly before this. */
  private long expiresAtNanos;
  /** The commit sequence of the first permit of the lease. */
  private long seqBase;
  /** How many permits the generations closed so far handed out (under the monitor). */
  private long handedOut;

  /**
   * Takes a permit from the lane if it is open, has one left, the permit costs what the lease
   * was priced for, and the lease has not expired: one CAS (and, once a lap, one more to roll to
   * the next). Commits the permit (in flight, sent now, its commit number) and returns true;
   * false to take the monitor instead.
   */
  boolean take(PermitImpl permit, Partition base, Ticker ticker) {
    long v = state;
    if (!open(v) || base.child != null || base.evicted) {
      return false;
    }
    long now = ticker.read();
    long bytes = permit.costBytes();
    long tokens = permit.costTokens();
    while (true) {
      PermitImpl[] s = slots;
      if (permit.costRequests != costRequests || bytes != costBytes || tokens != costTokens
          || now >= expiresAtNanos) {
        return false;
      }
      long taken = taken(v);
      if (taken == SLOTS) {
        long given = reclaimable(v, s);
        if (given < 0) {
          return false;
        }
        // The next lap: its half of the slots is free (every permit there ended), and the
        // units of the permits given back there return to the lease.
        STATE.compareAndSet(this, v, (v & ~(TAKEN_MASK << TAKEN_SHIFT)) + LAP_ONE + given);
      } else if ((v & LEFT_MASK) == 0) {
        return false;
      } else if (STATE.compareAndSet(this, v, v - 1 + TAKEN_ONE)) {
        long lap = lap(v);
        permit.seq = seqBase + lap * SLOTS + taken;
        permit.committedNanos = now;
        permit.sendAt(now);
        permit.takenFromLane();
        SLOT.setRelease(s, slot(lap, taken), permit);
        base.touchRoughly(now);
        return true;
      }
      v = state;
      if (!open(v)) {
        return false;
      }
    }
  }

  /**
   * Where the {@code taken}-th permit of lap {@code lap} goes in the slots: the lap's half, and
   * in it four interleaved rows, so permits taken one after the other (by different threads, on
   * different cores) are published on different cache lines.
   */
  private static int slot(long lap, long taken) {
    return (int) ((lap & 1) * SLOTS + ((taken & 3) << 4) + (taken >>> 2));
  }

  /**
   * Whether the open lane in state {@code v}, its lap's slots used up, may roll to the next lap
   * without the monitor, and if so how many units of the lease the permits given back in the
   * half the next lap reuses return: -1 if it may not. The half the next lap reuses holds the
   * permits of the lap before this one; it may be reused only if every one of them has ended (a
   * permit still out there must be adopted by the monitor when the lane closes, so its slot
   * cannot be reused). The first lap's next half is empty.
   */
  private long reclaimable(long v, PermitImpl[] s) {
    long lap = lap(v);
    if (lap == 0) {
      return 0;
    }
    if (lap == LAP_MASK) {
      return -1;
    }
    long first = seqBase + (lap - 1) * SLOTS;
    long given = 0;
    for (int i = 0; i < SLOTS; i++) {
      PermitImpl permit = (PermitImpl) SLOT.getAcquire(s, slot(lap - 1, i));
      // Null or another number: its taker has not published it yet.
      if (permit == null || permit.seq != first + i) {
        return -1;
      }
      int ended = permit.state;
      if (ended == PermitImpl.GIVEN) {
        given++;
      } else if (ended != PermitImpl.DONE) {
        return -1;
      }
    }
    return given;
  }

  /**
   * Opens the lane on {@code partition} (its monitor held, the lane closed) right after
   * {@code shape} was committed to go now, if the next permits of that cost would go now too.
   */
  void open(Partition partition, PermitImpl shape, Settings settings, long now) {
    open(partition, shape.costRequests, shape.costBytes(), shape.costTokens(), settings, now);
  }

  /**
   * Opens the lane again, priced as when it last opened, at the end of a section that left the
   * state exact (a response applied, a snapshot): the next permit need not take the monitor to
   * open it. {@code now} may be a little behind the ticker; every condition it enters only gets
   * easier later.
   */
  void reopen(Partition partition, Settings settings, long now) {
    if (costRequests >= 0 && !open(state)) {
      open(partition, costRequests, costBytes, costTokens, settings, now);
    }
  }

  private void open(Partition partition, long requests, long bytes, long tokens,
      Settings settings, long now) {
    long lease = LaneLease.lease(partition, requests, bytes, tokens, settings, now);
    if (lease <= 0) {
      return;
    }
    if (slots == null) {
      slots = new PermitImpl[2 * SLOTS];
    }
    costRequests = requests;
    costBytes = bytes;
    costTokens = tokens;
    expiresAtNanos = LaneLease.expiry(partition, settings, now);
    seqBase = partition.peekSeq();
    partition.inFlight.addLease(requests, bytes, tokens, lease);
    long gen = ((state >>> GEN_SHIFT) + 1) | 1;
    STATE.setVolatile(this, (gen << GEN_SHIFT) | lease);
  }

  /**
   * Closes the lane ({@code partition}'s monitor held): the permits left go out of flight, and
   * the permits taken and still out are adopted by the monitor, oldest first. Returns how many
   * were taken (their commit numbers are used); 0 if the lane was not open.
   */
  long close(Partition partition) {
    long v;
    do {
      v = state;
      if (!open(v)) {
        return 0;
      }
    } while (!STATE.compareAndSet(this, v, ((v >>> GEN_SHIFT) + 1) << GEN_SHIFT));
    long lap = lap(v);
    int taken = (int) taken(v);
    long total = lap * SLOTS + taken;
    handedOut += total;
    PermitImpl[] s = slots;
    long given = 0;
    if (lap > 0) {
      // Every lap before the last but one ended (a lap rolls only then).
      given += adopt(partition, s, lap - 1, seqBase + (lap - 1) * SLOTS, SLOTS);
    }
    given += adopt(partition, s, lap, seqBase + lap * SLOTS, taken);
    if (lap > 0) {
      // The rest of this lap's half holds permits of the lap before the last, all ended.
      Arrays.fill(s, null);
    }
    // The permits left and those given back since their half was last reused leave flight.
    partition.inFlight.addLease(costRequests, costBytes, costTokens, -((v & LEFT_MASK) + given));
    return total;
  }

  /**
   * Adopts the permits still out among the first {@code count} of lap {@code lap}, numbered
   * from {@code first}, and empties their slots. Returns how many of them were given back (their
   * units are still in flight).
   */
  private static long adopt(Partition partition, PermitImpl[] s, long lap, long first,
      int count) {
    long given = 0;
    for (int i = 0; i < count; i++) {
      int slot = slot(lap, i);
      PermitImpl permit;
      int spins = 0;
      // Its CAS succeeded: the taker publishes it a few instructions later (until then the slot
      // is empty or holds a permit of an older lap, with another number).
      while ((permit = (PermitImpl) SLOT.getAcquire(s, slot)) == null
          || permit.seq != first + i) {
        if (++spins < 100) {
          Thread.onSpinWait();
        } else {
          Thread.yield();
        }
      }
      s[slot] = null;
      // Most have ended (given back or answered): a plain look spares a failed CAS each.
      if (permit.state == PermitImpl.LANE && permit.adoptFromLane()) {
        partition.adopt(permit);
      } else if (permit.state == PermitImpl.GIVEN) {
        given++; // given back (ended states are final): its units leave flight with the lease
      }
    }
    return given;
  }

  /**
   * Returns how many permits the lane handed out in the generations closed so far (the
   * partition's monitor held).
   */
  long handedOut() {
    return handedOut;
  }

  /** Whether the lane is open. */
  boolean isOpen() {
    return open(state);
  }

  /** Returns how many permits the open lane has left; 0 if closed. */
  long left() {
    long v = state;
    return open(v) ? v & LEFT_MASK : 0;
  }

  private static boolean open(long v) {
    return ((v >>> GEN_SHIFT) & 1) == 1;
  }

  private static long taken(long v) {
    return (v >>> TAKEN_SHIFT) & TAKEN_MASK;
  }

  private static long lap(long v) {
    return (v >>> LAP_SHIFT) & LAP_MASK;
  }
}
