package dev.headway.internal.pacer;

import java.util.Arrays;

/**
 * The answers whose counts a {@link HeldCount} did not take, as (time of the answer, units, the
 * count it said, when its request was sent), oldest first: a count taken later forgets those
 * that arrived before its own request was sent (the server counted them before it). A ring
 * that grows with the answers outstanding at once and never shrinks; past {@link #MAX} entries
 * the two oldest merge into one, at the later time (and the later send), which only keeps
 * units a little longer. Part of its count; under the partition's monitor.
 */
final class UntakenAnswers {
  /** The most entries kept: more answers at once than callers a partition usually has. */
  static final int MAX = 1024;

  private long[] atNanos = new long[0];
  private long[] units = new long[0];
  /** The lowest count each entry's answers said (merged entries keep the lower). */
  private long[] counts = new long[0];
  /**
   * When each entry's request was sent (merged entries keep the later; Long.MIN_VALUE: not
   * said).
   */
  private long[] sentNanos = new long[0];
  private int head;
  private int size;
  /** The units of every answer kept. */
  private long total;

  /** Returns the units of every answer kept. */
  long units() {
    return total;
  }

  /**
   * Returns the lowest count the answers kept said ({@code Long.MAX_VALUE} if none, or none
   * said one).
   */
  long lowestCount() {
    long lowest = Long.MAX_VALUE;
    for (int i = 0; i < size; i++) {
      lowest = Math.min(lowest, counts[index(i)]);
    }
    return lowest;
  }

  /** Records an answer at {@code nowNanos} of {@code cost} units, whose count is not kept. */
  void add(long nowNanos, long cost) {
    add(nowNanos, cost, Long.MAX_VALUE);
  }

  /**
   * Records an answer at {@code nowNanos} of {@code cost} units that said {@code count} units
   * were left ({@code Long.MAX_VALUE}: none said, or of another window).
   */
  void add(long nowNanos, long cost, long count) {
    add(nowNanos, Long.MIN_VALUE, cost, count);
  }

  /**
   * Records an answer at {@code nowNanos} to a request sent at {@code sent}, of {@code cost}
   * units, that said {@code count} units were left ({@code Long.MAX_VALUE}: none said, or of
   * another window).
   */
  void add(long nowNanos, long sent, long cost, long count) {
    total = Time.add(total, cost);
    if (size > 0 && atNanos[index(size - 1)] >= nowNanos) {
      // At the same instant as the last (or, its time read a little earlier, before it): one
      // entry, at the later time.
      int last = index(size - 1);
      units[last] = Time.add(units[last], cost);
      counts[last] = Math.min(counts[last], count);
      sentNanos[last] = Math.max(sentNanos[last], sent);
      return;
    }
    if (size == atNanos.length) {
      if (size == MAX) {
        int first = head;
        head = index(1);
        size--;
        units[head] = Time.add(units[head], units[first]);
        counts[head] = Math.min(counts[head], counts[first]);
        sentNanos[head] = Math.max(sentNanos[head], sentNanos[first]);
      } else {
        grow();
      }
    }
    int at = index(size++);
    atNanos[at] = nowNanos;
    units[at] = cost;
    counts[at] = count;
    sentNanos[at] = sent;
  }

  /** Returns the units of the answers kept whose requests were sent after {@code sent}. */
  long unitsSentAfter(long sent) {
    long after = 0;
    for (int i = 0; i < size; i++) {
      if (sentNanos[index(i)] > sent) {
        after = Time.add(after, units[index(i)]);
      }
    }
    return after;
  }

  /** Forgets the counts the answers said (they are another window's); keeps their units. */
  void forgetCounts() {
    for (int i = 0; i < size; i++) {
      counts[index(i)] = Long.MAX_VALUE;
    }
  }

  /** Forgets the answers that arrived before {@code sentNanos}; returns their units. */
  long forgetBefore(long sentNanos) {
    long forgotten = 0;
    while (size > 0 && atNanos[head] < sentNanos) {
      forgotten = Time.add(forgotten, units[head]);
      head = index(1);
      size--;
    }
    total = size == 0 ? 0 : Time.sub(total, forgotten);
    return forgotten;
  }

  /** Forgets every answer. */
  void clear() {
    head = 0;
    size = 0;
    total = 0;
  }

  private int index(int i) {
    int at = head + i;
    return at >= atNanos.length ? at - atNanos.length : at;
  }

  private void grow() {
    int capacity = Math.min(MAX, Math.max(8, atNanos.length * 2));
    long[] newAt = new long[capacity];
    long[] newUnits = new long[capacity];
    long[] newCounts = new long[capacity];
    long[] newSent = new long[capacity];
    for (int i = 0; i < size; i++) {
      newAt[i] = atNanos[index(i)];
      newUnits[i] = units[index(i)];
      newCounts[i] = counts[index(i)];
      newSent[i] = sentNanos[index(i)];
    }
    atNanos = newAt;
    units = newUnits;
    counts = newCounts;
    sentNanos = newSent;
    head = 0;
  }
}
