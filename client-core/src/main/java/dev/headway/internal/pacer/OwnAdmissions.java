package dev.headway.internal.pacer;

import java.util.Arrays;

/**
 * How many of this client's requests one server policy admitted lately, counted by when they
 * were sent in {@link #SLOTS} slots of an eighth of a span (two of the policy's windows) each:
 * a few dozen bytes however many requests, so that a policy's memory does not grow with its
 * quota. It tells whether our own requests can account for a spent count
 * ({@link #spentQuotaWithin}). Part of its policy; under the partition's monitor.
 */
final class OwnAdmissions {
  /** Slots per span; the count covers the last {@code SLOTS - 1} whole slots and the current. */
  static final int SLOTS = 8;

  /** Admitted sends per slot, slot {@code s} at {@code floorMod(s, SLOTS)}. */
  private final int[] counts = new int[SLOTS];
  /** The width of a slot; 0 before the first admission with a known span. */
  private long slotNanos;
  /** The newest slot counted into. */
  private long newest;

  /**
   * Records that our request sent at {@code sent} was admitted, {@code spanNanos} being two of
   * the policy's windows (0 when not known: nothing is recorded). A new span starts the count
   * anew.
   */
  void admitted(long sent, long spanNanos) {
    if (spanNanos <= 0) {
      return;
    }
    long width = Math.max(1, spanNanos / SLOTS);
    long slot = Math.floorDiv(sent, width);
    if (width != slotNanos) {
      Arrays.fill(counts, 0);
      slotNanos = width;
      newest = slot;
    }
    if (slot > newest) {
      for (long s = newest + 1, end = Math.min(slot, newest + SLOTS); s <= end; s++) {
        counts[(int) Math.floorMod(s, SLOTS)] = 0;
      }
      newest = slot;
    }
    if (newest - slot < SLOTS) {
      counts[(int) Math.floorMod(slot, SLOTS)]++;
    }
  }

  /**
   * Whether at least {@code quota} of our requests the policy admitted were sent within the last
   * {@code spanNanos} before {@code nowNanos}: the last quota of them all were. The span counted
   * is the current slot and the {@code SLOTS - 1} before it, between seven eighths of
   * {@code spanNanos} and all of it (never more: a send older than the span is not counted).
   */
  boolean spentQuotaWithin(long quota, long spanNanos, long nowNanos) {
    if (quota <= 0 || spanNanos <= 0 || slotNanos != Math.max(1, spanNanos / SLOTS)) {
      return false;
    }
    long nowSlot = Math.floorDiv(nowNanos, slotNanos);
    long total = 0;
    for (long s = nowSlot - (SLOTS - 1); s <= Math.min(nowSlot, newest); s++) {
      if (s > newest - SLOTS) {
        total += counts[(int) Math.floorMod(s, SLOTS)];
      }
    }
    return total >= quota;
  }
}
