package dev.headway.internal.pacer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One stripe of a {@link FastLane}: a small run of the lane's commit positions (and as many of
 * its units), reserved from the lane with one CAS on the lane's word and then handed out, one
 * CAS each, on a word of the stripe's own, on a cache line of its own. Threads are spread over
 * the stripes by their id, so two to four threads on one partition each take from their own
 * line and meet on the lane's word once per run, not once per permit.
 *
 * <p>The word: the lane generation the run belongs to, a busy bit (set while one taker reserves
 * a new run from the lane: the monitor closing the lane waits for it to clear, so no run is ever
 * reserved that the close does not see; another taker of the stripe meanwhile takes one
 * position from the lane itself, as if it had no stripe), the next position of the run (its commit number less
 * the lease's first), and how many positions are left in it. A stripe holds a run of the open
 * generation or nothing: closing the lane empties every stripe ({@link #close}), and the
 * positions still left in a run go back with the lease's units. Holds no other state; the
 * rules of the lease (what a position costs, when it expires, the slots the permits are
 * published in) are the lane's.
 *
 * <p>Thread-safe: {@link #state} changes only by CAS, except when the holder of the busy bit
 * ends its reservation.
 */
final class LaneStripe extends LanePadding.After {
  /** The most positions one run takes from the lane. */
  static final int RUN = 16;
  /**
   * How many stripes a lane has: a power of two, at least the processors, at least 2 (so that a
   * lane behaves the same on one processor as on several), at most 8.
   */
  static final int COUNT = Math.min(8,
      Integer.highestOneBit(Math.max(2, Runtime.getRuntime().availableProcessors()) * 2 - 1));
  private static final int REM_BITS = 8;
  private static final int POS_BITS = 31;
  private static final long REM_MASK = (1L << REM_BITS) - 1;
  private static final long POS_MASK = (1L << POS_BITS) - 1;
  private static final int POS_SHIFT = REM_BITS;
  private static final long BUSY = 1L << (POS_SHIFT + POS_BITS);
  private static final int GEN_SHIFT = POS_SHIFT + POS_BITS + 1;
  private static final long NEXT = (1L << POS_SHIFT) - 1; // position + 1, left - 1
  private static final VarHandle STATE;

  static {
    try {
      STATE = MethodHandles.lookup().findVarHandle(LanePadding.State.class, "state", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /** Returns the stripes of a new lane. */
  static LaneStripe[] stripes() {
    LaneStripe[] stripes = new LaneStripe[COUNT];
    for (int i = 0; i < COUNT; i++) {
      stripes[i] = new LaneStripe();
    }
    return stripes;
  }

  /** Returns the stripe of the calling thread. */
  @SuppressWarnings("deprecation") // Thread.threadId() is not in Java 17
  static LaneStripe mine(LaneStripe[] stripes) {
    return stripes[(int) Thread.currentThread().getId() & (COUNT - 1)];
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
    for (LaneStripe stripe : stripes) {
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
    for (LaneStripe stripe : stripes) {
      long w = stripe.state;
      if (gen(w) == gen) {
        left += left(w);
      }
    }
    return left;
  }
}
