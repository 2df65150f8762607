package dev.headway.internal.pacer;

import dev.headway.store.Lease;
import org.jspecify.annotations.Nullable;

/**
 * A lease this instance holds: the units it has left, and the units it sent that the store has
 * not been told of yet, with the engine time each was sent. The store subtracts from a server
 * count every unit a lease still holds; a unit sent before the request whose response carried a
 * count is in that count already, so the instance tells the store which units it sent and when
 * ({@link dev.headway.store.QuotaStore#spent}), or the fleet would count them twice.
 *
 * <p>Send times are kept for the last {@value #TIMES} units not yet told; older ones are folded
 * into the oldest kept slot with the later time (counted a little longer, never less). Guarded by
 * the partition's monitor.
 */
final class HeldLease {
  /** Send times kept per lease. */
  static final int TIMES = 64;

  final Lease lease;
  final long untilNanos;
  /** From then on the lease lends no more units (its answers could come back too late). */
  final long closeNanos;
  long left;
  /** The latest answer to a unit of this lease (engine time), or {@code Long.MIN_VALUE}. */
  long answeredNanos = Long.MIN_VALUE;
  /** A response to a unit of this lease carried no count (told to the store at once). */
  boolean answeredUncounted;
  /** Send times of units not told yet, in the order sent (ring buffer, {@code size} used). */
  private final long[] sentAt;
  private final long[] units;
  private int first;
  private int size;
  /** The timers that settle this lease before it ends (cancelled once it is dropped). */
  private java.util.concurrent.@Nullable Future<?> closeTimer;
  private java.util.concurrent.@Nullable Future<?> endTimer;

  HeldLease(Lease lease, long left, long untilNanos, long closeNanos) {
    this.lease = lease;
    this.left = left;
    this.untilNanos = untilNanos;
    this.closeNanos = closeNanos;
    int slots = (int) Math.min(TIMES, Math.max(1, left));
    sentAt = new long[slots];
    units = new long[slots];
  }

  /** Keeps the timers that settle this lease before it ends. */
  void timers(java.util.concurrent.Future<?> close, java.util.concurrent.Future<?> end) {
    closeTimer = close;
    endTimer = end;
  }

  /** Cancels the timers: the lease was dropped (its units told or given back). */
  void cancelTimers() {
    if (closeTimer != null) {
      closeTimer.cancel(false);
      closeTimer = null;
    }
    if (endTimer != null) {
      endTimer.cancel(false);
      endTimer = null;
    }
  }

  /** Records {@code n} units taken from this lease, to be sent at {@code at}. */
  void sent(long n, long at) {
    if (n <= 0) {
      return;
    }
    left -= n;
    if (size > 0) {
      int last = (first + size - 1) % sentAt.length;
      if (sentAt[last] == at) {
        units[last] = Time.add(units[last], n);
        return;
      }
    }
    if (size == sentAt.length) {
      // Full: the oldest slot takes the next one's units and (later) time.
      int next = (first + 1) % sentAt.length;
      units[next] = Time.add(units[next], units[first]);
      first = next;
      size--;
    }
    int slot = (first + size) % sentAt.length;
    sentAt[slot] = at;
    units[slot] = n;
    size++;
  }

  /** Gives back {@code n} units taken but never sent (the latest taken first). */
  void unsent(long n) {
    left = Time.add(left, n);
    while (n > 0 && size > 0) {
      int last = (first + size - 1) % sentAt.length;
      long back = Math.min(n, units[last]);
      units[last] -= back;
      n -= back;
      if (units[last] == 0) {
        size--;
      }
    }
  }

  /**
   * Removes and returns the units not told yet that were sent at or before {@code at}, plus up
   * to {@code own} units sent at exactly {@code ownAt} (a request whose response carried the
   * count: the server counted it).
   */
  long takeCounted(long at, long own, long ownAt) {
    long taken = 0;
    while (size > 0 && sentAt[first] <= at) {
      taken = Time.add(taken, units[first]);
      first = (first + 1) % sentAt.length;
      size--;
    }
    for (int i = 0; i < size && own > 0; i++) {
      int slot = (first + i) % sentAt.length;
      if (sentAt[slot] == ownAt) {
        long n = Math.min(own, units[slot]);
        units[slot] -= n;
        own -= n;
        taken = Time.add(taken, n);
      }
    }
    compact();
    return taken;
  }

  /** Units not told yet. */
  long untold() {
    long sum = 0;
    for (int i = 0; i < size; i++) {
      sum = Time.add(sum, units[(first + i) % sentAt.length]);
    }
    return sum;
  }

  /** The latest send time of the units not told yet; {@code Long.MIN_VALUE} if none. */
  long lastSent() {
    return size == 0 ? Long.MIN_VALUE : sentAt[(first + size - 1) % sentAt.length];
  }

  /** Forgets every unit not told yet (they were told). */
  void told() {
    first = 0;
    size = 0;
  }

  private void compact() {
    int kept = 0;
    long[] times = new long[size];
    long[] counts = new long[size];
    for (int i = 0; i < size; i++) {
      int slot = (first + i) % sentAt.length;
      if (units[slot] > 0) {
        times[kept] = sentAt[slot];
        counts[kept] = units[slot];
        kept++;
      }
    }
    if (kept == size) {
      return;
    }
    System.arraycopy(times, 0, sentAt, 0, kept);
    System.arraycopy(counts, 0, units, 0, kept);
    first = 0;
    size = kept;
  }
}
