package dev.headway.internal.pacer;

/**
 * A bare server (429s with no {@code Retry-After} and no count) that gave the same count twice
 * is a steady window: a fixed window gives the same quota every window, a bucket the refill of
 * a cycle's time, which seldom repeats exactly. Part of a {@link LearnedRate}, which tells it
 * where its cycles open and close; docs/pacer.md ("A bare server that gives the same count
 * twice is a steady window") explains the rule.
 *
 * <ul>
 *   <li>When a cycle from a reopening after bare 429s admitted as many as the cycle before it
 *       (or, for the first, as the first burst did before the first 429), ten or more, the
 *       server is taken for a steady window of that count, at the 429 that ends the cycle.
 *   <li>No more than that count goes between one reopening and the next one predicted, where one
 *       request probes; the other callers wait for its answer.
 *   <li>The next reopening lies after every window's earliest plus the least periods since, and
 *       at or before every window's latest plus the most: the probe goes halfway between (at the
 *       latest once they are within a sixteenth of the period or a second, never later than a
 *       least period after the earliest). A probe refused as too early is a new earliest.
 *   <li>The bounds on the period come from every two windows kept, over the whole periods
 *       between them (the first is the window of first contact, which began at or before it),
 *       and from each window's refusals (a request refused after the count came in the same
 *       window, so the period is longer than from its reopening to it). Until one bounds it
 *       above, the probe goes a least period past the earliest reopening.
 *   <li>Any other 429, a probe past every bound, or a pause longer than a window ends it: two
 *       new cycles with the same count make one again.
 * </ul>
 *
 * <p>Under the partition's monitor.
 */
final class SteadyWindow {
  private static final long SECOND = 1_000_000_000L;
  /** A count smaller than this repeats by chance (a slow bucket's token or two a cycle). */
  static final long LEAST_COUNT = 10;
  /** How many windows' reopenings bound the period (the oldest is dropped past this). */
  private static final int KEPT = 64;

  /** What the partition had admitted at the first 429 (the first burst's count); -1 after. */
  private long firstBurst = -1;
  /** When the partition first sent: the first window began at or before it. */
  private long firstContactNanos = Long.MIN_VALUE;
  /** What the cycle before the last cut admitted; -1 before one. */
  private long lastCount = -1;
  /** Where the current cycle's reopening lies: after this, at or before the next. */
  private long openLoNanos = Long.MIN_VALUE;
  private long openHiNanos = Long.MIN_VALUE;
  /** Where the previous cycle's reopening lies. */
  private long prevLoNanos = Long.MIN_VALUE;
  private long prevHiNanos = Long.MIN_VALUE;
  /** The steady window's count; 0 if none. */
  private long stopCount;
  /** When the steady window was taken: a 429 to a request sent before is its cycle's overshoot. */
  private long formedAtNanos;
  /** Requests sent in the current window; at the count, none goes before the next reopening. */
  private long stopSent;
  /** When the next request may go: the next window's predicted reopening. */
  private long stopNextNanos;
  /** When the request that probes the current window's reopening was sent. */
  private long stopProbeNanos;
  /** Whether the request that probes a reopening is out, unanswered. */
  private boolean stopProbing;
  /** Whether the current window's reopening was found (a request sent at or after it admitted). */
  private boolean stopOpened;
  /**
   * The reopenings seen since the steady window was taken, oldest first: window {@code i} of
   * the run (counted from the first one kept) reopened after {@code windowLo[i]} (Long.MIN_VALUE:
   * unknown) and at or before {@code windowHi[i]}. The current window is the last.
   */
  private final long[] windowLo = new long[KEPT];
  private final long[] windowHi = new long[KEPT];
  /** How many windows are kept. */
  private int windows;
  /** The next window's reopening is after this (a period's least, or a refused probe). */
  private long nextLoNanos;
  /** Bounds on the period of the reopenings; MAX_VALUE above when none is known yet. */
  private long periodLoNanos;
  private long periodHiNanos;

  /** Whether the server is taken for a steady window now. */
  boolean active() {
    return stopCount > 0;
  }

  /** The steady window's count; 0 if none. */
  long count() {
    return stopCount;
  }

  /**
   * The first 429: the partition had admitted {@code admitted} since first contact, at
   * {@code firstContactNanos}.
   */
  void firstBurst(long admitted, long firstContactNanos) {
    firstBurst = admitted;
    this.firstContactNanos = firstContactNanos;
  }

  /**
   * A bare 429 to a request sent at {@code sentNanos}, answered at {@code nowNanos}, closed a
   * cycle that admitted {@code admitted}; {@code opened}: the cycle opened at a reopening after
   * bare 429s (its count is whole). A fixed window gives the same quota every window, a bucket
   * the refill of the cycle's time: when the count matches the cycle before (or, for the first,
   * the first burst), the server is a steady window of that count, spent now.
   */
  void cycleClosed(long admitted, boolean opened, long sentNanos, long nowNanos) {
    if (!opened || stopCount > 0) {
      return;
    }
    boolean first = lastCount < 0 && prevHiNanos == Long.MIN_VALUE;
    long reference = first ? firstBurst : lastCount;
    lastCount = admitted;
    long beforeLo = first ? Long.MIN_VALUE : prevLoNanos;
    long beforeHi = first ? firstContactNanos : prevHiNanos;
    if (admitted < LEAST_COUNT || admitted != reference || beforeHi == Long.MIN_VALUE
        || openLoNanos <= beforeHi) {
      return; // fewer than ten: a bucket's token or two a cycle repeats by chance
    }
    stopCount = admitted;
    formedAtNanos = nowNanos;
    // The window before this cycle's (the first one: it began at or before first contact), and
    // this cycle's, a period apart. All this cycle's refusals came in its own window (a later
    // one would have admitted them): the period is longer than from its reopening to them.
    windowLo[0] = beforeLo;
    windowHi[0] = beforeHi;
    windowLo[1] = openLoNanos;
    windowHi[1] = openHiNanos;
    windows = 2;
    periodLoNanos = Math.max(0, sentNanos - openHiNanos);
    periodHiNanos = Long.MAX_VALUE;
    bound();
    stopProbeNanos = openHiNanos;
    stopOpened = true;
    stopProbing = false;
    stopSent = stopCount;
    nextLoNanos = nextLo();
    stopNextNanos = nextTry(nextLoNanos, nextHi());
  }

  /**
   * Narrows the bounds on the period by every two windows kept: window {@code j} reopened after
   * window {@code i}'s earliest plus {@code j - i} periods and at or before its latest plus them.
   */
  private void bound() {
    long lo = periodLoNanos;
    long hi = periodHiNanos;
    for (int i = 0; i < windows; i++) {
      for (int j = i + 1; j < windows; j++) {
        long periods = j - i;
        if (windowLo[j] != Long.MIN_VALUE) {
          lo = Math.max(lo, (windowLo[j] - windowHi[i]) / periods);
        }
        if (windowLo[i] != Long.MIN_VALUE) {
          hi = Math.min(hi, (windowHi[j] - windowLo[i]) / periods);
        }
      }
    }
    periodHiNanos = Math.max(1, hi);
    periodLoNanos = Math.min(periodHiNanos, lo);
  }

  /** The earliest the next window can reopen: after this. */
  private long nextLo() {
    long lo = Long.MIN_VALUE;
    for (int i = 0; i < windows; i++) {
      if (windowLo[i] != Long.MIN_VALUE) {
        lo = Math.max(lo, Time.add(windowLo[i], Time.mul(windows - i, periodLoNanos)));
      }
    }
    return lo;
  }

  /** The latest the next window can reopen: at or before this (MAX_VALUE: not known). */
  private long nextHi() {
    if (periodHiNanos == Long.MAX_VALUE) {
      return Long.MAX_VALUE;
    }
    long hi = Long.MAX_VALUE;
    for (int i = 0; i < windows; i++) {
      hi = Math.min(hi, Time.add(windowHi[i], Time.mul(windows - i, periodHiNanos)));
    }
    return hi;
  }

  /**
   * A 429 to a request sent at {@code sentNanos}: returns true if it was the probe of a
   * predicted reopening refused as too early (the window opens after it; the next try goes
   * halfway to the latest it can open), which teaches nothing else. Any other 429 while steady
   * ends the steady window (the server gave less than the count).
   */
  boolean refused(long sentNanos) {
    if (stopCount == 0 || sentNanos < formedAtNanos) {
      return false; // sent before the steady window was taken: the overshoot that closed it
    }
    long curHi = windowHi[windows - 1];
    if (!stopOpened && sentNanos >= stopProbeNanos
        && sentNanos < Time.add(nextHi(), SECOND)) {
      // Refused in the current window (the next would have admitted it): the period is longer
      // than from its reopening to this request, and the next reopening is after it.
      periodLoNanos = Math.min(periodHiNanos, Math.max(periodLoNanos, sentNanos - curHi));
      nextLoNanos = Math.max(nextLo(), Math.max(nextLoNanos, sentNanos));
      stopProbing = false;
      stopSent = stopCount;
      stopNextNanos = nextTry(nextLoNanos, nextHi());
      return true;
    }
    leave();
    return false;
  }

  /** An admitted request sent at {@code sentNanos}. */
  void admitted(long sentNanos) {
    if (stopCount > 0 && !stopOpened && sentNanos >= stopProbeNanos) {
      windowOpened(sentNanos);
    }
  }

  /**
   * The current cycle opened: the server gave again after {@code loNanos} and at or before
   * {@code hiNanos}, where a request sent was admitted.
   */
  void opened(long loNanos, long hiNanos) {
    prevLoNanos = openLoNanos;
    prevHiNanos = openHiNanos;
    openLoNanos = loNanos;
    openHiNanos = hiNanos;
  }

  /** Ends the steady window: two more cycles with the same count make one again. */
  private void leave() {
    stopCount = 0;
    lastCount = -1;
    firstBurst = -1;
  }

  /**
   * When to try a reopening known to lie after {@code lo} and at or before {@code hi}: at
   * {@code hi} when that is near enough (a 16th of the period, or a second), else halfway; with
   * no latest known, a least period after the earliest.
   */
  private long nextTry(long lo, long hi) {
    // Never past a least period after the earliest it can open: the window after it opens no
    // sooner, so a try admitted there is in the window expected, not a later one.
    long latestSafe = Time.add(lo, periodLoNanos);
    if (hi == Long.MAX_VALUE) {
      return latestSafe;
    }
    long tolerance = Math.max(SECOND, periodLoNanos / 16);
    return Math.min(hi - lo <= tolerance ? hi : lo + (hi - lo) / 2, latestSafe);
  }

  /** A request sent at {@code sentNanos}, at or after the predicted reopening, was admitted. */
  private void windowOpened(long sentNanos) {
    // This window's reopening lies after the next-window bound (the earliest predicted, or the
    // last refused probe) and at or before this request: with every window kept, over the
    // whole periods between them, it bounds the period.
    stopOpened = true;
    stopProbing = false;
    if (windows == KEPT) {
      System.arraycopy(windowLo, 1, windowLo, 0, KEPT - 1);
      System.arraycopy(windowHi, 1, windowHi, 0, KEPT - 1);
      windows--;
    }
    windowLo[windows] = nextLoNanos;
    windowHi[windows] = sentNanos;
    windows++;
    bound();
    nextLoNanos = nextLo();
    stopNextNanos = nextTry(nextLoNanos, nextHi());
  }

  /**
   * Whether the probe of a reopening is out, unanswered, at {@code nowNanos}; a probe older than
   * {@code patienceNanos} never answered (a timeout, a permit released unsent): another may go.
   */
  boolean probing(long nowNanos, long patienceNanos) {
    if (stopCount > 0 && stopProbing && nowNanos > Time.add(stopProbeNanos, patienceNanos)) {
      stopProbing = false;
      stopNextNanos = nowNanos;
    }
    return stopCount > 0 && stopProbing;
  }

  /**
   * The earliest a request paced for {@code atNanos} may go: once the window's count is sent,
   * no sooner than the next reopening predicted, where it probes.
   */
  long notBefore(long atNanos) {
    return stopCount > 0 && stopSent >= stopCount && atNanos < stopNextNanos
        ? stopNextNanos : atNanos;
  }

  /** A request costing {@code cost} is committed to be sent at {@code sendAtNanos}. */
  void commit(long cost, long sendAtNanos) {
    if (stopCount == 0) {
      return;
    }
    if (!stopProbing && stopSent >= stopCount && sendAtNanos >= stopNextNanos) {
      // The request that probes the predicted reopening: none after it until it is answered.
      if (sendAtNanos > Time.add(periodHiNanos == Long.MAX_VALUE ? nextLoNanos
          : Time.add(windowHi[windows - 1], periodHiNanos), periodLoNanos)) {
        leave(); // idle past a whole window: the periods since are not known
      }
      stopProbeNanos = sendAtNanos;
      stopOpened = false;
      stopProbing = true;
      stopSent = cost;
    } else {
      stopSent += cost;
    }
  }
}
