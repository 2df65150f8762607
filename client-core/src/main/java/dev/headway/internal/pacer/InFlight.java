package dev.headway.internal.pacer;

import dev.headway.QuotaUnit;

/**
 * Owns what the permits in flight on one partition (or route) hold: units per {@link QuotaUnit}
 * and the number of permits. Guarded by the partition's monitor. {@link ScopedFlight} is the
 * view one scoped policy has of it.
 */
class InFlight {
  private long requests;
  private long bytes;
  private long tokens;
  private int permits;

  /**
   * Returns the units of {@code unit} in flight; 0 for concurrent requests (a concurrency cap
   * counts {@link #permits()}).
   */
  long units(QuotaUnit unit) {
    if (unit == QuotaUnit.REQUESTS) {
      return requests;
    } else if (unit == QuotaUnit.CONTENT_BYTES) {
      return bytes;
    } else if (unit == QuotaUnit.TOKENS) {
      return tokens;
    }
    return 0;
  }

  /** Returns the number of permits in flight. */
  int permits() {
    return permits;
  }

  void add(PermitImpl permit) {
    requests += permit.costRequests;
    bytes += permit.costBytes();
    tokens += permit.costTokens();
    permits++;
  }

  void remove(PermitImpl permit) {
    requests -= permit.costRequests;
    bytes -= permit.costBytes();
    tokens -= permit.costTokens();
    permits--;
  }

  /** Adds what {@code other} holds. */
  void addAll(InFlight other) {
    requests += other.requests;
    bytes += other.bytes;
    tokens += other.tokens;
    permits += other.permits;
  }

  void clear() {
    requests = 0;
    bytes = 0;
    tokens = 0;
    permits = 0;
  }
}
