package dev.headway.benchmarks.sim;

/** The server-side algorithms the simulator models. */
public enum ModelKind {
  /** {@link FixedWindow}. */
  FIXED_WINDOW("fixed window"),
  /** {@link SlidingWindow}. */
  SLIDING_WINDOW("sliding window"),
  /** {@link TokenBucket} with a capacity of the whole quota. */
  TOKEN_BUCKET("token bucket"),
  /** {@link Gcra} with a burst of a tenth of the quota. */
  GCRA("GCRA");

  private final String label;

  ModelKind(String label) {
    this.label = label;
  }

  /** Returns a short human label for tables. */
  public String label() {
    return label;
  }

  /**
   * Returns a fresh model.
   *
   * @param quota requests per window
   * @param windowNanos the window
   * @param originNanos a time at which a fixed window starts (windowed models only)
   */
  public ServerModel create(long quota, long windowNanos, long originNanos) {
    return switch (this) {
      case FIXED_WINDOW -> new FixedWindow(quota, windowNanos, originNanos);
      case SLIDING_WINDOW -> new SlidingWindow(quota, windowNanos, originNanos);
      case TOKEN_BUCKET -> new TokenBucket(quota, windowNanos, quota);
      case GCRA -> new Gcra(quota, windowNanos, Math.max(1, quota / 10));
    };
  }
}
