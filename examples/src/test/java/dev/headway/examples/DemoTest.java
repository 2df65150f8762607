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
        Duration.ofMillis((long) (seconds * 1000)), 10.0, URI_,
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
  void failsWhenThePlainClientWasNeverThrottledOrWorkIsUnfinished() {
    assertThat(Demo.verdict(List.of(row(false, 0, Demo.WORK, 10), row(true, 0, 100, 10))))
        .hasSize(2)
        .anySatisfy(f -> assertThat(f).contains("never answered 429"))
        .anySatisfy(f -> assertThat(f).contains("finished only 100 of 125"));
  }
}
