package dev.headway.internal.pacer;

/**
 * A bare server (429s with no {@code Retry-After} and no count) that gave the same count twice
 * is a steady window: a fixed window gives the same quota every window, a bucket the refill of
 * a cycle's time, which seldom repeats exactly. Part of a {@link LearnedRate}, which tells it
 * where its cycles open and close; docs/pacer.md ("A bare server that gives the same count
 * twice is a steady window") explains the rule.
 *
 * <ul>
 *   <li>When a cycle between two reopenings after bare 429s admitted as many as the cycle before
 *       it (or, for the first, as the first burst did before the first 429), ten or more, the
 *       server is taken for a steady window of that count.
 *   <li>No more than that count goes between one reopening and the next one predicted, where one
 *       request probes; the other callers wait for its answer.
 *   <li>The next reopening lies after the earliest the last one could have been plus the least
 *       period, and at or before the latest plus the most: the probe goes halfway between (at
 *       the latest once they are within a sixteenth of the period or a second, never later than
 *       a least period after the earliest). A probe refused as too early is a new earliest.
 *   <li>The bounds on the period come from the first window of the run and each later one, over
 *       the whole periods between them.
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

  /** What the partition had admitted at the first 429 (the first burst's count); -1 after. */
  private long firstBurst = -1;
  /** The cycle the last bare cut closed, for its count: its admitted requests. */
  private long countAdmitted;
  /** Whether that cycle opened at a reopening after bare 429s (its count is whole). */
  private boolean countOpened;
  /** What the cycle before it admitted; -1 before one. */
  private long lastCount = -1;
  /** Where the current cycle's reopening lies: after this, at or before the next. */
  private long openLoNanos = Long.MIN_VALUE;
  private long openHiNanos = Long.MIN_VALUE;
  /** Where the previous cycle's reopening lies. */
  private long prevLoNanos = Long.MIN_VALUE;
  private long prevHiNanos = Long.MIN_VALUE;
  /** The steady window's count; 0 if none. */
  private long stopCount;
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
  /** The first window of the steady run: its reopening's bounds, the reference for the period. */
  private long refLoNanos;
  private long refHiNanos;
  /** The current window's reopening: after the first, at or before the second. */
  private long curLoNanos;
  private long curHiNanos;
  /** The next window's reopening is after this (a period's least, or a refused probe). */
  private long nextLoNanos;
  /** Requests sent since the last cut, and those of them refused. */
  private long cycleSent;
  private long cycleRefused;
  /** The periods from the reference window to the current one. */
  private long stopPeriods;
  /** Bounds on the period of the reopenings. */
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

  /** The first 429: the partition had admitted {@code admitted} since first contact. */
  void firstBurst(long admitted) {
    firstBurst = admitted;
  }

  /** A new cycle starts (the first 429, or a cut): nothing sent in it yet. */
  void cycleStarted() {
    cycleSent = 0;
    cycleRefused = 0;
  }

  /** A request sent in the current cycle was refused. */
  void refusedInCycle() {
    cycleRefused++;
  }

  /**
   * A cut closed a cycle that admitted {@code admitted}; {@code opened}: it opened at a
   * reopening after bare 429s (its count is whole), so the next opening measures it.
   */
  void cycleClosed(long admitted, boolean opened) {
    countAdmitted = admitted;
    countOpened = opened;
  }

  /**
   * A 429 to a request sent at {@code sentNanos}: returns true if it was the probe of a
   * predicted reopening refused as too early (the window opens after it; the next try goes
   * halfway to the latest it can open), which teaches nothing else. Any other 429 while steady
   * ends the steady window (the server gave less than the count).
   */
  boolean refused(long sentNanos) {
    if (stopCount == 0) {
      return false;
    }
    if (!stopOpened && sentNanos >= stopProbeNanos
        && sentNanos < Time.add(Time.add(curHiNanos, periodHiNanos), SECOND)) {
      nextLoNanos = Math.max(nextLoNanos, sentNanos);
      stopProbing = false;
      stopSent = stopCount;
      stopNextNanos = nextTry(nextLoNanos, Time.add(curHiNanos, periodHiNanos));
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
   * {@code hiNanos}, where a request sent was admitted; {@code cycleAdmitted}: what the cycle
   * admitted so far.
   */
  void opened(long loNanos, long hiNanos, long cycleAdmitted) {
    prevLoNanos = openLoNanos;
    prevHiNanos = openHiNanos;
    openLoNanos = loNanos;
    openHiNanos = hiNanos;
    if (countOpened && stopCount == 0 && prevHiNanos != Long.MIN_VALUE) {
      counted(countAdmitted, cycleAdmitted);
    }
    countOpened = false;
  }

  /**
   * A cycle between two reopenings after bare 429s admitted {@code admitted}: when it matches
   * the cycle before (or, for the first, the first burst), the server is a steady window of that
   * count.
   */
  private void counted(long admitted, long cycleAdmitted) {
    long reference = lastCount >= 0 ? lastCount : firstBurst;
    lastCount = admitted;
    if (admitted < LEAST_COUNT || admitted != reference || openLoNanos <= prevHiNanos) {
      return; // fewer than ten: a bucket's token or two a cycle repeats by chance
    }
    stopCount = admitted;
    refLoNanos = prevLoNanos;
    refHiNanos = prevHiNanos;
    stopPeriods = 1;
    periodLoNanos = openLoNanos - prevHiNanos;
    periodHiNanos = openHiNanos - prevLoNanos;
    curLoNanos = openLoNanos;
    curHiNanos = openHiNanos;
    stopProbeNanos = openHiNanos;
    stopOpened = true;
    stopProbing = false;
    stopSent = Math.max(cycleAdmitted, cycleSent - cycleRefused);
    nextLoNanos = Time.add(curLoNanos, periodLoNanos);
    stopNextNanos = nextTry(nextLoNanos, Time.add(curHiNanos, periodHiNanos));
  }

  /** Ends the steady window: two more cycles with the same count make one again. */
  private void leave() {
    stopCount = 0;
    lastCount = -1;
    firstBurst = -1;
  }

  /**
   * When to try a reopening known to lie after {@code lo} and at or before {@code hi}: at
   * {@code hi} when that is near enough (a 16th of the period, or a second), else halfway.
   */
  private long nextTry(long lo, long hi) {
    // Never past a least period after the earliest it can open: the window after it opens no
    // sooner, so a try admitted there is in the window expected, not a later one.
    long tolerance = Math.max(SECOND, periodLoNanos / 16);
    return Math.min(hi - lo <= tolerance ? hi : lo + (hi - lo) / 2, Time.add(lo, periodLoNanos));
  }

  /** A request sent at {@code sentNanos}, at or after the predicted reopening, was admitted. */
  private void windowOpened(long sentNanos) {
    // This window's reopening lies after the next-window bound (a period's least after the last
    // one, or the last refused probe) and at or before this request: with the reference
    // window, over the whole periods between them, it bounds the period.
    stopOpened = true;
    stopProbing = false;
    long lo = nextLoNanos;
    long hi = sentNanos;
    long periods = ++stopPeriods;
    periodHiNanos = Math.max(1, Math.min(periodHiNanos, (hi - refLoNanos) / periods));
    periodLoNanos = Math.min(periodHiNanos, Math.max(periodLoNanos, (lo - refHiNanos) / periods));
    curLoNanos = lo;
    curHiNanos = hi;
    nextLoNanos = Time.add(curLoNanos, periodLoNanos);
    stopNextNanos = nextTry(nextLoNanos, Time.add(curHiNanos, periodHiNanos));
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
    cycleSent += cost;
    if (stopCount == 0) {
      return;
    }
    if (!stopProbing && stopSent >= stopCount && sendAtNanos >= stopNextNanos) {
      // The request that probes the predicted reopening: none after it until it is answered.
      if (sendAtNanos > Time.add(Time.add(curHiNanos, periodHiNanos), periodLoNanos)) {
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
