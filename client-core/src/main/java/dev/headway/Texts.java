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
    long whole = duration.getSeconds();
    if (whole >= 0 && whole < 1_000_000_000_000L) {
      // The common case in plain arithmetic (a refusal's message is built per refused call).
      long hundredths = whole * 100 + (duration.getNano() + 5_000_000L) / 10_000_000L;
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
