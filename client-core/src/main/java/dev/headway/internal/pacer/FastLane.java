package dev.headway.internal.pacer;

import dev.headway.Ticker;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Owns one partition's lock-free fast lane: a lease of permits that acquire and release take and
 * give back with one compare-and-set each (an acquire's on its thread's {@link LaneStripe}),
 * without the partition's monitor, while nothing could change what the monitor would decide.
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
 * predicted); a policy paced at its refill rate, to those that fit in the smaller of
 * {@code remaining} and {@code quota}, less what is in flight (refill pacing moves no cursor:
 * units coming back only let more go). The lane stays shut when anything else could make a
 * permit wait, look again or be charged differently: a hold, probing or the ramp after one, a
 * probe of a long block in flight ({@link Verifier}), anyone in the waiting line, a server
 * sub-partition, a declared policy (its balance moves with time), a concurrency cap, a stale,
 * unconfirmed or zero policy, a pacing cursor in the future, policies scoped to routes or to a request attribute (the lane
 * does not know a request's route), an evicted partition. The lease expires at the earliest
 * reset of a policy (the state must roll under the monitor: no 429 at a reset instant) and when
 * the oldest permit in flight, or one the lane could hand out, reaches its {@code permitLease}
 * (so a leaked permit is reclaimed on time, see below).
 *
 * <p><b>How.</b> The leased permits are put in flight at once, in bulk, and the commit sequence
 * numbers they will take are set aside: whatever the monitor could see while the lane is open
 * already counts every permit the lane may hand out, so no unit is ever spent twice. The lane's
 * state is one {@code long}: a generation (odd while open), the laps rolled since it opened, the
 * positions reserved in this lap, the permits left. A taker reserves a run of up to
 * {@link LaneStripe#RUN} positions (at most half the permits left, so that a small lease is
 * shared, unless the lap ends first) with one CAS on it and puts the run on its
 * {@link LaneStripe}; the next permits of the run are one CAS each on the stripe's own cache
 * line. So threads sharing a partition meet on the
 * lane's word once a run, not once a permit. The permit records its send time and commit number
 * ({@code seqBase + position}) and publishes itself in its slot ({@link LaneSlots}, in its
 * stripe's area). A fast release touches nothing another core writes as a rule: one CAS on the
 * permit itself ({@code LANE} to {@code GIVEN}), then a plain add to the count of its lap on the
 * releasing thread's stripe ({@link LaneStripe#countGiven}). Its units stay in flight, part of
 * the lease, until its half of the slots is reused (they then return to the permits left) or the
 * lane closes (they leave flight). So a lease of
 * {@link #MAX_LEASE}, two laps, keeps the lane going for callers who release before the next
 * one acquires; a smaller lease runs out after that many permits and the next acquire takes the
 * monitor, which closes the lane and opens a new lease with the units given back.
 *
 * <p><b>Laps.</b> When a lap's {@link #SLOTS} positions are reserved, the next taker to reserve
 * a run rolls the lane to the next lap with one CAS (taken back to 0, the lap + 1, the units of
 * the permits given back in the reused half added to the permits left), without the monitor,
 * if every permit of the lap before the current one (the half the next lap reuses) was given
 * back: the stripes' counts of that lap add up to a lap. A permit still out there (or answered,
 * or a position of a run still on a stripe) keeps the count short: that acquire takes the
 * monitor, which closes the lane and adopts it. So the slots always hold
 * every permit of the lane still out: those of the last two laps.
 *
 * <p><b>Closing.</b> Every section under the monitor that reads or changes the partition's
 * state (a decision, a response, a snapshot, a peek, eviction) starts with
 * {@link Partition#closeLane}: one CAS to the next even generation, then every stripe is
 * emptied (waiting for a run being reserved, a few instructions). The permits left in the lane
 * and in the stripes' runs, and those given back whose units did not return to the lease yet,
 * go out of flight; the commit numbers of runs left unused are skipped (they are not counted
 * as commits), and each permit taken and still out (in the last two laps, oldest first) is
 * adopted by the monitor: it joins the list of live permits with its send time as its commit
 * time (so an uncompleted one is reclaimed after {@code permitLease}, with a
 * {@code PermitExpired} event), is charged to its route, and from then on is a permit like any
 * other. A permit that ended
 * meanwhile with a response (its state said so first) is not adopted: it leaves flight through
 * the monitor itself. The units in flight, the order of the commit numbers, the count of
 * commits and the live list are then exactly what they would be had every lane permit taken the
 * monitor, so the slow path sees the state it always saw and its guarantees hold unchanged.
 *
 * <p>Thread-safe: {@link #take} from any thread (and {@link PermitImpl#release}); {@link #open},
 * {@link #reopen} and {@link #close} under the partition's monitor.
 */
final class FastLane extends LanePadding.After {
  /**
   * Whether the lane may open: false with {@code -Dheadway.lane=off}. Read once, only to measure
   * the lane against the monitor at the call level (issue 29); it goes with the lane.
   */
  static final boolean ENABLED = !"off".equals(System.getProperty("headway.lane"));
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
  static final int GEN_SHIFT = LAP_SHIFT + LAP_BITS; // package-private: tests set a generation
  private static final long TAKEN_ONE = 1L << TAKEN_SHIFT;
  private static final long LAP_ONE = 1L << LAP_SHIFT;
  /**
   * What {@link #reserve} returns when it reserved nothing. A run's word is never 0: its
   * generation is odd. (Not a negative number: from generation 2^23 on, a run's word has its
   * sign bit set.)
   */
  private static final long NO_RUN = 0;
  private static final VarHandle STATE;

  static {
    try {
      STATE = MethodHandles.lookup().findVarHandle(LanePadding.State.class, "state", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  // The state (LanePadding.State.state, on a cache line of its own): generation (odd: open) |
  // laps rolled since it opened | positions reserved in this lap | permits left.

  // Written under the monitor before the volatile store that opens the lane, read after reading
  // the state: a reader that sees the open generation sees these.
  /**
   * The permits taken in this generation (those of the last two laps); null until the lane
   * first opens. Empty whenever the lane is closed.
   */
  private LaneSlots slots;
  /**
   * The stripes runs of the lease are taken from; null until the lane first opens. Volatile:
   * {@link #take} reads it before anything else of the lane, the lane's state included.
   */
  private volatile LaneStripe @Nullable [] stripes;
  /** What each leased permit costs; -1 before the lane first opened. */
  private long costRequests = -1;
  private long costBytes;
  private long costTokens;
  /** The lease is valid strictly before this. */
  private long expiresAtNanos;
  /** The commit sequence of the first permit of the lease. */
  private long seqBase;
  /** The runs the stripes gave back at the last close (under the monitor). */
  private long @Nullable [] unused;
  /** How many permits the generations closed so far handed out (under the monitor). */
  private long handedOut;

  /**
   * Takes a permit from the lane if it is open, has one left, the permit costs what the lease
   * was priced for, and the lease has not expired: one CAS on the calling thread's stripe (and,
   * once a run, one on the lane's word to reserve the next run, once a lap one more to roll to
   * the next lap; while another thread of the stripe reserves a run, one on the lane's word for
   * this permit alone: no taker waits for another). Commits the permit (in flight, sent now,
   * its commit number) and returns true; false to take the monitor instead.
   */
  boolean take(PermitImpl permit, Partition base, Ticker ticker) {
    LaneStripe[] all = stripes;
    if (all == null || base.child != null || base.evicted) {
      return false;
    }
    long now = ticker.read();
    long bytes = permit.costBytes();
    long tokens = permit.costTokens();
    while (true) {
      int index = LaneStripe.mine(); // another one after a collision (moveOn)
      LaneStripe stripe = LaneStripe.at(all, index);
      long w = stripe.word();
      long pos;
      if (LaneStripe.busy(w)) {
        // Another thread of this stripe reserves the next run: rather than wait for it, take
        // one position from the lane itself (and use another stripe next time).
        LaneStripe.moveOn();
        long one = reserve(permit.costRequests, bytes, tokens, now, 1);
        if (one == NO_RUN) {
          return false;
        }
        pos = LaneStripe.pos(one);
      } else if (LaneStripe.left(w) > 0) {
        // A run of the open (or closing) generation: the lease's fields are that generation's
        // (they change only when the lane opens again, after every stripe was emptied, which
        // fails this CAS).
        if (permit.costRequests != costRequests || bytes != costBytes || tokens != costTokens
            || now >= expiresAtNanos) {
          return false;
        }
        if (!stripe.compareAndSet(w, LaneStripe.next(w))) {
          LaneStripe.moveOn(); // another thread took from this stripe at the same moment
          continue;
        }
        pos = LaneStripe.pos(w);
      } else {
        if (!open(state)) {
          return false; // shut: nothing to reserve
        }
        if (!stripe.claim(w)) {
          LaneStripe.moveOn();
          continue;
        }
        long run = reserve(permit.costRequests, bytes, tokens, now, LaneStripe.RUN);
        if (run == NO_RUN) {
          stripe.settle(w);
          return false;
        }
        stripe.settle(LaneStripe.next(run)); // the run, its first position taken here
        pos = LaneStripe.pos(run);
      }
      permit.seq = seqBase + pos;
      permit.lanePos = (int) pos;
      permit.committedNanos = now;
      permit.sendAt(now);
      permit.takenFromLane();
      slots.publish(index, pos, permit);
      base.touchRoughly(now);
      return true;
    }
  }

  /**
   * Counts a permit given back (its state just went from taken from the lane to given back), on
   * the releasing thread's stripe, so that the roll that reuses its slot need not read the
   * permit itself. If the lane closed meanwhile the count is harmless: its commit number is
   * never taken again.
   */
  void markGiven(PermitImpl permit) {
    long pos = permit.lanePos;
    LaneStripe.at(stripes, LaneStripe.mine())
        .countGiven(permit.seq - pos % SLOTS, (pos / SLOTS & 1) == 1);
  }

  /**
   * Reserves the next run of positions for a stripe (its busy bit held), or one position for a
   * taker whose stripe is busy: up to {@code most}, within this lap, and at most half the permits
   * left (so the other stripes find some), rolling to the next lap first if this one's positions
   * are all reserved. Returns the run's stripe word, or {@link #NO_RUN} if the lane is shut,
   * expired, priced for another cost, out of permits, or cannot roll.
   */
  private long reserve(long requests, long bytes, long tokens, long now, long most) {
    while (true) {
      long v = state;
      if (!open(v)) {
        return NO_RUN;
      }
      // Read after the open state: this generation's lease (the CAS below checks it still is).
      if (requests != costRequests || bytes != costBytes || tokens != costTokens
          || now >= expiresAtNanos) {
        return NO_RUN;
      }
      long taken = taken(v);
      long left = v & LEFT_MASK;
      if (taken == SLOTS) {
        long given = reclaimable(v);
        if (given < 0) {
          return NO_RUN;
        }
        // The next lap: its half of the slots is free (every permit there ended), and the
        // units of the permits given back there return to the lease.
        STATE.compareAndSet(this, v, (v & ~(TAKEN_MASK << TAKEN_SHIFT)) + LAP_ONE + given);
      } else if (left == 0) {
        return NO_RUN;
      } else {
        // At most half the permits left, so that a small lease is shared among the stripes;
        // unless the lap ends first (the roll then returns the units given back): a halving
        // run there would only make more takers meet on this word.
        long toLapEnd = SLOTS - taken;
        long run = Math.min(most, left >= toLapEnd ? toLapEnd : Math.max(1, left / 2));
        if (STATE.compareAndSet(this, v, v - run + run * TAKEN_ONE)) {
          return LaneStripe.run(v >>> GEN_SHIFT, lap(v) * SLOTS + taken, run);
        }
      }
    }
  }

  /**
   * Whether the open lane in state {@code v}, its lap's slots used up, may roll to the next lap
   * without the monitor, and if so how many units of the lease the permits given back in the
   * half the next lap reuses return: -1 if it may not. The half the next lap reuses holds the
   * permits of the lap before this one; it may be reused only if every one of them has ended (a
   * permit still out there must be adopted by the monitor when the lane closes, so its slot
   * cannot be reused). The first lap's next half is empty.
   */
  private long reclaimable(long v) {
    long lap = lap(v);
    if (lap == 0) {
      return 0;
    }
    if (lap == LAP_MASK) {
      return -1;
    }
    // Each permit of that lap given back through the lane was counted once, on the stripe of
    // the thread that gave it back (or lost to a race, never counted twice); the lap may be
    // reused only if all were (one answered meanwhile, or a count lost, keeps it: the monitor
    // sorts it out).
    long lapSeq = seqBase + (lap - 1) * SLOTS;
    boolean odd = ((lap - 1) & 1) == 1;
    long given = 0;
    LaneStripe[] all = stripes;
    for (int i = 0; i < all.length; i++) {
      LaneStripe stripe = LaneStripe.ifMade(all, i);
      if (stripe != null) {
        given += stripe.givenIn(lapSeq, odd);
      }
    }
    return given == SLOTS ? given : -1;
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
    if (!ENABLED) {
      return;
    }
    long lease = LaneLease.lease(partition, requests, bytes, tokens, settings, now);
    if (lease <= 0) {
      return;
    }
    if (slots == null) {
      slots = new LaneSlots(LaneStripe.COUNT);
      stripes = LaneStripe.stripes();
      unused = new long[LaneStripe.COUNT];
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
   * Closes the lane ({@code partition}'s monitor held): the stripes are emptied, the permits left
   * (in the lane and in the stripes' runs) go out of flight, and the permits taken and still out
   * are adopted by the monitor, oldest first. Returns how far the commit numbers moved: past the
   * last position taken (positions of runs left unused before it are skipped numbers, see
   * {@link #handedOut}); 0 if the lane was not open.
   */
  long close(Partition partition) {
    long v;
    do {
      v = state;
      if (!open(v)) {
        return 0;
      }
    } while (!STATE.compareAndSet(this, v, ((v >>> GEN_SHIFT) + 1) << GEN_SHIFT));
    // No run can be reserved any more (the lane is shut); the stripes give back theirs, and no
    // permit is taken from them after this.
    long[] runs = unused;
    int n = LaneStripe.closeAll(stripes, v >>> GEN_SHIFT, runs);
    long skipped = 0;
    for (int i = 0; i < n; i++) {
      skipped += LaneStripe.left(runs[i]);
    }
    long lap = lap(v);
    long end = lap * SLOTS + taken(v);
    handedOut += end - skipped;
    LaneSlots s = slots;
    long given = 0;
    // Every lap before the last but one ended (a lap rolls only then).
    long from = lap > 0 ? (lap - 1) * SLOTS : 0;
    for (long pos = from; pos < end; pos++) {
      long skip = LaneStripe.unusedFrom(runs, n, pos);
      if (skip > 0) {
        pos += skip - 1;
      } else {
        given += s.adopt(partition, pos, seqBase + pos);
      }
    }
    if (lap > 0) {
      // The rest of this lap's half holds permits of the lap before the last, all ended.
      s.clear();
    }
    // The permits left, those of the unused runs and those given back since their half was last
    // reused leave flight.
    partition.inFlight.addLease(costRequests, costBytes, costTokens,
        -((v & LEFT_MASK) + skipped + given));
    // The commit numbers go on right after the last position taken.
    return LaneStripe.lastTaken(runs, n, end);
  }

  /**
   * Returns how many permits the lane handed out in the generations closed so far (the
   * partition's monitor held).
   */
  long handedOut() {
    return handedOut;
  }

  /** Returns how many stripes the lane has made so far (for its tests, the takers joined). */
  int stripesMade() {
    LaneStripe[] all = stripes;
    return all == null ? 0 : (int) Arrays.stream(all).filter(Objects::nonNull).count();
  }

  /** Returns how many areas of slots the lane has made so far (for its tests). */
  int areasMade() {
    return slots == null ? 0 : slots.made();
  }

  /** Whether the lane is open. */
  boolean isOpen() {
    return open(state);
  }

  /** Returns how many permits the open lane has left, in the lane and its stripes; 0 if closed. */
  long left() {
    long v = state;
    if (!open(v)) {
      return 0;
    }
    LaneStripe[] all = stripes;
    return (v & LEFT_MASK) + (all == null ? 0 : LaneStripe.left(all, v >>> GEN_SHIFT));
  }

  /** Returns how many permits the open lane has left that no stripe reserved; 0 if closed. */
  long unreserved() {
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
