package dev.headway.internal.pacer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import org.jspecify.annotations.Nullable;

/**
 * One stripe of a {@link FastLane}: a small run of the lane's commit positions (and as many of
 * its units), reserved from the lane with one CAS on the lane's word and then handed out, one
 * CAS each, on a word of the stripe's own, on a cache line of its own. Threads are spread over
 * the stripes by their id and a probe that moves a thread on after a collision, so two to four
 * threads on one partition each take from their own line and meet on the lane's word once per
 * run, not once per permit.
 *
 * <p>The word: the lane generation the run belongs to, a busy bit (set while one taker reserves
 * a new run from the lane: the monitor closing the lane waits for it to clear, so no run is ever
 * reserved that the close does not see; another taker of the stripe meanwhile takes one
 * position from the lane itself, as if it had no stripe), the next position of the run (its
 * commit number less the lease's first), and how many positions are left in it. A stripe holds
 * a run of the open generation or nothing: closing the lane empties every stripe
 * ({@link #close}), and the positions still left in a run go back with the lease's units. On the
 * same line, the counts of the permits its threads gave back, by lap ({@link #countGiven}).
 * Holds no other state; the rules of the lease (what a position costs, when it expires, the
 * slots the permits are published in) are the lane's.
 *
 * <p>Thread-safe: {@link #state} changes only by CAS, except when the holder of the busy bit
 * ends its reservation; the counts by a read and a release store (a count lost to a race only
 * makes a lap look unfinished).
 */
final class LaneStripe extends LanePadding.After {
  /** The most positions one run takes from the lane. */
  static final int RUN = 16;
  /**
   * How many stripes a lane has: a power of two, at least twice the processors (threads usually
   * outnumber cores, and a stripe costs one cache line), at least 4, at most 8.
   */
  static final int COUNT = Math.min(8,
      Integer.highestOneBit(Math.max(4, 2 * Runtime.getRuntime().availableProcessors()) * 2 - 1));
  /** How many threads (by the low bits of their id) have a probe of their own. */
  private static final int PROBES = 256;
  /**
   * Each thread's probe, by the low bits of its id: added to the id, it picks the thread's
   * stripe. A thread that finds its stripe taken by another at the same moment moves on to the
   * next stripe (its probe + 1), as Striped64's cells do, so threads that start on one stripe
   * spread over the others and settle there. Read on every take, written only on such a
   * collision; plain accesses (a lost or stale update only picks another stripe).
   */
  private static final byte[] PROBE = new byte[PROBES];
  private static final int REM_BITS = 8;
  private static final int POS_BITS = 31;
  private static final long REM_MASK = (1L << REM_BITS) - 1;
  private static final long POS_MASK = (1L << POS_BITS) - 1;
  private static final int POS_SHIFT = REM_BITS;
  private static final long BUSY = 1L << (POS_SHIFT + POS_BITS);
  private static final int GEN_SHIFT = POS_SHIFT + POS_BITS + 1;
  private static final long NEXT = (1L << POS_SHIFT) - 1; // position + 1, left - 1
  /** The bits of a given-back count (at most a lap's positions). */
  private static final int COUNTED_BITS = 8;
  private static final long COUNTED_MASK = (1L << COUNTED_BITS) - 1;
  private static final VarHandle ELEMENT =
      MethodHandles.arrayElementVarHandle(LaneStripe[].class);
  private static final VarHandle STATE;
  private static final VarHandle GIVEN_EVEN;
  private static final VarHandle GIVEN_ODD;

  static {
    try {
      MethodHandles.Lookup lookup = MethodHandles.lookup();
      STATE = lookup.findVarHandle(LanePadding.State.class, "state", long.class);
      GIVEN_EVEN = lookup.findVarHandle(LanePadding.State.class, "givenEven", long.class);
      GIVEN_ODD = lookup.findVarHandle(LanePadding.State.class, "givenOdd", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  // The counts (LanePadding.State.givenEven and givenOdd), for the even laps and the odd ones:
  // the commit number of the first position of the lap last counted (it names the lap: numbers
  // are never taken twice), and how many permits of that lap threads of this stripe gave back
  // through the lane. On the stripe's own line, beside its word: written by the threads of the
  // stripe when they release (most often they took the permit too, and write the word), read
  // once a lap by the taker that rolls the lane, which adds up every stripe's count.

  /**
   * Counts a permit of the lap whose first commit number is {@code lapSeq} (its half
   * {@code odd} or even), given back through the lane by a thread of this stripe. A count of an
   * older lap is replaced; a permit of a lap older than the one counted (its lane closed since,
   * and counted it then) changes nothing.
   *
   * <p>A read and a release store, not a CAS: the releasing thread counts on its own stripe, so
   * two threads write one count at the same instant only when they share a stripe and release
   * together, and then one of the two counts is lost. A lost count can only make a lap look
   * unfinished (every value written is at most the true count of its lap: it adds one to a count
   * read before), so the roll that needs it fails and the monitor, closing the lane, sorts it
   * out; a count is never too high.
   */
  void countGiven(long lapSeq, boolean odd) {
    VarHandle given = odd ? GIVEN_ODD : GIVEN_EVEN;
    long w = (long) given.getAcquire(this);
    long lap = w >>> COUNTED_BITS;
    if (lap <= lapSeq) {
      given.setRelease(this, lap == lapSeq ? w + 1 : (lapSeq << COUNTED_BITS) | 1);
    }
  }

  /**
   * Returns how many permits of the lap whose first commit number is {@code lapSeq} (its half
   * {@code odd} or even) threads of this stripe counted as given back through the lane.
   */
  long givenIn(long lapSeq, boolean odd) {
    long w = (long) (odd ? GIVEN_ODD : GIVEN_EVEN).getVolatile(this);
    return w >>> COUNTED_BITS == lapSeq ? w & COUNTED_MASK : 0;
  }

  /**
   * Returns the stripes of a new lane, all absent: a stripe is made when a thread first takes
   * from it ({@link #at}), so a partition used by one thread holds one stripe, not
   * {@link #COUNT}.
   */
  static LaneStripe[] stripes() {
    return new LaneStripe[COUNT];
  }

  /** Returns the stripe at {@code index} of {@code stripes}, made now if absent. */
  static LaneStripe at(LaneStripe[] stripes, int index) {
    LaneStripe stripe = (LaneStripe) ELEMENT.getAcquire(stripes, index);
    return stripe != null ? stripe : make(stripes, index);
  }

  /** Makes the stripe at {@code index} (once a lane's life: kept out of the hot path). */
  private static LaneStripe make(LaneStripe[] stripes, int index) {
    LaneStripe fresh = new LaneStripe();
    LaneStripe seen = (LaneStripe) ELEMENT.compareAndExchange(stripes, index, null, fresh);
    return seen != null ? seen : fresh;
  }

  /** Returns the stripe at {@code index} of {@code stripes}, or null if none was made. */
  static @Nullable LaneStripe ifMade(LaneStripe[] stripes, int index) {
    return (LaneStripe) ELEMENT.getAcquire(stripes, index);
  }

  /** Returns the index of the calling thread's stripe. */
  static int mine() {
    return index(currentId());
  }

  /** Returns the index of the stripe of the thread with id {@code threadId}. */
  static int index(long threadId) {
    int id = (int) threadId;
    return (id + PROBE[id & (PROBES - 1)]) & (COUNT - 1);
  }

  /**
   * The calling thread met another on its stripe (a failed CAS, or a reservation in progress):
   * it moves on to the next stripe.
   */
  static void moveOn() {
    int i = (int) currentId() & (PROBES - 1);
    PROBE[i] = (byte) (PROBE[i] + 1);
  }

  @SuppressWarnings("deprecation") // Thread.threadId() is not in Java 17
  private static long currentId() {
    return Thread.currentThread().getId();
  }

  /** The word of a run of {@code count} positions from {@code pos}, of lane generation gen. */
  static long run(long gen, long pos, long count) {
    return (gen << GEN_SHIFT) | (pos << POS_SHIFT) | count;
  }

  /** The word after taking the next position of the run in {@code w}. */
  static long next(long w) {
    return w + NEXT;
  }

  static long left(long w) {
    return w & REM_MASK;
  }

  static long pos(long w) {
    return (w >>> POS_SHIFT) & POS_MASK;
  }

  static long gen(long w) {
    return w >>> GEN_SHIFT;
  }

  static boolean busy(long w) {
    return (w & BUSY) != 0;
  }

  long word() {
    return state;
  }

  boolean compareAndSet(long expected, long w) {
    return STATE.compareAndSet(this, expected, w);
  }

  /** Sets the busy bit on the empty run {@code w}: this caller reserves the next run. */
  boolean claim(long w) {
    return STATE.compareAndSet(this, w, w | BUSY);
  }

  /**
   * Ends a reservation: the busy bit's holder publishes its run (or an empty word). A release
   * store: whoever waits for the bit to clear reads the word with a volatile read, and nothing
   * after it on this thread needs a fence.
   */
  void settle(long w) {
    STATE.setRelease(this, w & ~BUSY);
  }

  /**
   * Empties the stripe (the lane's monitor held, the lane closed): waits for a reservation in
   * progress to end, then takes the run away. Returns the run it held (0 positions if none).
   */
  long close() {
    int spins = 0;
    while (true) {
      long w = state;
      if (busy(w)) {
        // A taker reserves a run: a few instructions, unless it was descheduled.
        if (++spins < 100) {
          Thread.onSpinWait();
        } else {
          Thread.yield();
        }
      } else if (STATE.compareAndSet(this, w, 0L)) {
        return w;
      }
    }
  }

  /**
   * Empties every stripe of a lane (its monitor held, the lane closed from generation
   * {@code gen}) and puts the runs they held with positions left in {@code runs}; returns how
   * many.
   */
  static int closeAll(LaneStripe[] stripes, long gen, long[] runs) {
    int n = 0;
    for (int i = 0; i < stripes.length; i++) {
      // A stripe made after this read cannot hold a run: the lane was shut before it.
      LaneStripe stripe = ifMade(stripes, i);
      if (stripe == null) {
        continue;
      }
      long w = stripe.close();
      if (left(w) > 0 && gen(w) == gen) {
        runs[n++] = w;
      }
    }
    return n;
  }

  /** How many positions from {@code pos} belong to one of the first {@code n} unused runs. */
  static long unusedFrom(long[] runs, int n, long pos) {
    for (int i = 0; i < n; i++) {
      if (pos(runs[i]) == pos) {
        return left(runs[i]);
      }
    }
    return 0;
  }

  /**
   * Returns the position right after the last one taken of the {@code end} reserved, the first
   * {@code n} unused runs left out at the end.
   */
  static long lastTaken(long[] runs, int n, long end) {
    for (boolean trimmed = true; trimmed; ) {
      trimmed = false;
      for (int i = 0; i < n; i++) {
        if (pos(runs[i]) + left(runs[i]) == end) {
          end = pos(runs[i]);
          trimmed = true;
        }
      }
    }
    return end;
  }

  /** Returns the positions left on {@code stripes} in runs of generation {@code gen}. */
  static long left(LaneStripe[] stripes, long gen) {
    long left = 0;
    for (int i = 0; i < stripes.length; i++) {
      LaneStripe stripe = ifMade(stripes, i);
      if (stripe == null) {
        continue;
      }
      long w = stripe.state;
      if (gen(w) == gen) {
        left += left(w);
      }
    }
    return left;
  }
}
