package dev.headway.internal.pacer;

/**
 * The refill rate of a count whose headers give no window, learned from how its reset moves
 * with the units taken: 0 until known. A bucket (token bucket, GCRA) reports as its reset when
 * it is full again. That instant moves on by exactly one refill interval for each unit taken and
 * stands still otherwise, as long as the bucket is not full; a bucket that stood full in between
 * moved it on by that time as well. So over any stretch of answers, the move of the bucket's
 * instant divided by the units the server counted in between is at least the refill interval:
 * paced at it, the client never takes units faster than they come back.
 *
 * <p>What the answers say of that instant is coarse: a reset in whole seconds rounded up, read
 * against a whole-second {@code Date}, lies up to two seconds and the round trip after it. So a
 * stretch's move is taken from the start's reset less those two seconds and its round trip to
 * the end's reset, over the units admitted after the start up to and with the end, for every
 * stretch whose reset moved at least two seconds (starts are kept one a second, the last 64):
 * the smallest is the bound, and it tightens as the stretches lengthen. Answers still in flight
 * are not counted, and other clients' units move the reset uncounted: both only lengthen it.
 *
 * <p>A window's reset stands still while it admits its units and moves on by a whole window once
 * it has passed: a move of two seconds or more once the reset it leaves may have passed ends
 * every stretch (as does a bucket that stood full two seconds, or whose units take two seconds
 * each), so a window's units are never set against a move. Its bound is used only for a count
 * that gives units back before its reset and has no other window (see
 * {@link ServerPolicy#refillWindow}). Part of its {@link ServerPolicy}; under the partition's
 * monitor.
 */
final class BucketRate {
  private static final long ONE_SECOND_NANOS = 1_000_000_000L;
  /** How many stretches' starts are kept (one a second of the reset's move at most). */
  private static final int STARTS = 64;
  /** The shortest move of the reset a bound is taken over. */
  private static final long MIN_MOVE_NANOS = 2 * ONE_SECOND_NANOS;
  /** A reset this near its send, as read, is a bucket's (a log's trails by its window). */
  private static final long NEAR_NANOS = 3 * ONE_SECOND_NANOS;

  /** The latest reset reported; Long.MIN_VALUE before any. */
  private long latestNanos = Long.MIN_VALUE;
  /** Units admitted, over every answer counted. */
  private long units;
  /**
   * Where each stretch starts: the reset its answer reported, the earliest the bucket's own
   * "full again" can have been then, and the units up to and with it.
   */
  private final long[] startReset = new long[STARTS];
  private final long[] startLow = new long[STARTS];
  private final long[] startUnits = new long[STARTS];
  /** When the request of each stretch's first answer was sent. */
  private final long[] startSent = new long[STARTS];
  /**
   * Whether the reset ran ahead of the clock: over a stretch it moved on by more than the time
   * between the sends, beyond its rounding (units taken faster than they come back).
   */
  private boolean ahead;
  /**
   * Whether an answer's reset was within a second of its send, as read (a whole second rounded
   * up, against a whole-second {@code Date}: up to two seconds and the round trip late).
   */
  private boolean near;
  private int starts;
  private int next;
  /** The reset of the latest start. */
  private long lastStartNanos = Long.MIN_VALUE;
  /** The refill interval bound of the last answer; 0 if none. */
  private long intervalNanos;

  /**
   * Counts an admitted answer costing {@code cost} that reported {@code resetAt}
   * (Long.MIN_VALUE if none), to a request sent at {@code sentNanos} and answered at
   * {@code nowNanos}.
   */
  void answered(long resetAt, long cost, int status, long sentNanos, long nowNanos) {
    if (resetAt == Long.MIN_VALUE || status >= 400 || cost <= 0) {
      return;
    }
    units = Time.add(units, cost);
    long trip = Math.max(0, Time.sub(nowNanos, sentNanos));
    if (latestNanos != Long.MIN_VALUE && Time.sub(resetAt, latestNanos) >= MIN_MOVE_NANOS
        && sentNanos >= Time.sub(latestNanos, Time.add(MIN_MOVE_NANOS, trip))) {
      // Two seconds or more, once the reset it leaves may have passed (each read up to a second
      // and the round trip late): a window's move (or a bucket that stood full, or one whose
      // units each take two seconds or more). No stretch spans it: a window's reset stands still
      // within the window and moves by a whole one after it, so its units are never set against
      // a move.
      starts = 0;
      next = 0;
      lastStartNanos = Long.MIN_VALUE;
    }
    latestNanos = latestNanos == Long.MIN_VALUE ? resetAt : Math.max(latestNanos, resetAt);
    near |= Time.sub(resetAt, sentNanos) < Time.add(NEAR_NANOS, trip);
    long bound = Long.MAX_VALUE;
    for (int i = 0; i < starts; i++) {
      long counted = units - startUnits[i];
      if (counted > 0 && Time.sub(resetAt, startReset[i]) >= MIN_MOVE_NANOS) {
        bound = Math.min(bound, Time.sub(resetAt, startLow[i]) / counted);
        ahead |= Time.sub(resetAt, startReset[i])
            >= Time.add(Time.sub(sentNanos, startSent[i]), Time.add(MIN_MOVE_NANOS, trip));
      }
    }
    intervalNanos = bound == Long.MAX_VALUE ? intervalNanos : bound;
    if (lastStartNanos == Long.MIN_VALUE
        || Time.sub(resetAt, lastStartNanos) >= ONE_SECOND_NANOS) {
      // The reset is a whole second rounded up, read against a whole-second Date: the bucket's
      // own instant lies within two seconds and the round trip before it.
      startReset[next] = resetAt;
      startLow[next] = Time.sub(resetAt,
          Time.add(2 * ONE_SECOND_NANOS, trip));
      startUnits[next] = units;
      startSent[next] = sentNanos;
      next = (next + 1) % STARTS;
      starts = Math.min(starts + 1, STARTS);
      lastStartNanos = resetAt;
    }
  }

  /** The refill interval bound (the longest a unit can take to come back); 0 if not known. */
  long intervalNanos() {
    // Only below a second a unit: a reset in whole seconds cannot say when such a bucket's next
    // unit is back; a slower one's reset and count say it well enough.
    return (ahead || near) && intervalNanos < ONE_SECOND_NANOS ? intervalNanos : 0;
  }
}
