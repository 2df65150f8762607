package dev.headway;

import java.time.Duration;
import java.util.Objects;

/**
 * Upper bounds on what Headway believes of a server (draft section 8.5): a value past its cap is
 * clamped to the cap and reported as a {@link SignalWarning.Kind#CAPPED} warning, except a reset:
 * a reset past {@link #maxReset()} is not believed at all, and its count is kept as if it came
 * with no reset ({@link SignalWarning.Kind#DROPPED} warning). A count that lasts until a
 * nonsense instant is not a count that lasts a day; a {@code Retry-After} past its cap is a hold,
 * and is clamped.
 *
 * <p>Defaults ({@link #defaults()}):
 *
 * <ul>
 *   <li>a reset and a {@code Retry-After} (or body hint) of at most one day: the longest window
 *       commonly documented is a daily quota (Groq's requests per day, GitHub's hourly and daily
 *       limits, the draft's {@code "daily"} examples); a longer wait is more likely a bug or an
 *       attack ({@code Retry-After: 1000000}, draft section 8.5.1) than a plan, and a client can
 *       always probe again after a day. Raise {@code maxReset} for an API whose quota resets
 *       monthly, or its count is paced without its reset;
 *   <li>a quota and a remaining count of at most 10<sup>12</sup> units: above the largest
 *       published token quotas of language-model APIs (millions to billions of tokens), far below
 *       {@code long} overflow in any rate arithmetic;
 *   <li>a policy window of at most 366 days: Kong sends per-month and per-year windows; anything
 *       longer is nonsense, and would overflow nanosecond arithmetic (a {@link Duration} of more
 *       than 292 years has no {@code toNanos()}).
 * </ul>
 *
 * <p>Immutable and thread-safe.
 *
 * @param maxReset the longest reset believed; positive
 * @param maxRetryAfter the longest {@code Retry-After} (or body hint) honoured; positive
 * @param maxQuota the largest quota believed; positive
 * @param maxRemaining the largest remaining count believed; positive
 * @param maxWindow the longest policy window believed; positive
 */
public record SanityCaps(
    Duration maxReset, Duration maxRetryAfter, long maxQuota, long maxRemaining,
    Duration maxWindow) {

  /** The default {@link #maxWindow()}: 366 days. */
  public static final Duration DEFAULT_MAX_WINDOW = Duration.ofDays(366);

  private static final SanityCaps DEFAULTS =
      new SanityCaps(Duration.ofDays(1), Duration.ofDays(1), 1_000_000_000_000L,
          1_000_000_000_000L, DEFAULT_MAX_WINDOW);

  /**
   * Validates the components.
   *
   * @param maxReset the longest reset believed; positive
   * @param maxRetryAfter the longest {@code Retry-After} (or body hint) honoured; positive
   * @param maxQuota the largest quota believed; positive
   * @param maxRemaining the largest remaining count believed; positive
   * @param maxWindow the longest policy window believed; positive
   * @throws IllegalArgumentException if a value is not positive
   */
  public SanityCaps {
    requirePositive("maxReset", maxReset);
    requirePositive("maxRetryAfter", maxRetryAfter);
    requirePositive("maxWindow", maxWindow);
    if (maxQuota <= 0) {
      throw new IllegalArgumentException("maxQuota must be positive but was " + maxQuota);
    }
    if (maxRemaining <= 0) {
      throw new IllegalArgumentException("maxRemaining must be positive but was " + maxRemaining);
    }
  }

  /**
   * Creates caps with the default {@link #maxWindow()} ({@link #DEFAULT_MAX_WINDOW}).
   *
   * @param maxReset the longest reset believed; positive
   * @param maxRetryAfter the longest {@code Retry-After} (or body hint) honoured; positive
   * @param maxQuota the largest quota believed; positive
   * @param maxRemaining the largest remaining count believed; positive
   * @throws IllegalArgumentException if a value is not positive
   */
  public SanityCaps(Duration maxReset, Duration maxRetryAfter, long maxQuota, long maxRemaining) {
    this(maxReset, maxRetryAfter, maxQuota, maxRemaining, DEFAULT_MAX_WINDOW);
  }

  /**
   * Returns the default caps described above.
   *
   * @return the shared default caps
   */
  public static SanityCaps defaults() {
    return DEFAULTS;
  }

  private static void requirePositive(String name, Duration value) {
    Objects.requireNonNull(value, name + " must not be null");
    if (value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(name + " must be positive but was " + value);
    }
  }
}
