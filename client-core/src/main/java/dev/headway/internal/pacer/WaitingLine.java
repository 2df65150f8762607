package dev.headway.internal.pacer;

import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * Owns one partition's waiting line, first come first served: the arrival tickets of acquire
 * calls, and the callers waiting for units a rate policy does not have yet (spent until a reset,
 * or only probes until the server answers), each with the time it looks again. A younger caller
 * does not take what an older one in line waits for (see docs/pacer.md, "Waiting in line").
 * Guarded by the partition's monitor; a permit's ticket and wake time are its place here.
 */
final class WaitingLine {
  private long arrivals;
  /** Ticket to the time its caller looks again; null until someone waits. */
  private @Nullable TreeMap<Long, Long> waiters;

  /** Returns the next arrival ticket. */
  long nextTicket() {
    return arrivals++;
  }

  /** Puts {@code permit} in line (or moves it) to look again at {@code wakeNanos}. */
  void join(PermitImpl permit, long wakeNanos) {
    if (waiters == null) {
      waiters = new TreeMap<>();
    }
    waiters.put(permit.ticket, wakeNanos);
    permit.waitWakeNanos = wakeNanos;
  }

  /** Whether a caller waits in line. */
  boolean waiting() {
    TreeMap<Long, Long> w = waiters;
    return w != null && !w.isEmpty();
  }

  /** Returns how many callers wait in line. */
  int size() {
    TreeMap<Long, Long> w = waiters;
    return w == null ? 0 : w.size();
  }

  /** Takes {@code permit} out of the line. */
  void leave(PermitImpl permit) {
    TreeMap<Long, Long> w = waiters;
    if (w != null && permit.ticket >= 0) {
      w.remove(permit.ticket);
    }
    permit.waitWakeNanos = Long.MAX_VALUE;
  }

  /**
   * Returns when {@code permit} may have its turn: Long.MIN_VALUE if no older caller waits in
   * line for the units it would take. An older caller that looks again within a recheck
   * interval goes first (the younger looks again when it wakes); one due now but not yet back
   * also goes first (the younger looks again a moment later), unless the younger was due as
   * early: callers woken at one instant share it. One that looks again later does not hold
   * anyone back (it waits for a reset: so would the younger). A caller that does not come back
   * within a recheck interval of its time (gone, or a slow thread) loses its place.
   */
  long turn(PermitImpl permit, long now, long recheckNanos) {
    TreeMap<Long, Long> w = waiters;
    if (w == null || w.isEmpty()) {
      return Long.MIN_VALUE;
    }
    long turn = Long.MIN_VALUE;
    Iterator<Map.Entry<Long, Long>> it = w.headMap(permit.ticket, false).entrySet().iterator();
    while (it.hasNext()) {
      long wake = it.next().getValue();
      long at;
      if (Time.add(wake, recheckNanos) < now) {
        it.remove();
        continue;
      } else if (Time.sub(wake, now) > recheckNanos) {
        continue; // not back before a caller that went now could answer: no need to wait
      } else if (wake > now) {
        at = wake;
      } else if (permit.waitWakeNanos > wake) {
        at = Time.add(now, Math.max(1, recheckNanos / 50));
      } else {
        continue;
      }
      turn = turn == Long.MIN_VALUE ? at : Math.min(turn, at);
    }
    return turn;
  }
}
