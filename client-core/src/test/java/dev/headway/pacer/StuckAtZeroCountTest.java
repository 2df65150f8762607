package dev.headway.pacer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.HttpFields;
import dev.headway.Pacer;
import dev.headway.RequestInfo;
import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A server whose {@code X-RateLimit-Remaining} is stuck at 0 on its 200s (a misconfigured
 * counter) with {@code X-RateLimit-Limit: 10} and a reset at the next whole second, while it
 * admits 10 requests a second (a fixed window of a second). The pacer cannot know what it admits
 * (every answer says spent until the next second); it learns from its probes at each reset.
 * Virtual time, {@link ModelServerLoop}; 4 callers 9 ms each way, a minute.
 */
@Timeout(120)
class StuckAtZeroCountTest {
  static final RequestInfo GET = RequestInfo.get(URI.create("https://api.example.com/items"));
  static final long SECOND = 1_000_000_000L;
  static final DateTimeFormatter HTTP_DATE = DateTimeFormatter.RFC_1123_DATE_TIME;

  /**
   * Answers at {@code now}: 10 a second admitted, each said 0 left; {@code firstSays} left to the
   * very first request.
   */
  private static ModelServerLoop.Response answer(VirtualClock clock, long[] window, long now,
      long firstSays) {
    long second = Math.floorDiv(now, SECOND);
    if (second != window[0]) {
      window[0] = second;
      window[1] = 0;
    }
    boolean ok = window[1] < 10;
    if (ok) {
      window[1]++;
    }
    long left = window[2]++ == 0 ? firstSays : 0;
    Instant wall = clock.instant();
    HttpFields.Builder fields = HttpFields.builder()
        .add("Date", HTTP_DATE.format(Instant.ofEpochSecond(wall.getEpochSecond())
            .atOffset(ZoneOffset.UTC)))
        .add("X-RateLimit-Limit", "10")
        .add("X-RateLimit-Remaining", Long.toString(left))
        .add("X-RateLimit-Reset", Long.toString(wall.getEpochSecond() + 1));
    if (!ok) {
      fields.add("Retry-After", "1");
    }
    HttpFields built = fields.build();
    int status = ok ? 200 : 429;
    return new ModelServerLoop.Response(status, permit -> permit.complete(status, built, null));
  }

  private static ModelServerLoop.Counts run(long firstSays) {
    VirtualClock clock = VirtualClock.create();
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock).jitterSeed(5)
        .build();
    long[] window = {Long.MIN_VALUE, 0, 0};
    return ModelServerLoop.run(pacer, clock, GET, 4, 9_000_000L, 60 * SECOND, SECOND,
        now -> answer(clock, window, now, firstSays));
  }

  /**
   * Both first-contact probes are admitted at 0, which a bucket of one cannot do from a cold
   * start (its second probe is a 429): the count is not taken for one, and keeps its two probes
   * at each reset, as when its first answer said 9 left. Before: judged a bucket of one for good,
   * one probe at each reset, 65 admitted against 111.
   */
  @Test
  void aCountStuckAtZeroFromFirstContactGetsAsManyProbesAsOneStuckLater() {
    ModelServerLoop.Counts stuckLater = run(9);
    ModelServerLoop.Counts stuckFromStart = run(0);
    assertThat(stuckFromStart.throttledLate()).as("429s after first contact").isZero();
    assertThat(stuckFromStart.admitted()).as("admitted, stuck from first contact (%s); stuck"
        + " after it: %s", stuckFromStart, stuckLater)
        .isGreaterThanOrEqualTo(stuckLater.admitted() * 95 / 100);
  }
}
