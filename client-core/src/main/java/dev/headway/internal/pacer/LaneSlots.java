package dev.headway.internal.pacer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;

/**
 * Where a {@link FastLane} publishes the permits it hands out, so that the monitor can adopt
 * those still out when it closes the lane: the slots of the last two laps (the even laps use one
 * half, the odd laps the other). Within a half, each run of positions a {@link LaneStripe}
 * reserved has a row of its own, rows {@link #ROW_STRIDE} slots apart, so that two runs (taken
 * by different threads, on different cores) are published on different cache lines. Owns the
 * array and the rules of reading it: a slot holds the permit of a position once its number
 * says so.
 *
 * <p>Thread-safe: {@link #publish} and {@link #givenBack} from any thread; {@link #adopt} and
 * {@link #clear} under the partition's monitor, the lane closed.
 */
final class LaneSlots {
  /** The rows of runs in one half of the slots. */
  private static final int ROWS = FastLane.SLOTS / LaneStripe.RUN;
  /**
   * How far apart two rows of the slots are: twice a run, so that a run's slots (64 bytes with
   * compressed references) never share a cache line with another run's.
   */
  private static final int ROW_STRIDE = 2 * LaneStripe.RUN;
  private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(PermitImpl[].class);

  private final PermitImpl[] slots = new PermitImpl[2 * ROWS * ROW_STRIDE];

  /** Where the permit at position {@code pos} of the lease goes. */
  private static int slot(long pos) {
    long lap = pos / FastLane.SLOTS;
    int i = (int) (pos % FastLane.SLOTS);
    return (int) (((lap & 1) * ROWS + i / LaneStripe.RUN) * ROW_STRIDE) + i % LaneStripe.RUN;
  }

  /** Publishes the permit taken at position {@code pos} (a release store). */
  void publish(long pos, PermitImpl permit) {
    SLOT.setRelease(slots, slot(pos), permit);
  }

  /**
   * Whether every permit of the lap that starts at position {@code start}, numbered from
   * {@code first}, has ended, and if so how many of them were given back (their units are still
   * in the lease); -1 if one is still out or not yet published (a position of a run still on a
   * stripe is never published).
   */
  long givenBack(long start, long first) {
    long given = 0;
    for (int i = 0; i < FastLane.SLOTS; i++) {
      PermitImpl permit = (PermitImpl) SLOT.getAcquire(slots, slot(start + i));
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
   * Adopts the permit at position {@code pos} (commit number {@code seq}) into
   * {@code partition} if it is still out, and empties its slot. Returns 1 if it was given back
   * (its units are still in flight), else 0.
   */
  long adopt(Partition partition, long pos, long seq) {
    int slot = slot(pos);
    PermitImpl permit;
    int spins = 0;
    // Its CAS succeeded: the taker publishes it a few instructions later (until then the slot
    // is empty or holds a permit of an older lap, with another number).
    while ((permit = (PermitImpl) SLOT.getAcquire(slots, slot)) == null || permit.seq != seq) {
      if (++spins < 100) {
        Thread.onSpinWait();
      } else {
        Thread.yield();
      }
    }
    slots[slot] = null;
    // Most have ended (given back or answered): a plain look spares a failed CAS each.
    if (permit.state == PermitImpl.LANE && permit.adoptFromLane()) {
      partition.adopt(permit);
    } else if (permit.state == PermitImpl.GIVEN) {
      return 1; // given back (ended states are final): its units leave flight with the lease
    }
    return 0;
  }

  /** Empties every slot (the slots not adopted hold permits of older laps, all ended). */
  void clear() {
    Arrays.fill(slots, null);
  }
}
