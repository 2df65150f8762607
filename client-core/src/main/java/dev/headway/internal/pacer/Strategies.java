package dev.headway.internal.pacer;

import dev.headway.PacingStrategy;

/** The provided {@link PacingStrategy} implementations. */
public final class Strategies {
  /** Spreads the remaining units evenly over the time to reset. */
  public static final PacingStrategy SPREAD = new Spread();

  /** No spacing at all. */
  public static final PacingStrategy USE_ALL = new UseAll();

  private Strategies() {}

  /** Returns burst-then-spread with the given low-water fraction. */
  public static PacingStrategy burstThenSpread(double lowWaterFraction) {
    if (!(lowWaterFraction >= 0 && lowWaterFraction <= 1)) {
      throw new IllegalArgumentException("lowWaterFraction must be in [0, 1] but was "
          + lowWaterFraction);
    }
    return new BurstThenSpread(lowWaterFraction);
  }

  /**
   * Returns the least {@code available} from which {@code strategy} leaves no gap, for every
   * larger {@code available} and every time to reset, for a policy of {@code quota} (negative:
   * unknown, so the limit is {@code available} itself) with a reset time or not
   * ({@code timed}); Long.MAX_VALUE if there is none or it cannot be known (a strategy of the
   * user's). The {@link FastLane} hands out permits only from there up.
   */
  static long burstFloor(PacingStrategy strategy, long quota, boolean timed) {
    if (strategy instanceof UseAll || (!timed
        && (strategy instanceof Spread || strategy instanceof BurstThenSpread))) {
      return 1; // no reset time: the time to reset is 0, and evenly() is 0
    }
    if (strategy instanceof BurstThenSpread burst) {
      if (quota >= 0) {
        return (long) Math.ceil(burst.fraction * quota) + 1;
      }
      // The limit is available itself: no gap while available > ceil(fraction * available),
      // which holds once available * (1 - fraction) >= 1.
      return burst.fraction >= 1 ? Long.MAX_VALUE
          : (long) Math.floor(1 / (1 - burst.fraction)) + 1;
    }
    return Long.MAX_VALUE;
  }

  static long evenly(long available, long timeToResetNanos) {
    return available <= 0 || timeToResetNanos <= 0 ? 0 : timeToResetNanos / available;
  }

  private static final class Spread implements PacingStrategy {
    @Override
    public long spacingNanos(long available, long limit, long timeToResetNanos) {
      return evenly(available, timeToResetNanos);
    }

    @Override
    public String toString() {
      return "spread";
    }
  }

  private static final class UseAll implements PacingStrategy {
    @Override
    public long spacingNanos(long available, long limit, long timeToResetNanos) {
      return 0;
    }

    @Override
    public String toString() {
      return "useAllThenWait";
    }
  }

  private static final class BurstThenSpread implements PacingStrategy {
    private final double fraction;

    BurstThenSpread(double fraction) {
      this.fraction = fraction;
    }

    @Override
    public long spacingNanos(long available, long limit, long timeToResetNanos) {
      double lowWater = Math.ceil(fraction * limit);
      if (available > lowWater) {
        return 0;
      }
      return evenly(available, timeToResetNanos);
    }

    @Override
    public String toString() {
      return "burstThenSpread(" + fraction + ")";
    }
  }
}
