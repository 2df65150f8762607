package dev.headway.pacer;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A fractional epoch reset is exact, but measured from a whole-second {@code Date} it was read up
 * to a second late, and each window of koa-ratelimit (opened by the first request after the last
 * one ended) opened that much later. Measured from the server's clock as its answers bound it
 * (the highest of {@code Date} less the arrival), it is read within a round trip.
 */
@Timeout(60)
class ServerClockTest {
  @Test
  void koasFractionalResetIsReadAgainstTheServersClockNotItsWholeSecondDate() {
    for (long start : new long[] {0, 130, 470, 610, 990}) {
      AdvertisedWindowServersTest.Server server = AdvertisedWindowServersTest.run(
          AdvertisedWindowServersTest.Style.KOA, start, () -> Duration.ofMillis(1), 8,
          Duration.ofSeconds(60), 0);
      long admitted = server.windows.stream().mapToLong(w -> w[1]).sum();
      assertThat(admitted).as("admitted in 60 s of 20 per 4 s, start %d ms:%s", start,
          server.describe()).isGreaterThanOrEqualTo(285);
      assertThat(server.throttled).as("429s, start %d ms", start).isZero();
    }
  }
}
