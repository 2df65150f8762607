package dev.headway.benchmarks.sim;

/**
 * The generic cell rate algorithm (redis-cell, throttled, many API gateways): one request per
 * emission interval {@code T = window / quota}, with a burst of {@code burst} requests. State is
 * the theoretical arrival time (TAT). Reports the remaining burst and, as the reset, the time
 * until the limit is entirely back ({@code TAT - now}); {@code Retry-After} is exact.
 */
public final class Gcra implements ServerModel {
  private final long quota;
  private final long windowNanos;
  private final long emissionNanos;
  private final long toleranceNanos;
  private long tatNanos = Long.MIN_VALUE;

  /** Creates a limit of {@code quota} per {@code windowNanos} with bursts of {@code burst}. */
  public Gcra(long quota, long windowNanos, long burst) {
    this.quota = quota;
    this.windowNanos = windowNanos;
    this.emissionNanos = windowNanos / quota;
    this.toleranceNanos = emissionNanos * (burst - 1);
  }

  @Override
  public Decision admit(long nowNanos) {
    long tat = Math.max(tatNanos, nowNanos);
    if (tat - nowNanos <= toleranceNanos) {
      tatNanos = tat + emissionNanos;
      long remaining = (toleranceNanos - (tatNanos - nowNanos) + emissionNanos) / emissionNanos;
      return new Decision(true, Math.max(0, remaining), tatNanos - nowNanos, 0);
    }
    return new Decision(false, 0, tat - nowNanos, tat - toleranceNanos - nowNanos);
  }

  @Override
  public long nextAdmission(long nowNanos) {
    long tat = Math.max(tatNanos, nowNanos);
    return Math.max(nowNanos, tat - toleranceNanos);
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
