package dev.headway.interop;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;

/**
 * What each cell must show (docs/interop.md).
 *
 * <p>Every cell: no call fails other than by a 429. A server that advertises its quota: no 429
 * after the first window and at least {@value #MIN_GOODPUT_PERCENT}% of the allowance. Any other
 * server: all three targets below. A {@link KnownShortfalls known shortfall} replaces the targets
 * it misses (never the advertising servers' "no 429 after the first window") with its bound, and
 * fails the cell once the targets are met, so that the entry goes and the gain is kept.
 */
final class Expectations {
  /** At most this share of the requests on the wire answered 429. */
  static final double MAX_THROTTLED_PERCENT = 3.0;
  /** At least this share of the documented allowance answered 2xx. */
  static final double MIN_GOODPUT_PERCENT = 90.0;
  /** After the first two windows, at most this many 429s a minute. */
  static final double MAX_THROTTLED_PER_MINUTE_AFTER_TWO_WINDOWS = 1.0;

  private Expectations() {}

  static void check(Cell cell) {
    assertThat(cell.tally().errors())
        .as("%s: calls that failed other than by a 429", cell.detail())
        .isZero();
    boolean advertises = cell.limiter().family == Limiter.Family.ADVERTISES;
    if (advertises) {
      assertThat(cell.throttledAfterOneWindow())
          .as("%s: 429s after the first window", cell.detail())
          .isLessThanOrEqualTo(KnownShortfalls.stragglers(cell.limiter(), cell.adapter()));
    }
    Optional<KnownShortfalls.Shortfall> known = KnownShortfalls.of(cell.limiter());
    if (known.isEmpty()) {
      assertThat(cell.goodputPercent()).as("%s: goodput, %% of the allowance", cell.detail())
          .isGreaterThanOrEqualTo(MIN_GOODPUT_PERCENT);
      if (!advertises) {
        assertThat(cell.throttledPercent()).as("%s: 429s, %% of requests", cell.detail())
            .isLessThanOrEqualTo(MAX_THROTTLED_PERCENT);
        assertThat(cell.throttledPerMinuteAfterTwoWindows())
            .as("%s: 429s a minute after the first two windows", cell.detail())
            .isLessThanOrEqualTo(MAX_THROTTLED_PER_MINUTE_AFTER_TWO_WINDOWS);
      }
      return;
    }
    KnownShortfalls.Shortfall shortfall = known.get();
    assertThat(shortfall.failsWhenGone()
        && (advertises ? cell.goodputPercent() >= MIN_GOODPUT_PERCENT : meetsTargets(cell)))
        .as("%s meets every target now: remove %s from KnownShortfalls (and update docs/"
            + "benchmarks.md), so that the gain is kept", cell.detail(), cell.limiter())
        .isFalse();
    assertThat(cell.throttledPercent())
        .as("%s: 429s, %% of requests, worse than the known shortfall (%s)", cell.detail(),
            shortfall.measured())
        .isLessThanOrEqualTo(shortfall.maxThrottledPercent());
    assertThat(cell.goodputPercent())
        .as("%s: goodput, worse than the known shortfall (%s)", cell.detail(),
            shortfall.measured())
        .isGreaterThanOrEqualTo(shortfall.minGoodputPercent());
  }

  static boolean meetsTargets(Cell cell) {
    return cell.throttledPercent() <= MAX_THROTTLED_PERCENT
        && cell.goodputPercent() >= MIN_GOODPUT_PERCENT
        && cell.throttledPerMinuteAfterTwoWindows() <= MAX_THROTTLED_PER_MINUTE_AFTER_TWO_WINDOWS;
  }
}
