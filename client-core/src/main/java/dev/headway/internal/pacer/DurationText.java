package dev.headway.internal.pacer;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;

/**
 * How a duration reads in every message, {@code toString} and log line: in seconds, rounded to
 * two decimals with trailing zeros dropped ({@code 0.48 s}, {@code 4.9 s}, {@code 30 s},
 * {@code 3600 s}); a duration that is not zero but would round to {@code 0 s} reads in the unit
 * that shows it, cut (never rounded up) to two decimals ({@code 4.99 ms}, {@code 12.5 µs},
 * {@code 1 ns}). Locale-independent. Thread-safe (no state).
 */
public final class DurationText {
  /** Below this, a duration rounds to 0.00 s. */
  private static final long HALF_HUNDREDTH_NANOS = 5_000_000L;

  private DurationText() {}

  /**
   * Returns {@code duration} as a user reads it.
   *
   * @param duration any duration, negative included
   * @return {@code "0.48 s"}, {@code "4.99 ms"}, {@code "1 ns"}, {@code "0 s"} for zero only
   */
  public static String of(Duration duration) {
    long whole = duration.getSeconds();
    int nano = duration.getNano();
    if (whole == 0 && nano != 0 && nano < HALF_HUNDREDTH_NANOS) {
      return belowHundredth(nano);
    }
    if (whole == -1 && nano > 1_000_000_000L - HALF_HUNDREDTH_NANOS) {
      return belowHundredth(nano - 1_000_000_000L);
    }
    if (whole >= 0 && whole < 1_000_000_000_000L) {
      // The common case in plain arithmetic (a refusal's message is built per refused call).
      long hundredths = whole * 100 + (nano + 5_000_000L) / 10_000_000L;
      long units = hundredths / 100;
      int cents = (int) (hundredths % 100);
      if (cents == 0) {
        return units + " s";
      }
      if (cents % 10 == 0) {
        return units + "." + cents / 10 + " s";
      }
      return units + (cents < 10 ? ".0" : ".") + cents + " s";
    }
    BigDecimal seconds = BigDecimal.valueOf(whole)
        .add(BigDecimal.valueOf(nano, 9))
        .setScale(2, RoundingMode.HALF_UP)
        .stripTrailingZeros();
    return seconds.toPlainString() + " s";
  }

  /** {@code nanos} is not zero and shorter than 5 ms either way. */
  private static String belowHundredth(long nanos) {
    long abs = Math.abs(nanos);
    if (abs >= 1_000_000L) {
      return cut(nanos, 6) + " ms";
    }
    if (abs >= 1_000L) {
      return cut(nanos, 3) + " \u00b5s";
    }
    return nanos + " ns";
  }

  private static String cut(long nanos, int scale) {
    return BigDecimal.valueOf(nanos, scale).setScale(2, RoundingMode.DOWN).stripTrailingZeros()
        .toPlainString();
  }
}
