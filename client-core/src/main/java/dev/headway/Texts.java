package dev.headway;

import dev.headway.internal.pacer.DurationText;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;

/** How the public values print themselves: durations as {@link DurationText} reads them, unknown
 *  values as {@code ?}. */
final class Texts {
  private Texts() {}

  /**
   * Returns {@code duration} as a user reads it ({@link DurationText}): {@code 0.48 s},
   * {@code 30 s}; below what two decimals of a second show, {@code 4.99 ms}, {@code 1 ns}.
   */
  static String seconds(Duration duration) {
    return DurationText.of(duration);
  }

  static String count(OptionalLong value) {
    return value.isPresent() ? Long.toString(value.getAsLong()) : "?";
  }

  static String seconds(Optional<Duration> duration) {
    return duration.map(Texts::seconds).orElse("?");
  }
}
