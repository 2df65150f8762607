package dev.headway.internal.pacer;

/**
 * Owns whether one server policy refills continuously (token bucket, GCRA, sliding window: units
 * come back all the time, not all at the reset) and, if so, how it is paced: from the instant
 * the server counted the last answered request, one unit per window / quota, slowed down by the
 * server's 429s. Part of its {@link ServerPolicy}; under the partition's monitor.
 */
final class RefillPacing {
  /** The slowest refill pacing: 16 times quota / window (several instances sharing the key). */
  static final int MAX_SLOWDOWN = 15 * 1024;

  /** The server showed that it gives units back before its reset. */
  boolean refilling;
  /**
   * The server's resets came round sooner than its window (a bucket's next unit): a 429 at
   * such a reset does not make it a fixed window.
   */
  boolean shortResets;
  /** The count the server itself reported in the response that set the policy's value. */
  long reported = PolicyState.UNKNOWN;
  /**
   * When the server counted that response's request, as estimated: halfway between its send and
   * its response. In refill mode the policy's count holds at this instant.
   */
  private long fromNanos;
  /**
   * How much slower than quota / window to pace in refill mode, in 1/1024ths: each 429 while
   * paced doubles it (at least 1/64), up to 15 times. A sliding window refills at the rate of the
   * previous window, which a client that lost a few units to a hold left below the quota:
   * exactly quota / window is the edge, and the server's 429s say by how much to stay below it.
   */
  private int slowdown;
  /** When the refill interval was last made longer: one doubling per overshoot. */
  private long slowedAtNanos = Long.MIN_VALUE;

  /** Whether to pace at the refill rate: refilling, with a quota and a window known. */
  boolean paced(long quota, long windowNanos) {
    return refilling && quota > 0 && windowNanos > 0;
  }

  /**
   * Whether the count {@code left}, in the response (status {@code status}) to a request
   * costing {@code cost} that the server counted after the last count, shows units given
   * back: it is above what that count left, less what the request took. A refused request
   * (status 400 or more) took nothing: a count of 0 after 0 is no rise.
   */
  boolean rose(long left, long cost, int status) {
    return reported != PolicyState.UNKNOWN && left > reported - (status >= 400 ? 0 : cost);
  }

  /**
   * Records the server's count {@code count} for a request sent at {@code sentNanos} and
   * answered at {@code nowNanos}.
   */
  void counted(long count, long sentNanos, long nowNanos) {
    reported = count;
    fromNanos = sentNanos + Math.max(0, nowNanos - sentNanos) / 2;
  }

  /**
   * Returns when {@code needed} more units than the count have come back. In refill mode the
   * server's count grows by one every window / quota from the instant it was counted, up to
   * the quota: a request may go once the count, less what is in flight, covers it. Requests
   * committed for later are in flight, so a queue of callers is spaced one refill interval
   * apart, and nothing waits for a reset that, for these servers, only says when the quota is
   * entirely back (draft section 4.1.2).
   */
  long backAt(long needed, long quota, long windowNanos) {
    long perUnitNanos = Math.max(1, (windowNanos + quota - 1) / quota);
    perUnitNanos = Time.add(perUnitNanos, Time.mul(perUnitNanos / 1024, slowdown));
    return Time.add(fromNanos, Time.mul(needed, perUnitNanos));
  }

  /** Records a successful response while paced at the refill rate: speed up again slowly. */
  void admitted() {
    slowdown -= slowdown >> 8;
  }

  /** Records a 429 while paced at the refill rate: pace slower from now on. */
  void throttled(long sentNanos, long nowNanos) {
    if (sentNanos < slowedAtNanos) {
      return; // sent before the last slowdown: the same overshoot, already answered
    }
    slowedAtNanos = nowNanos;
    slowdown = Math.min(MAX_SLOWDOWN, Math.max(16, slowdown * 2));
  }
}
