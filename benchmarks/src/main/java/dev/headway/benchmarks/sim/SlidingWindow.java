package dev.headway.benchmarks.sim;

/**
 * A sliding-window counter, as Cloudflare, Kong ("sliding") and Upstash implement it: the count
 * of the previous fixed window, weighted by how much of it still overlaps the trailing window,
 * plus the current window's count, must stay within {@code quota}. It reports the remaining
 * estimate and, as those servers do, the time to the end of the current fixed window as the
 * reset — although at that instant the quota is not fully back. {@code Retry-After} is exact.
 */
public final class SlidingWindow implements ServerModel {
  private final long quota;
  private final long windowNanos;
  private final long originNanos;
  private long index = Long.MIN_VALUE;
  private long previous;
  private long current;

  /** Creates a window of {@code quota} per {@code windowNanos}; a fixed one starts at origin. */
  public SlidingWindow(long quota, long windowNanos, long originNanos) {
    this.quota = quota;
    this.windowNanos = windowNanos;
    this.originNanos = originNanos;
  }

  private void roll(long nowNanos) {
    long i = Math.floorDiv(nowNanos - originNanos, windowNanos);
    if (i != index) {
      previous = i == index + 1 ? current : 0;
      current = 0;
      index = i;
    }
  }

  private double estimate(long nowNanos) {
    long start = originNanos + index * windowNanos;
    double weight = 1.0 - (double) (nowNanos - start) / windowNanos;
    return previous * weight + current;
  }

  @Override
  public Decision admit(long nowNanos) {
    roll(nowNanos);
    long reset = originNanos + (index + 1) * windowNanos - nowNanos;
    double estimate = estimate(nowNanos);
    if (estimate + 1 <= quota + 1e-9) {
      current++;
      long remaining = (long) Math.max(0, Math.floor(quota - estimate - 1 + 1e-9));
      return new Decision(true, remaining, reset, 0);
    }
    return new Decision(false, 0, reset, nextAdmission(nowNanos) - nowNanos);
  }

  @Override
  public long nextAdmission(long nowNanos) {
    roll(nowNanos);
    if (estimate(nowNanos) + 1 <= quota + 1e-9) {
      return nowNanos;
    }
    long start = originNanos + index * windowNanos;
    long end = start + windowNanos;
    if (previous > 0 && current + 1 <= quota) {
      // previous * (1 - (t - start) / W) + current + 1 <= quota, solved for t.
      double fraction = 1.0 - (quota - current - 1) / (double) previous;
      long t = start + (long) Math.ceil(fraction * windowNanos) + 1;
      if (t < end) {
        return Math.max(nowNanos, t);
      }
    }
    // Next window: previous becomes current, current 0; solve there (+1 ns against rounding).
    double fraction = current == 0 ? 0 : 1.0 - (quota - 1) / (double) current;
    return end + (long) Math.ceil(Math.max(0, fraction) * windowNanos) + 1;
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
