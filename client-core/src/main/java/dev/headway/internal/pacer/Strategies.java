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
