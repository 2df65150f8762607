package dev.headway.internal.pacer;

import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.TreeMap;
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
  /**
   * One caller in line: when it looks again, its arrival ticket, the policy whose units it
   * waits for (null if none said) and whether it waits for the answers of the requests already
   * out (probes) rather than for units. Ordered by wake time then ticket only.
   */
  private record Spot(long wakeNanos, long ticket, @Nullable PolicyState waitsFor,
      boolean forAnswers) implements Comparable<Spot> {
    Spot(long wakeNanos, long ticket) {
      this(wakeNanos, ticket, null, false);
    }

    /**
     * Whether this caller, due at the same instant as {@code younger}, goes first: it waits for
     * a server window's units (a known quota and window: they come back at one instant) that
     * {@code younger} would take too (not another model's); or for nothing said.
     */
    boolean goesBefore(PermitImpl younger) {
      PolicyState p = waitsFor;
      if (p == null) {
        return true;
      }
      return windowed(p) && (p.qualifier == null || p.qualifier.equals(younger.attribute));
    }

    @Override
    public int compareTo(Spot o) {
      int c = Long.compare(wakeNanos, o.wakeNanos);
      return c != 0 ? c : Long.compare(ticket, o.ticket);
    }
  }

  /** The most callers one search of a decision looks at. */
  private static final int MAX_STEPS = 64;

  private long arrivals;
  /** The steps {@link #older} has taken over the line's callers, in all (the work it costs). */
  long olderSteps;
  /** How many times {@link #older} has counted. */
  long olderCounts;
  /** The callers in line, by wake time then ticket; null until someone waits. */
  private @Nullable TreeSet<Spot> waiters;
  /** The callers in line by arrival ticket; null until someone waits. */
  private @Nullable TreeMap<Long, Spot> byTicket;
  /**
   * The tickets of the callers in line waiting for each policy (the null key: for none said),
   * so that those older than a caller are counted in a few steps ({@link #older}).
   */
  private final IdentityHashMap<@Nullable PolicyState, RankedTickets> waitingFor =
      new IdentityHashMap<>();

  /** Returns the next arrival ticket. */
  long nextTicket() {
    return arrivals++;
  }

  /**
   * Puts {@code permit} in line (or moves it) to look again at {@code wakeNanos}, waiting for
   * the units of {@code waitsFor} (null if none said).
   */
  void join(PermitImpl permit, long wakeNanos, @Nullable PolicyState waitsFor,
      boolean forAnswers) {
    TreeSet<Spot> w = waiters;
    TreeMap<Long, Spot> t = byTicket;
    if (w == null || t == null) {
      w = new TreeSet<>();
      waiters = w;
      t = new TreeMap<>();
      byTicket = t;
    }
    Spot old = t.get(permit.ticket);
    if (old != null) {
      w.remove(old);
      uncount(old);
    }
    Spot spot = new Spot(wakeNanos, permit.ticket, waitsFor, forAnswers);
    w.add(spot);
    t.put(permit.ticket, spot);
    waitingFor.computeIfAbsent(waitsFor, p -> new RankedTickets()).add(permit.ticket);
    permit.waitWakeNanos = wakeNanos;
  }

  /** Takes the caller at {@code spot}, leaving the line, out of the count of its policy's. */
  private void uncount(Spot spot) {
    RankedTickets tickets = waitingFor.get(spot.waitsFor);
    if (tickets != null) {
      tickets.remove(spot.ticket);
      if (tickets.size() == 0) {
        waitingFor.remove(spot.waitsFor);
      }
    }
  }

  /**
   * Returns how many callers in line wait for {@code policy} (null: for none said) whose ticket
   * is below {@code ticket} (all of them: Long.MAX_VALUE).
   */
  private long waitingFor(@Nullable PolicyState policy, long ticket) {
    RankedTickets tickets = waitingFor.get(policy);
    if (tickets == null) {
      return 0;
    }
    if (ticket == Long.MAX_VALUE) {
      return tickets.size();
    }
    long before = tickets.steps;
    long n = tickets.below(ticket);
    olderSteps += tickets.steps - before;
    return n;
  }

  /**
   * Returns how many callers in line came before {@code permit} and may take the units of
   * {@code policy} it waits for (those waiting for that policy, or for none said: the first
   * probes' answers, say): a caller joining the line at its end has them all ahead; one that has
   * kept its place since its first look, only those older, counted up to {@code limit} at most.
   * Callers waiting for another policy (another model's) are not ahead of it. Costs a few steps
   * (the logarithm of the line's length), however many are older.
   */
  long older(PermitImpl permit, PolicyState policy, long limit) {
    olderCounts++;
    TreeMap<Long, Spot> t = byTicket;
    if (t == null || t.isEmpty()) {
      return 0;
    }
    if (t.lastKey() < permit.ticket) {
      return waitingFor(policy, Long.MAX_VALUE) + waitingFor(null, Long.MAX_VALUE);
    }
    return Math.max(0, Math.min(limit,
        waitingFor(policy, permit.ticket) + waitingFor(null, permit.ticket)));
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
    TreeMap<Long, Spot> t = byTicket;
    if (w != null && t != null && permit.waitWakeNanos != Long.MAX_VALUE) {
      Spot old = t.remove(permit.ticket);
      if (old != null) {
        w.remove(old);
        uncount(old);
      }
    }
    permit.waitWakeNanos = Long.MAX_VALUE;
  }

  /**
   * Returns when {@code permit} may have its turn, given that it would go at {@code at} by the
   * policy {@code deciding} (null if none held it back): Long.MIN_VALUE if no older caller
   * waits in line for the units it would take. An older caller due now but not yet back goes
   * first, and so does one due at the same instant for a server window's units (the younger
   * looks again a moment later): callers woken at one instant by a window's reset or by its
   * probes' answers go in the order they came. An older caller that looks again within a
   * recheck interval also goes first (the younger looks again when it wakes), and so does one
   * waiting for {@code deciding}, due within a recheck interval before {@code at}: a younger
   * caller never takes a slot at a reset (a new window's probes) that older callers wait in
   * line for. One that looks again at another time does not hold anyone back (it waits for
   * another reset), nor does one waiting for a policy scoped to another value of the scope
   * attribute (another model's). A caller waiting for the answers of the requests already out
   * (the first probes) holds back only a younger caller that would take later units (a
   * window's reset), not units free now. A caller that does not come back within a recheck
   * interval of its time (gone, or a slow thread) loses its place.
   */
  long turn(PermitImpl permit, long now, long at, @Nullable PolicyState deciding,
      long recheckNanos) {
    TreeSet<Spot> w = waiters;
    TreeMap<Long, Spot> t = byTicket;
    if (w == null || t == null || w.isEmpty()) {
      return Long.MIN_VALUE;
    }
    // Gone: due more than a recheck interval ago and not back.
    for (Iterator<Spot> it = w.headSet(new Spot(Time.sub(now, recheckNanos), Long.MIN_VALUE))
        .iterator(); it.hasNext(); ) {
      Spot gone = it.next();
      t.remove(gone.ticket);
      uncount(gone);
      it.remove();
    }
    long dueAt = Time.add(now, Math.max(1, recheckNanos / 50));
    // Due now (not back yet) and older, due before this caller or, waiting for a window's units
    // it would take, as early: it goes first. In wake order, then arrival order, so with many
    // due at once the oldest are the first looked at.
    long turn = Long.MAX_VALUE;
    int steps = 0;
    for (Spot s : w.headSet(new Spot(now, Long.MAX_VALUE), true)) {
      if (++steps > MAX_STEPS) {
        break;
      }
      if (s.ticket < permit.ticket && (s.forAnswers ? at > now
          : s.wakeNanos < permit.waitWakeNanos || s.goesBefore(permit))) {
        turn = dueAt;
        break;
      }
    }
    // Still to wake within a recheck interval, older; or waiting for the policy this caller
    // would go by, due within a recheck interval before its time. A few steps at most in each
    // search: past them, a younger caller does not wait (the order is kept, not enforced at
    // any cost).
    turn = Math.min(turn, olderWaking(w, permit, now, Time.add(now, recheckNanos), null,
        at > now));
    if (windowed(deciding) && at > Time.add(now, recheckNanos)) {
      turn = Math.min(turn, olderWaking(w, permit,
          Math.max(Time.add(now, recheckNanos), Time.sub(at, recheckNanos)), at, deciding,
          true));
    }
    return turn == Long.MAX_VALUE ? Long.MIN_VALUE : turn;
  }

  /**
   * Returns the wake time of the first caller older than {@code permit} that looks again after
   * {@code from} and at or before {@code to}, waiting for units it would take (those of
   * {@code policy}, if given; else any, or the answers of the requests out if the caller would
   * take {@code later} units than those free now); Long.MAX_VALUE if none within a few steps.
   */
  private static long olderWaking(TreeSet<Spot> w, PermitImpl permit, long from, long to,
      @Nullable PolicyState policy, boolean later) {
    int steps = 0;
    for (Spot s : w.subSet(new Spot(from, Long.MAX_VALUE), false, new Spot(to, Long.MAX_VALUE),
        true)) {
      if (++steps > MAX_STEPS) {
        break;
      }
      if (s.ticket < permit.ticket
          && (policy == null ? later || !s.forAnswers : s.waitsFor == policy)) {
        return s.wakeNanos;
      }
    }
    return Long.MAX_VALUE;
  }

  /**
   * Whether {@code policy} is a server's window of known quota and length: its units come back
   * at one instant, its reset, where a new window's probes go first.
   */
  private static boolean windowed(@Nullable PolicyState policy) {
    return policy instanceof ServerPolicy p && p.windowOfKnownQuota();
  }
}
