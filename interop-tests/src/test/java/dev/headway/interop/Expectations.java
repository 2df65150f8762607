package dev.headway.interop;

import static org.assertj.core.api.Assertions.assertThat;

/** What each cell must show (see docs/interop.md). */
final class Expectations {
  private Expectations() {}

  static void check(Cell cell) {
    assertThat(cell.tally().errors()).as("%s: calls that failed other than by a 429", cell.row())
        .isZero();
    if (cell.limiter().family == Limiter.Family.ADVERTISES) {
      assertThat(cell.throttledAfterOneWindow()).as("%s: 429s after the first window", cell.row())
          .isZero();
      assertThat(cell.goodputPercent()).as("%s: goodput, %% of the allowance", cell.row())
          .isGreaterThanOrEqualTo(90.0);
    }
  }
}
