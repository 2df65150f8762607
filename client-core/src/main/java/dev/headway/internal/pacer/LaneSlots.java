package dev.headway.internal.pacer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Where a {@link FastLane} publishes the permits it hands out, so that the monitor can adopt
 * those still out when it closes the lane: the slots of the last two laps (the even laps use one
 * half, the odd laps the other), one area of slots for each {@link LaneStripe}. A permit goes in
 * the area of the stripe it was taken on, at its position within the lap: the thread (or the
 * few threads) of a stripe write only their own area's cache lines, never a line another core
 * writes. Only the monitor, closing the lane, reads every area. Owns the arrays and the rules
 * of reading them: a slot holds the permit of a position once its commit number says so.
 *
 * <p>Whether a lap's permits have all been given back (so that its half may be reused) is not
 * read here but from the stripes' counts ({@link LaneStripe#countGiven}), one word per stripe.
 *
 * <p>Thread-safe: {@link #publish} from any thread; {@link #adopt} and {@link #clear} under the
 * partition's monitor, the lane closed.
 */
final class LaneSlots {
  /**
   * Slots left empty at each end of an area, so that two areas (separate arrays, allocated one
   * after the other) never share a cache line, nor a pair of lines fetched together: 128 bytes
   * with compressed references.
   */
  private static final int EDGE = 32;
  private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(PermitImpl[].class);

  private static final VarHandle AREA = MethodHandles.arrayElementVarHandle(PermitImpl[][].class);

  /**
   * One area per stripe: {@link #EDGE} empty slots, a lap's slots for each half, the edge. An
   * area is made when a permit is first published in it, so a partition used by one thread
   * holds one area.
   */
  private final PermitImpl[][] areas;

  LaneSlots(int stripes) {
    areas = new PermitImpl[stripes][];
  }

  /** Where, within an area, the permit at position {@code pos} of the lease goes. */
  private static int slot(long pos) {
    return EDGE + (int) (((pos / FastLane.SLOTS) & 1) * FastLane.SLOTS + pos % FastLane.SLOTS);
  }

  /** Publishes the permit taken on stripe {@code stripe} at position {@code pos}. */
  void publish(int stripe, long pos, PermitImpl permit) {
    PermitImpl[] area = (PermitImpl[]) AREA.getAcquire(areas, stripe);
    SLOT.setRelease(area != null ? area : make(stripe), slot(pos), permit);
  }

  /** Makes the area of stripe {@code stripe} (once a lane's life: kept out of the hot path). */
  private PermitImpl[] make(int stripe) {
    PermitImpl[] fresh = new PermitImpl[EDGE + 2 * FastLane.SLOTS + EDGE];
    PermitImpl[] seen = (PermitImpl[]) AREA.compareAndExchange(areas, stripe, null, fresh);
    return seen != null ? seen : fresh;
  }

  /**
   * Adopts the permit at position {@code pos} (commit number {@code seq}) into
   * {@code partition} if it is still out, and empties its slot. Returns 1 if it was given back
   * (its units are still in flight), else 0.
   */
  long adopt(Partition partition, long pos, long seq) {
    int slot = slot(pos);
    PermitImpl permit;
    PermitImpl[] area;
    int spins = 0;
    // Its CAS succeeded: the taker publishes it in its stripe's area a few instructions later
    // (until then its slot is empty or holds a permit of an older lap, with another number).
    while (true) {
      area = find(slot, seq);
      if (area != null) {
        permit = (PermitImpl) SLOT.getAcquire(area, slot);
        break;
      }
      if (++spins < 100) {
        Thread.onSpinWait();
      } else {
        Thread.yield();
      }
    }
    area[slot] = null;
    // Most have ended (given back or answered): a plain look spares a failed CAS each.
    if (permit.state == PermitImpl.LANE && permit.adoptFromLane()) {
      partition.adopt(permit);
    } else if (permit.state == PermitImpl.GIVEN) {
      return 1; // given back (ended states are final): its units leave flight with the lease
    }
    return 0;
  }

  /** Returns the area whose slot {@code slot} holds the permit numbered {@code seq}, or null. */
  private PermitImpl @Nullable [] find(int slot, long seq) {
    for (int i = 0; i < areas.length; i++) {
      PermitImpl[] area = (PermitImpl[]) AREA.getAcquire(areas, i);
      if (area == null) {
        continue;
      }
      PermitImpl permit = (PermitImpl) SLOT.getAcquire(area, slot);
      if (permit != null && permit.seq == seq) {
        return area;
      }
    }
    return null;
  }

  /** Returns how many areas were made (for the lane's tests, the takers joined). */
  int made() {
    return (int) Arrays.stream(areas).filter(Objects::nonNull).count();
  }

  /** Empties every slot (the slots not adopted hold permits of older laps, all ended). */
  void clear() {
    for (int i = 0; i < areas.length; i++) {
      PermitImpl[] area = (PermitImpl[]) AREA.getAcquire(areas, i);
      if (area != null) {
        Arrays.fill(area, null);
      }
    }
  }
}
