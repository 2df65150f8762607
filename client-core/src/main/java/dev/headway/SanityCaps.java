package dev.headway;

import java.time.Duration;
import java.util.Objects;

/**
 * Upper bounds on what Headway believes of a server (draft section 8.5): a value past its cap is
 * clamped to the cap and reported as a {@link SignalWarning.Kind#CAPPED} warning.
 *
 * <p>Defaults ({@link #defaults()}): a reset and a {@code Retry-After} of at most one day (the
 * longest window commonly documented is a daily quota; a longer value is more likely a bug or an
 * attack than a plan); a quota and a remaining count of at most 10<sup>12</sup> units (above the
 * largest published token quotas of language-model APIs, far below overflow).
 *
 * @param maxReset the longest reset honoured; positive
 * @param maxRetryAfter the longest {@code Retry-After} (or body hint) honoured; positive
 * @param maxQuota the largest quota believed; positive
 * @param maxRemaining the largest remaining count believed; positive
 */
public record SanityCaps(
    Duration maxReset, Duration maxRetryAfter, long maxQuota, long maxRemaining) {

  private static final SanityCaps DEFAULTS =
      new SanityCaps(Duration.ofDays(1), Duration.ofDays(1), 1_000_000_000_000L,
          1_000_000_000_000L);

  /** Validates the components. */
  public SanityCaps {
    requirePositive("maxReset", maxReset);
    requirePositive("maxRetryAfter", maxRetryAfter);
    if (maxQuota <= 0) {
      throw new IllegalArgumentException("maxQuota must be positive but was " + maxQuota);
    }
    if (maxRemaining <= 0) {
      throw new IllegalArgumentException("maxRemaining must be positive but was " + maxRemaining);
    }
  }

  /** Returns the default caps described above. */
  public static SanityCaps defaults() {
    return DEFAULTS;
  }

  private static void requirePositive(String name, Duration value) {
    Objects.requireNonNull(value, name);
    if (value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(name + " must be positive but was " + value);
    }
  }
}
