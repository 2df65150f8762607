package dev.headway.benchmarks.sim;

/**
 * A fixed window: at most {@code quota} requests in each window {@code [origin + kW, origin +
 * (k+1)W)}. Reports the remaining count and the time to the window's end (express-rate-limit,
 * Envoy, most gateways).
 */
public final class FixedWindow implements ServerModel {
  private final long quota;
  private final long windowNanos;
  private final long originNanos;
  private long index = Long.MIN_VALUE;
  private long count;

  /** Creates a window of {@code quota} per {@code windowNanos}, one starting at originNanos. */
  public FixedWindow(long quota, long windowNanos, long originNanos) {
    this.quota = quota;
    this.windowNanos = windowNanos;
    this.originNanos = originNanos;
  }

  private void roll(long nowNanos) {
    long i = Math.floorDiv(nowNanos - originNanos, windowNanos);
    if (i != index) {
      index = i;
      count = 0;
    }
  }

  private long windowEnd() {
    return originNanos + (index + 1) * windowNanos;
  }

  @Override
  public Decision admit(long nowNanos) {
    roll(nowNanos);
    long reset = windowEnd() - nowNanos;
    if (count < quota) {
      count++;
      return new Decision(true, quota - count, reset, 0);
    }
    return new Decision(false, 0, reset, reset);
  }

  @Override
  public long nextAdmission(long nowNanos) {
    roll(nowNanos);
    return count < quota ? nowNanos : windowEnd();
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
