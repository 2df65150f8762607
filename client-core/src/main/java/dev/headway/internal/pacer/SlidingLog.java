package dev.headway.internal.pacer;

/**
 * Whether one server policy is a sliding log, and if so when its units come back. A sliding log
 * (Flask-Limiter's moving window, @nestjs/throttler) admits a request while fewer than its quota
 * of units were spent in the last window {@code W}, and gives each unit back {@code W} after it
 * was spent. Neither says so: Flask-Limiter's reset is when its newest unit leaves, which every
 * request moves on; NestJS's is a tracker's expiry. So the log is recognised from the counts
 * alone: against a lone client a sliding log's count is always the quota less the client's own
 * units of the last {@code W}, and each count bounds {@code W} from both sides:
 *
 * <ul>
 *   <li>units the client spent that the count no longer holds left: the oldest of them left by
 *       the time the server counted, so {@code W} is at most that time less when it was spent
 *       (an upper bound, from the answer's arrival and the earliest send it can be);
 *   <li>units the count still holds have not left: the oldest of them was spent less than
 *       {@code W} before the server counted (a lower bound).
 * </ul>
 *
 * <p>A fixed window (everything back at once), a bucket (units back at a rate, whenever they were
 * spent) or a log shared with other clients (more spent than the client's own) soon gives a lower
 * bound above the upper one: the bounds start again, and nothing changes. While the two bounds
 * agree to within a quarter of the upper one, a request goes when the units the client spent
 * more than the upper bound ago, and what is in flight, leave room for it: each unit is taken
 * back the upper bound after its answer arrived, never earlier than the server gives it. Pacing
 * so is safe for a fixed window and a bucket of that quota and window too (no stretch of
 * {@code W} holds more than the quota). A bucket used steadily at its refill rate with {@code k}
 * tokens left counts as a log of {@code quota - k} refill intervals, so a log known from its
 * counts alone is paced only once a count held the whole quota (see {@link #full}). A 429 to a
 * request it let go moves the upper bound up (see {@link #refused}). Part of its
 * {@link ServerPolicy}; under the partition's monitor.
 */
final class SlidingLog {
  /** The most entries kept: a log of more units than this is left to the other rules. */
  static final int CAPACITY = 512;

  private static final long[] NONE = new long[0];
  private static final long ONE_SECOND_NANOS = 1_000_000_000L;

  /**
   * The units of each admitted request, when it was sent and when its answer came, in order of
   * arrival: a ring, grown as needed up to {@link #CAPACITY}.
   */
  private long[] sent = NONE;
  private long[] answered = NONE;
  private long[] units = NONE;
  private int head;
  private int size;
  private long total;
  /** The bounds of the window: W in (lowNanos, highNanos]. */
  private long lowNanos;
  private long highNanos = Long.MAX_VALUE;

  /**
   * The units of the requests whose counts, since the bounds started, held units of ours and
   * agreed with the bounds (a request of cost {@code k} weighs {@code k}: a window of a log
   * charging 2 a request holds only half a quota of answers); a bound from one or two counts
   * agrees with anything (a bucket's, just after a burst).
   */
  private long agreed;
  /** Whether some count since the bounds started showed part of our units gone, not all. */
  private boolean partly;

  /**
   * Whether the policy is paced as a sliding log: since the bounds started, counts of requests
   * costing a quota's worth of units held units and agreed with them, some showed units leaving
   * one by one, one held the whole quota (or {@code trailing}: the server's reset trails each
   * request as only a log's does), and the bounds are within a quarter of each other.
   */
  boolean active(boolean trailing) {
    return partly && (full || trailing) && agreed >= quotaSeen && survived
        && highNanos != Long.MAX_VALUE && lowNanos > 0 && highNanos - lowNanos <= highNanos / 4;
  }

  /**
   * Whether a count since the bounds started held the whole quota and agreed with the bounds. A
   * bucket used steadily at its refill rate with {@code k} units left counts as a log of
   * {@code (quota - k)} refill intervals would: paced as that log, it is overdrawn. Once it held
   * the whole quota, the only log it fits is its own window.
   */
  private boolean full;

  /** When the first upper bound since the bounds started was found. */
  private long highSetAtNanos = Long.MAX_VALUE;
  /**
   * Whether a count agreed a whole upper bound after that (a fixed window's bound from its reset
   * is contradicted within it: its units are older than the bound by then, a log's never), or
   * the server's reset trails each request as only a log's does.
   */
  private boolean survived;

  /** The quota of the last count (how many agreeing counts make a log). */
  private long quotaSeen = Long.MAX_VALUE;

  /** The window paced at: the upper bound. */
  long windowNanos() {
    return highNanos;
  }

  /**
   * Records a 429 to a request the log let go: the unit it took for gone at the send had not
   * left, so the window is longer than the upper bound paced at. Paced as a log, the bound
   * moves up by the gap between the bounds (at least a thirty-second of it), and the lower
   * bound to where the upper one was; the counts that follow confirm it or start the bounds
   * again. Not paced as a log: the bounds start again. A refusal to a request {@code sentNanos}
   * before the last one was answered is the same overdraw (a server that blocks refuses all
   * that was in flight): it moves nothing. Nor does a refusal of a request sent before the log
   * paced anything (see {@link #pacing}): the log did not let it go.
   */
  void refused(boolean paced, long sentNanos, long nowNanos) {
    if (sentNanos < refusedAtNanos) {
      return; // sent before the last refusal was seen: the same overdraw, nothing new
    }
    if (paced && sentNanos < pacedFromNanos) {
      // Sent before the log paced anything (at a refill pace, or to a reset): not the log's
      // overdraw, and it says nothing of its window.
      return;
    }
    refusedAtNanos = nowNanos;
    if (!paced || highNanos == Long.MAX_VALUE) {
      restart();
      return;
    }
    if (highFromReset) {
      // The server's reset said the units were back by then, and they were not: its reset is
      // not when units come back (a tracker's expiry), and bounds nothing from now on.
      resetRefuted = true;
    }
    long gap = Math.max(highNanos - lowNanos, highNanos / 32);
    lowNanos = highNanos;
    highNanos = Time.add(highNanos, gap);
  }

  /**
   * The longest a unit of ours was ever seen held, by a count of a request sent that long after
   * it was answered: the window is longer, whatever the bounds started again for. A reset that
   * trails each request by less is not when units leave (a tracker's expiry, @nestjs/throttler),
   * and never bounds the window.
   */
  private long countedLowNanos;

  /** Since when the log has paced requests (Long.MAX_VALUE: not since the bounds started). */
  private long pacedFromNanos = Long.MAX_VALUE;

  /** Records that the log paces a request at {@code nowNanos}. */
  void pacing(long nowNanos) {
    pacedFromNanos = Math.min(pacedFromNanos, nowNanos);
  }

  /** Whether the upper bound is the server's reset's (a trailing reset), not the counts'. */
  private boolean highFromReset;
  /**
   * Whether the server's reset was refuted: a request the log let go at an upper bound that the
   * server's trailing reset gave (not the counts) was refused with a 429, so that reset is not
   * when units come back (NestJS's is its tracker's expiry, and its hits leave by timers that
   * fire a few milliseconds after it). From then on a reset bounds nothing; the counts still do.
   *
   * <p>Set once and never cleared, on purpose, not even by {@link #restart}: such a server's
   * reset is wrong the same way on every answer, and trusting it again after each restart would
   * draw one 429 per restart. Mistrust costs no 429 and keeps the log: the counts alone bound
   * the window from both sides (an upper bound from them is never shorter than the window), so
   * the log is still found and paced, only later (once a count agreed a whole upper bound after
   * the first, instead of as soon as a reset gave one). A server whose reset becomes exact (a
   * new version deployed under a running client) is paced by its counts until this policy's
   * state is forgotten (the partition evicted, or the policy crowded out of it) and learned anew.
   */
  private boolean resetRefuted;

  /** When the last refusal that moved the bounds was answered. */
  private long refusedAtNanos = Long.MIN_VALUE;
  /**
   * Until when the last refusal's {@code Retry-After} held the client off. A server that blocks
   * a client over its limit (@nestjs/throttler) may forget everything spent before the block
   * ends: units spent before then that left tell nothing of the window.
   */
  private long blockedUntilNanos = Long.MIN_VALUE;

  /**
   * Records a refusal whose {@code Retry-After} holds the client off until {@code untilNanos}:
   * the units spent before then may all leave at once when it ends.
   */
  void blocked(long untilNanos) {
    blockedUntilNanos = Math.max(blockedUntilNanos, untilNanos);
  }

  /** Starts the bounds again (the counts contradicted a sliding log, or a 429). */
  void restart() {
    lowNanos = 0;
    highNanos = Long.MAX_VALUE;
    highFromReset = false;
    agreed = 0;
    partly = false;
    full = false;
    highSetAtNanos = Long.MAX_VALUE;
    survived = false;
    pacedFromNanos = Long.MAX_VALUE;
  }

  /**
   * Takes the count {@code left} of a {@code quota}, in the answer (status {@code status}) to a
   * request of {@code cost} units sent at {@code sentNanos} and answered at {@code nowNanos},
   * with {@code inFlight} units out (the server may have counted them already);
   * {@code resetBound}: how long after its send the answer's reset said this request's units
   * are back at the latest, if its reset trails each request (else Long.MAX_VALUE).
   */
  void counted(long quota, long left, long cost, int status, long sentNanos, long nowNanos,
      long inFlight, long resetBound) {
    if (quota <= 0 || quota > CAPACITY || left < 0) {
      return;
    }
    if (status == 429 && active(true)) {
      refused(true, sentNanos, nowNanos); // it let a request go the server gave no room for
    }
    quotaSeen = quota;
    drop(nowNanos);
    boolean ok = status < 400;
    long held = Math.max(0, quota - left); // units the server counts now, this request's included
    long own = ok ? cost : 0;
    if (resetBound != Long.MAX_VALUE && !resetRefuted && resetBound >= lowNanos
        && resetBound >= countedLowNanos && (resetBound < highNanos || (highNanos != Long.MAX_VALUE
        && resetBound - highNanos <= ONE_SECOND_NANOS + (nowNanos - sentNanos)))) {
      if (resetBound < highNanos) {
        highNanos = resetBound;
        highFromReset = true;
        highSetAtNanos = Math.min(highSetAtNanos, nowNanos);
      }
      // The reset says when each unit leaves: one by one, never all at once. So it does when
      // the counts already bound the window tighter, by no more than the reset's rounding (a
      // whole second) and the round trip: the two agree.
      partly = true;
      survived = true;
    }
    bound(held, own, Math.max(1, cost), inFlight, sentNanos, nowNanos);
    if (held >= quota && lowNanos <= highNanos && agreed > 0) {
      full = true;
    }
    if (ok) {
      add(sentNanos, nowNanos, cost, quota);
    }
  }

  /** The bounds one count gives; a contradiction starts them again. */
  private void bound(long held, long own, long cost, long inFlight, long sentNanos,
      long nowNanos) {
    // Units of ours certainly counted before this request (answered before it was sent) and no
    // longer in the count: the oldest of them left, so W <= nowNanos - their earliest send.
    long before = 0;
    int certain = 0;
    for (; certain < size; certain++) {
      int i = index(certain);
      if (answered[i] > sentNanos) {
        break;
      }
      before += units[i];
    }
    long gone = before + own - held;
    if (gone > 0 && gone < before) {
      partly = true;
    }
    if (gone > 0) {
      // The k-th oldest unit's send is at least the earliest send among entries from there on.
      long seen = 0;
      int k = 0;
      for (; k < certain; k++) {
        seen += units[index(k)];
        if (seen >= gone) {
          break;
        }
      }
      long earliest = Long.MAX_VALUE;
      for (int j = k; j < certain; j++) {
        earliest = Math.min(earliest, sent[index(j)]);
      }
      if (earliest != Long.MAX_VALUE && earliest >= blockedUntilNanos) {
        long high = Math.max(0, nowNanos - earliest);
        if (high < highNanos) {
          highNanos = high;
          highFromReset = false;
        }
        highSetAtNanos = Math.min(highSetAtNanos, nowNanos);
      }
    }
    // Units still in the count: the oldest of them (among ours that can be counted by then) was
    // spent less than W before the server counted. Those in flight may be among them.
    long need = held - own - inFlight;
    if (need > 0) {
      long seen = 0;
      long newestAnswer = Long.MIN_VALUE;
      for (int j = size - 1; j >= 0; j--) {
        int i = index(j);
        if (sent[i] > nowNanos) {
          continue;
        }
        seen += units[i];
        if (seen >= need) {
          newestAnswer = answered[i];
          break;
        }
      }
      if (newestAnswer == Long.MIN_VALUE) {
        // More counted than ours explain: another client, or units from before the log began.
        restart();
        return;
      }
      lowNanos = Math.max(lowNanos, sentNanos - newestAnswer);
      countedLowNanos = Math.max(countedLowNanos, sentNanos - newestAnswer);
    }
    if (lowNanos > highNanos) {
      restart();
    } else if (held > own) {
      agreed = Time.add(agreed, cost);
      survived |= highNanos != Long.MAX_VALUE
          && nowNanos - highSetAtNanos >= highNanos;
    }
  }

  /**
   * Returns when a request of {@code cost} units may go with {@code inFlight} units out, not
   * before {@code notBeforeNanos}, at {@code nowNanos}: once the units given back leave room.
   * Long.MAX_VALUE if more is in flight than the quota ever holds.
   */
  long earliest(long quota, long cost, long inFlight, long nowNanos, long notBeforeNanos) {
    drop(nowNanos);
    long units = Math.min(cost, quota);
    long over = total + inFlight + units - quota;
    if (over <= 0) {
      return notBeforeNanos;
    }
    if (over > total) {
      return Long.MAX_VALUE;
    }
    long back = 0;
    for (int j = 0; j < size; j++) {
      int i = index(j);
      back += this.units[i];
      if (back >= over) {
        return Math.max(notBeforeNanos, Time.add(answered[i], highNanos));
      }
    }
    return Long.MAX_VALUE;
  }

  /** Drops the entries that left the log at {@code nowNanos}, by the upper bound. */
  private void drop(long nowNanos) {
    while (size > 0 && highNanos != Long.MAX_VALUE
        && Time.add(answered[head], highNanos) <= nowNanos) {
      total -= units[head];
      head = index(1);
      size--;
    }
  }

  private void add(long sentNanos, long answeredNanos, long cost, long quota) {
    // Twice the quota is enough for both bounds (a count holds at most a quota of ours); the
    // oldest go first, which keeps the bounds valid.
    while (size > 0 && size >= 2 * quota) {
      total -= units[head];
      head = index(1);
      size--;
    }
    if (size == sent.length) {
      if (size == CAPACITY) {
        // The oldest entry goes: the bounds stay valid (the oldest units are left out of both
        // sides of the count), and a lower bound that needed it finds too few and starts again.
        total -= units[head];
        head = index(1);
        size--;
      } else {
        grow();
      }
    }
    int i = index(size);
    sent[i] = sentNanos;
    answered[i] = answeredNanos;
    units[i] = cost;
    size++;
    total += cost;
  }

  private void grow() {
    int length = Math.min(CAPACITY, Math.max(16, sent.length * 2));
    long[] s = new long[length];
    long[] a = new long[length];
    long[] u = new long[length];
    for (int j = 0; j < size; j++) {
      int i = index(j);
      s[j] = sent[i];
      a[j] = answered[i];
      u[j] = units[i];
    }
    sent = s;
    answered = a;
    units = u;
    head = 0;
  }

  @Override
  public String toString() {
    return "low=" + lowNanos / 1e9 + " high=" + highNanos / 1e9 + " agreed=" + agreed
        + " setAt=" + highSetAtNanos / 1e9 + " size=" + size;
  }

  private int index(int j) {
    int i = head + j;
    return i < sent.length ? i : i - sent.length;
  }
}
