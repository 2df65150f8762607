package dev.headway.pacer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.HttpFields;
import dev.headway.Pacer;
import dev.headway.Permit;
import dev.headway.PolicySnapshot;
import dev.headway.RequestInfo;
import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The length of a window inferred from {@code X-RateLimit-Reset} (epoch seconds) read against a
 * whole-second {@code Date}: every reset the pacer reads is late by the part of a second its
 * response's {@code Date} dropped, so one window's resets spread over a second. A fixed window
 * of 50 per 5 s, answered after 20 ms each way, asked at phases across the second: the window
 * shown by {@code quota(uri)} is the server's 5 s, never shorter (a shorter one paces a sliding
 * window too fast). Virtual time.
 */
class InferredWindowLengthTest {
  private static final URI API = URI.create("https://api.example.com/items");
  private static final RequestInfo GET = RequestInfo.get(API);
  private static final DateTimeFormatter HTTP_DATE = DateTimeFormatter.RFC_1123_DATE_TIME;
  private static final long SECOND = 1_000_000_000L;
  private static final long WINDOW = 5 * SECOND;
  private static final long QUOTA = 50;

  private final VirtualClock clock = VirtualClock.create(); // starts on a whole second

  @ParameterizedTest(name = "one request every {0} ms")
  @ValueSource(ints = {130, 170, 230, 290, 370})
  void aFiveSecondWindowReadThroughWholeSecondDatesIsInferredAsFiveSecondsNotFour(int gapMillis) {
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .jitterSeed(3).build();
    long[] admitted = new long[64];
    long end = 40 * SECOND;
    while (clock.read() < end) {
      Permit permit = pacer.tryAcquire(GET).orElse(null);
      if (permit == null) {
        clock.advance(Duration.ofMillis(10));
        continue;
      }
      clock.advance(Duration.ofMillis(20));
      int window = (int) (clock.read() / WINDOW);
      boolean ok = admitted[window] < QUOTA;
      if (ok) {
        admitted[window]++;
      }
      long resetEpoch = VirtualClock.DEFAULT_EPOCH.getEpochSecond() + (window + 1) * 5L;
      Instant now = clock.instant();
      HttpFields.Builder fields = HttpFields.builder()
          .add("Date", HTTP_DATE.format(Instant.ofEpochSecond(now.getEpochSecond())
              .atOffset(ZoneOffset.UTC)))
          .add("X-RateLimit-Limit", Long.toString(QUOTA))
          .add("X-RateLimit-Remaining", Long.toString(QUOTA - admitted[window]))
          .add("X-RateLimit-Reset", Long.toString(resetEpoch));
      clock.advance(Duration.ofMillis(20));
      permit.complete(ok ? 200 : 429, fields.build(), null);
      clock.advance(Duration.ofMillis(gapMillis));
    }
    PolicySnapshot policy = pacer.quota(API).policy("default").orElseThrow();
    assertThat(policy.window()).as(policy.toString()).hasValue(Duration.ofSeconds(5));
    assertThat(policy.learned()).isTrue();
  }
}
