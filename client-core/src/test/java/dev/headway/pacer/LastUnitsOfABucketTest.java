package dev.headway.pacer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.HttpFields;
import dev.headway.PacingStrategy;
import dev.headway.Pacer;
import dev.headway.RateLimitedException;
import dev.headway.RequestInfo;
import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A token bucket that tells {@code X-RateLimit-Limit}, {@code -Remaining} and {@code -Reset}
 * (epoch seconds, rounded up; a whole-second {@code Date}) and no window: its reset is when it
 * is full again, up to a whole window ahead once it is nearly spent. Its last units must not
 * be waited out to that reset while the bucket gives units back (the {@code spread} strategy
 * still does: docs/pacer.md, Known limits).
 * Virtual time; callers in a closed loop, each asking {@code acquireAsync}.
 */
@Timeout(120)
class LastUnitsOfABucketTest {
  static final RequestInfo GET = RequestInfo.get(URI.create("https://api.example.com/items"));
  static final long SECOND = 1_000_000_000L;
  static final DateTimeFormatter HTTP_DATE = DateTimeFormatter.RFC_1123_DATE_TIME;

  private final VirtualClock clock = VirtualClock.create();

  /** A token bucket holding the quota, refilled at quota per window. */
  static final class TokenBucket {
    final double capacity;
    final double perToken;
    double tokens;
    long last = Long.MIN_VALUE;

    TokenBucket(long quota, long window) {
      capacity = quota;
      perToken = (double) window / quota;
      tokens = quota;
    }

    /** Admitted or not; the count left; nanoseconds to full; nanoseconds to the next token. */
    long[] admit(long now) {
      if (last != Long.MIN_VALUE && now > last) {
        tokens = Math.min(capacity, tokens + (now - last) / perToken);
      }
      last = Math.max(last, now);
      if (tokens >= 1 - 1e-9) {
        tokens = Math.max(0, tokens - 1);
        return new long[] {1, (long) Math.floor(tokens + 1e-9),
            (long) Math.ceil((capacity - tokens) * perToken), 0};
      }
      return new long[] {0, 0, (long) Math.ceil((capacity - tokens) * perToken),
          (long) Math.ceil((1 - tokens) * perToken)};
    }
  }

  private HttpFields fields(long[] answer, long quota) {
    Instant now = clock.instant();
    long resetEpoch = Math.floorDiv(now.getEpochSecond() * SECOND + now.getNano()
        + answer[2] + SECOND - 1, SECOND);
    HttpFields.Builder fields = HttpFields.builder()
        .add("Date", HTTP_DATE.format(Instant.ofEpochSecond(now.getEpochSecond())
            .atOffset(ZoneOffset.UTC)))
        .add("X-RateLimit-Limit", Long.toString(quota))
        .add("X-RateLimit-Remaining", Long.toString(answer[1]))
        .add("X-RateLimit-Reset", Long.toString(resetEpoch));
    if (answer[0] == 0) {
      fields.add("Retry-After", Long.toString(Math.max(1, (answer[3] + SECOND - 1) / SECOND)));
    }
    return fields.build();
  }

  /** What a run gave: admitted, 429s, calls refused locally, the longest time nothing was sent. */
  record Counts(long admitted, long throttled, long refused, long longestSilenceNanos) {}

  /**
   * {@code callers} callers in a closed loop for {@code seconds} on one pacer with
   * {@code strategy}, each asking {@code acquireAsync} (a refused caller comes back when told),
   * the server counting each request one way after it left and the answer one way later.
   */
  private Counts run(TokenBucket bucket, long quota, PacingStrategy strategy, int callers,
      long oneWayMillis, long seconds) {
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock).jitterSeed(7)
        .strategy(strategy).build();
    long[] counts = new long[4];
    long start = clock.read();
    long[] lastSent = {start};
    long end = start + seconds * SECOND;
    Duration oneWay = Duration.ofMillis(oneWayMillis);
    Runnable[] call = new Runnable[1];
    call[0] = () -> {
      if (clock.read() >= end) {
        return;
      }
      pacer.acquireAsync(GET).whenComplete((permit, error) -> {
        if (error != null) {
          Throwable cause = error instanceof CompletionException ? error.getCause() : error;
          counts[2]++;
          clock.schedule(call[0],
              ((RateLimitedException) cause).requiredWait().plusMillis(1));
          return;
        }
        counts[3] = Math.max(counts[3], clock.read() - lastSent[0]);
        lastSent[0] = clock.read();
        clock.schedule(() -> {
          long[] answer = bucket.admit(clock.read());
          counts[answer[0] == 1 ? 0 : 1]++;
          HttpFields fields = fields(answer, quota);
          clock.schedule(() -> {
            permit.complete(answer[0] == 1 ? 200 : 429, fields, null);
            call[0].run();
          }, oneWay);
        }, oneWay);
      });
    };
    for (int i = 0; i < callers; i++) {
      call[0].run();
    }
    while (clock.read() < end) {
      clock.advance(Duration.ofMillis(1));
    }
    counts[3] = Math.max(counts[3], end - lastSent[0]);
    return new Counts(counts[0], counts[1], counts[2], counts[3]);
  }

  @Test
  void burstThenSpreadDoesNotWaitOutTheResetAfterItsLastUnit() {
    // 84 per 43 s, a bucket of 84, one caller: 84 + 586 in 300 s.
    Counts counts = run(new TokenBucket(84, 43 * SECOND), 84, PacingStrategy.burstThenSpread(0.2),
        1, 20, 300);
    assertThat(counts.refused()).as("calls refused (%s)", counts).isZero();
    assertThat(counts.longestSilenceNanos()).as("longest time with nothing sent (%s)", counts)
        .isLessThanOrEqualTo(10 * SECOND);
    assertThat(counts.admitted()).as("admitted of 670 (%s)", counts).isGreaterThanOrEqualTo(550);
    assertThat(counts.throttled()).as("429s (%s)", counts).isLessThanOrEqualTo(3);
  }
}
