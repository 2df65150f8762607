package dev.headway.internal.pacer;

/**
 * When this client's last admitted requests under one server policy were sent, newest last: a
 * ring that grows with them up to {@link #MAX} entries and then forgets the oldest. It tells
 * whether our own requests can account for a spent count ({@link #spentQuotaWithin}). Part of
 * its policy; under the partition's monitor.
 */
final class OwnAdmissions {
  /** The most send times kept. */
  static final int MAX = 256;

  private long[] sentNanos = new long[0];
  private int head;
  private int size;

  /** Records that our request sent at {@code sent} was admitted. */
  void admitted(long sent) {
    if (size == sentNanos.length && size < MAX) {
      long[] grown = new long[Math.min(MAX, Math.max(8, size * 2))];
      for (int i = 0; i < size; i++) {
        grown[i] = sentNanos[(head + i) % sentNanos.length];
      }
      sentNanos = grown;
      head = 0;
    }
    if (size < sentNanos.length) {
      sentNanos[(head + size) % sentNanos.length] = sent;
      size++;
    } else {
      sentNanos[head] = sent; // full: the oldest goes
      head = (head + 1) % sentNanos.length;
    }
  }

  /**
   * Whether our requests admitted lately came at least as fast as a {@code quota} per
   * {@code spanNanos} before {@code nowNanos}: the last {@code quota} of them were all sent
   * within {@code spanNanos} (a quota above {@link #MAX}: the last {@link #MAX} within their
   * share of it).
   */
  boolean spentQuotaWithin(long quota, long spanNanos, long nowNanos) {
    if (quota <= 0 || spanNanos <= 0) {
      return false;
    }
    int n = (int) Math.min(quota, MAX);
    if (size < n) {
      return false;
    }
    long span = n == quota ? spanNanos : (long) ((double) spanNanos * n / quota);
    long oldest = sentNanos[(head + size - n) % sentNanos.length];
    return Time.sub(nowNanos, oldest) <= span;
  }
}
