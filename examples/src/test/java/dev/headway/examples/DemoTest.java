package dev.headway.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The demo's verdict fails on exactly what the README promises it fails on. */
class DemoTest {
  private static final URI URI_ = URI.create("http://127.0.0.1:1/");
  private static final Pacer PACER = Pacer.create();

  private static Demo.Row row(boolean headway, long throttled, long ok, double seconds) {
    return new Demo.Row(1, headway ? "Headway" : "plain", ok + throttled, ok, throttled, 0, 0,
        Duration.ofMillis((long) (seconds * 1000)), 10.0, Duration.ofSeconds(10), URI_,
        headway ? Optional.of(PACER) : Optional.empty(), Optional.empty());
  }

  @Test
  void passesWhenHeadwayHasNo429AndEnoughRateAndPlainWasThrottled() {
    assertThat(Demo.verdict(List.of(row(false, 500, Demo.WORK, 10), row(true, 0, Demo.WORK, 12))))
        .isEmpty();
  }

  @Test
  void failsOnASingleHeadway429() {
    assertThat(Demo.verdict(List.of(row(false, 500, Demo.WORK, 10), row(true, 1, Demo.WORK, 10))))
        .singleElement().asString().contains("was answered 429 1 times");
  }

  @Test
  void failsBelowNinetyPercentOfTheAllowedRate() {
    // 125 requests in 14 s is 8.9/s against 10/s allowed.
    assertThat(Demo.verdict(List.of(row(false, 500, Demo.WORK, 10), row(true, 0, Demo.WORK, 14))))
        .singleElement().asString().contains("reached 89% of the allowed rate");
  }

  @Test
  void theConclusionSaysWhatThePlainClientPaidForTheSameTime() {
    assertThat(Demo.conclusion(List.of(row(false, 540, Demo.WORK, 10.2),
        row(true, 0, Demo.WORK, 10.3))))
        .containsExactly(
            "Every client finished within 0.3 s of the earliest instant the quota allows for"
                + " 125 requests.",
            "Plain OkHttp sent 5.3 requests per success (the rest were answered 429); Headway's"
                + " clients sent each request once.");
  }

  @Test
  void theEarliestFinishIsWholeWindowsOrTheBucketsRefill() {
    QuotaServer.Config fixed = new QuotaServer.Config(QuotaServer.Style.IETF, 50,
        Duration.ofSeconds(5), 0, 0, java.time.Instant.EPOCH);
    assertThat(fixed.earliestFinish(125, Duration.ZERO)).isEqualTo(Duration.ofSeconds(10));
    assertThat(fixed.earliestFinish(50, Duration.ZERO)).isEqualTo(Duration.ZERO);
    // Started 1.5 s into the first window: two more windows still to open, 8.5 s away.
    assertThat(fixed.earliestFinish(125, Duration.ofMillis(1500)))
        .isEqualTo(Duration.ofMillis(8500));
    // Started 6 s late: the first window is gone; the windows at 5 s (already open), 10 s and
    // 15 s admit the work, so the last one opens 9 s after the start.
    assertThat(fixed.earliestFinish(125, Duration.ofSeconds(6))).isEqualTo(Duration.ofSeconds(9));
    QuotaServer.Config bucket = new QuotaServer.Config(QuotaServer.Style.IETF, 1000,
        Duration.ofSeconds(5), 40, 20, java.time.Instant.EPOCH);
    assertThat(bucket.earliestFinish(125, Duration.ZERO)).isEqualTo(Duration.ofMillis(4250));
  }

  @Test
  void failsWhenThePlainClientWasNeverThrottledOrWorkIsUnfinished() {
    assertThat(Demo.verdict(List.of(row(false, 0, Demo.WORK, 10), row(true, 0, 100, 10))))
        .hasSize(2)
        .anySatisfy(f -> assertThat(f).contains("never answered 429"))
        .anySatisfy(f -> assertThat(f).contains("finished only 100 of 125"));
  }
}
