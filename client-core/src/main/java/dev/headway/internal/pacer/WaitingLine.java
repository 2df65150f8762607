package dev.headway.internal.pacer;

import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * Owns one partition's waiting line, first come first served: the arrival tickets of acquire
 * calls, and the callers waiting for units a rate policy does not have yet (spent until a reset,
 * or only probes until the server answers), each with the time it looks again. A younger caller
 * does not take what an older one in line waits for (see docs/pacer.md, "Waiting in line").
 *
 * <p>The callers are kept in order of the time they look again, then of arrival, so that a
 * decision looks only at the callers due around now (within a recheck interval): with thousands
 * waiting for a reset, each decision costs a few steps, not a walk of the whole line. Guarded by
 * the partition's monitor; a permit's ticket and wake time are its place here.
 */
final class WaitingLine {
  /** One caller in line: when it looks again, and its arrival ticket. */
  private record Spot(long wakeNanos, long ticket) implements Comparable<Spot> {
    @Override
    public int compareTo(Spot o) {
      int c = Long.compare(wakeNanos, o.wakeNanos);
      return c != 0 ? c : Long.compare(ticket, o.ticket);
    }
  }

  /** The most callers one search of a decision looks at. */
  private static final int MAX_STEPS = 64;

  private long arrivals;
  /** The callers in line, by wake time then ticket; null until someone waits. */
  private @Nullable TreeSet<Spot> waiters;

  /** Returns the next arrival ticket. */
  long nextTicket() {
    return arrivals++;
  }

  /** Puts {@code permit} in line (or moves it) to look again at {@code wakeNanos}. */
  void join(PermitImpl permit, long wakeNanos) {
    TreeSet<Spot> w = waiters;
    if (w == null) {
      w = new TreeSet<>();
      waiters = w;
    } else if (permit.waitWakeNanos != Long.MAX_VALUE) {
      w.remove(new Spot(permit.waitWakeNanos, permit.ticket));
    }
    w.add(new Spot(wakeNanos, permit.ticket));
    permit.waitWakeNanos = wakeNanos;
  }

  /** Whether a caller waits in line. */
  boolean waiting() {
    TreeSet<Spot> w = waiters;
    return w != null && !w.isEmpty();
  }

  /** Returns how many callers wait in line. */
  int size() {
    TreeSet<Spot> w = waiters;
    return w == null ? 0 : w.size();
  }

  /** Takes {@code permit} out of the line. */
  void leave(PermitImpl permit) {
    TreeSet<Spot> w = waiters;
    if (w != null && permit.waitWakeNanos != Long.MAX_VALUE) {
      w.remove(new Spot(permit.waitWakeNanos, permit.ticket));
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
    TreeSet<Spot> w = waiters;
    if (w == null || w.isEmpty()) {
      return Long.MIN_VALUE;
    }
    // Gone: due more than a recheck interval ago and not back.
    w.headSet(new Spot(Time.sub(now, recheckNanos), Long.MIN_VALUE)).clear();
    long dueAt = Time.add(now, Math.max(1, recheckNanos / 50));
    // Due now (not back yet) and older, due before this caller: it goes first. In wake order,
    // the first due caller with this caller's wake time or later ends the search (the rest are
    // due as late: callers woken at one instant share it).
    long turn = Long.MAX_VALUE;
    int steps = 0;
    Spot due = new Spot(Math.min(Time.add(now, 1), permit.waitWakeNanos), Long.MIN_VALUE);
    for (Spot s : w.headSet(due)) {
      if (++steps > MAX_STEPS) {
        break;
      }
      if (s.ticket < permit.ticket) {
        turn = dueAt;
        break;
      }
    }
    // Still to wake within a recheck interval, older: it goes first. A few steps at most in
    // each search: past them, a younger caller does not wait (the order is kept, not enforced
    // at any cost).
    steps = 0;
    for (Spot s : w.tailSet(new Spot(Time.add(now, 1), Long.MIN_VALUE))) {
      if (s.wakeNanos >= turn || Time.sub(s.wakeNanos, now) > recheckNanos
          || ++steps > MAX_STEPS) {
        break;
      }
      if (s.ticket < permit.ticket) {
        turn = s.wakeNanos;
        break;
      }
    }
    return turn == Long.MAX_VALUE ? Long.MIN_VALUE : turn;
  }
}
