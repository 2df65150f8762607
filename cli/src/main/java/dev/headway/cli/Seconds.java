package dev.headway.cli;

import java.math.BigDecimal;
import java.time.Duration;

/** Converts durations to seconds as printed: whole seconds without a decimal point. */
final class Seconds {
  private Seconds() {}

  /**
   * Returns {@code duration} in seconds, exact to the nanosecond, with no trailing zeros: scale 0
   * when whole ({@code 30}), otherwise as many decimals as needed ({@code 64.57}).
   */
  static BigDecimal of(Duration duration) {
    BigDecimal seconds = BigDecimal.valueOf(duration.getSeconds())
        .add(BigDecimal.valueOf(duration.getNano(), 9));
    BigDecimal stripped = seconds.stripTrailingZeros();
    return stripped.scale() < 0 ? stripped.setScale(0) : stripped;
  }

  /** Returns {@code duration} in seconds as text, e.g. {@code "30"}, {@code "0.012"}. */
  static String text(Duration duration) {
    return of(duration).toPlainString();
  }
}
