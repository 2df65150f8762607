package dev.headway.pacer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.PacingStrategy;
import java.time.Duration;
import java.util.Locale;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * express-rate-limit's legacy headers (a window opened by the first request, its reset an epoch
 * second rounded up) with answers that come back out of the order the server counted them in:
 * 2 ms there, 1 to 13 ms back, eight closed-loop callers. In order, 95% of the allowance
 * ({@link EpochSecondResetServersTest}); out of order, what the real {@code RestClient} and
 * {@code java.net.http} cells show (76-88%).
 *
 * <p>A known limit, measured, not fixed: the bounds below are today's figures, so that the
 * measure is kept and a change that makes it worse fails. Traced: in a burst, each count taken
 * while requests sent before its own are still in flight has those requests subtracted again
 * (the server counted them already), so the pacing spreads the "last" units to the reset and
 * commits the callers that ask meanwhile to it; the answers a few milliseconds later show 4-5
 * units left, but a caller given a time keeps it, the window's last units go at the reset (past
 * the end the opening answer gave, where the last-unit rule does not move them), and the next
 * window opens a second late. The aim is at least 90% of the allowance and no 429.
 */
@Timeout(120)
class EpochSecondResetAnswersOutOfOrderTest {
  static final long MS = 1_000_000L;

  @Test
  void answersOutOfOrderOpenMostWindowsLateButDrawAlmostNo429() {
    double sum = 0;
    long refused = 0;
    int cells = 0;
    StringBuilder all = new StringBuilder();
    for (long seed = 1; seed <= 12; seed++) {
      for (long start : new long[] {0, 470, 990}) {
        Random random = new Random(seed * 31 + start);
        EpochSecondResetServersTest.Express server =
            (EpochSecondResetServersTest.Express) SlidingLogServersTest.run(
                clock -> new EpochSecondResetServersTest.Express(clock, 20,
                    Duration.ofSeconds(4)), start, 8, Duration.ofSeconds(60),
                PacingStrategy.burstThenSpread(0.2), 2 * MS,
                () -> MS + (long) (random.nextDouble() * 12 * MS));
        double goodput = 100.0 * server.admitted.size() / (20 * 15);
        sum += goodput;
        refused += server.refused.size();
        cells++;
        all.append(String.format(Locale.ROOT, "seed %d, start %d ms: %.1f%%, %d refused%n",
            seed, start, goodput, server.refused.size()));
      }
    }
    String what = all.toString();
    // Measured on the code this test was written against: mean 76.0% (67.3-85.7%), 3 refused.
    assertThat(sum / cells).as(what).isGreaterThanOrEqualTo(72);
    assertThat(refused).as(what).isLessThanOrEqualTo(6);
  }
}
