package dev.headway.benchmarks.sim;

/**
 * A token bucket: {@code capacity} tokens, refilled continuously at {@code quota} per window; a
 * request takes one. Reports the whole tokens left and, as the reset, the time until the bucket
 * is full again (when the quota is entirely back).
 */
public final class TokenBucket implements ServerModel {
  private final long quota;
  private final long windowNanos;
  private final double capacity;
  private final double nanosPerToken;
  private double tokens;
  private long lastNanos = Long.MIN_VALUE;

  /** Creates a full bucket of {@code capacity} refilled at {@code quota} per windowNanos. */
  public TokenBucket(long quota, long windowNanos, long capacity) {
    this.quota = quota;
    this.windowNanos = windowNanos;
    this.capacity = capacity;
    this.nanosPerToken = (double) windowNanos / quota;
    this.tokens = capacity;
  }

  private void refill(long nowNanos) {
    if (lastNanos != Long.MIN_VALUE && nowNanos > lastNanos) {
      tokens = Math.min(capacity, tokens + (nowNanos - lastNanos) / nanosPerToken);
    }
    lastNanos = Math.max(lastNanos, nowNanos);
  }

  @Override
  public Decision admit(long nowNanos) {
    refill(nowNanos);
    if (tokens >= 1 - 1e-9) {
      tokens = Math.max(0, tokens - 1);
      long reset = (long) Math.ceil((capacity - tokens) * nanosPerToken);
      return new Decision(true, (long) Math.floor(tokens + 1e-9), reset, 0);
    }
    long reset = (long) Math.ceil((capacity - tokens) * nanosPerToken);
    return new Decision(false, 0, reset, (long) Math.ceil((1 - tokens) * nanosPerToken));
  }

  @Override
  public long nextAdmission(long nowNanos) {
    refill(nowNanos);
    return tokens >= 1 - 1e-9 ? nowNanos
        : nowNanos + (long) Math.ceil((1 - tokens) * nanosPerToken);
  }

  @Override
  public long quota() {
    return quota;
  }

  @Override
  public long windowNanos() {
    return windowNanos;
  }
}
