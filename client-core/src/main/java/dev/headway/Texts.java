package dev.headway;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;

/** How the public values print themselves: durations in seconds, unknown values as {@code ?}. */
final class Texts {
  private Texts() {}

  /**
   * Returns {@code duration} in seconds, rounded to two decimals with trailing zeros dropped:
   * {@code 0.48 s}, {@code 4.9 s}, {@code 30 s}, {@code 3600 s}. Locale-independent.
   */
  static String seconds(Duration duration) {
    BigDecimal seconds = BigDecimal.valueOf(duration.getSeconds())
        .add(BigDecimal.valueOf(duration.getNano(), 9))
        .setScale(2, RoundingMode.HALF_UP)
        .stripTrailingZeros();
    return seconds.toPlainString() + " s";
  }

  static String count(OptionalLong value) {
    return value.isPresent() ? Long.toString(value.getAsLong()) : "?";
  }

  static String seconds(Optional<Duration> duration) {
    return duration.map(Texts::seconds).orElse("?");
  }
}
