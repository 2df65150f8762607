package dev.headway.fleet;

import dev.headway.HttpFields;
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

/**
 * A token bucket of {@code quota} units giving one back every {@code perTokenNanos}, that tells
 * its count as {@code X-RateLimit-Limit}, {@code -Remaining} and {@code -Reset} (epoch seconds,
 * rounded up: when it is full again) with no window, a {@code Retry-After} on its 429s (whole
 * seconds, rounded up) and a whole-second {@code Date}; and closed-loop callers that send to it
 * through a pacer ({@link #callers}). Counts what it admitted and refused, the calls the pacer
 * refused and the longest wait for a permit. Virtual time; not thread-safe (the tests drive it
 * from the virtual clock's thread).
 */
final class XRateLimitBucket {
  private static final long SECOND = 1_000_000_000L;
  private static final DateTimeFormatter HTTP_DATE = DateTimeFormatter.RFC_1123_DATE_TIME;
  private static final RequestInfo GET =
      RequestInfo.get(URI.create("https://api.example.com/items"));

  private final VirtualClock clock;
  private final long quota;
  private final long perTokenNanos;
  private double tokens;
  private long last = Long.MIN_VALUE;
  long admitted;
  long throttled;
  /** Calls the pacer refused (each tried again once its required wait passed). */
  long refused;
  long longestWaitNanos;

  XRateLimitBucket(VirtualClock clock, long quota, long perTokenNanos) {
    this.clock = clock;
    this.quota = quota;
    this.perTokenNanos = perTokenNanos;
    this.tokens = quota;
  }

  /** A request arrives now: whether it was admitted (200) or refused (429), and the headers. */
  record Answer(int status, HttpFields fields) {}

  Answer handle() {
    long now = clock.read();
    double perToken = perTokenNanos;
    if (last != Long.MIN_VALUE && now > last) {
      tokens = Math.min(quota, tokens + (now - last) / perToken);
    }
    last = Math.max(last, now);
    boolean ok = tokens >= 1 - 1e-9;
    if (ok) {
      tokens = Math.max(0, tokens - 1);
      admitted++;
    } else {
      throttled++;
    }
    long toFull = (long) Math.ceil((quota - tokens) * perToken);
    Instant at = clock.instant();
    long resetEpoch = Math.floorDiv(at.getEpochSecond() * SECOND + at.getNano() + toFull
        + SECOND - 1, SECOND);
    HttpFields.Builder fields = HttpFields.builder()
        .add("Date", HTTP_DATE.format(Instant.ofEpochSecond(at.getEpochSecond())
            .atOffset(ZoneOffset.UTC)))
        .add("X-RateLimit-Limit", Long.toString(quota))
        .add("X-RateLimit-Remaining", Long.toString(ok ? (long) Math.floor(tokens + 1e-9) : 0))
        .add("X-RateLimit-Reset", Long.toString(resetEpoch));
    if (!ok) {
      long next = (long) Math.ceil((1 - tokens) * perToken);
      fields.add("Retry-After", Long.toString(Math.max(1, (next + SECOND - 1) / SECOND)));
    }
    return new Answer(ok ? 200 : 429, fields.build());
  }

  /**
   * Starts {@code callers} callers that ask {@code pacer} ({@code acquireAsync}) and send to this
   * bucket, {@code oneWay} each way, one request after another, until {@code endNanos}.
   */
  void callers(Pacer pacer, int callers, Duration oneWay, long endNanos) {
    Runnable[] call = new Runnable[1];
    call[0] = () -> {
      if (clock.read() >= endNanos) {
        return;
      }
      long asked = clock.read();
      pacer.acquireAsync(GET).whenComplete((permit, error) -> {
        if (error != null) {
          Throwable cause = error instanceof CompletionException ? error.getCause() : error;
          refused++;
          clock.schedule(call[0],
              ((RateLimitedException) cause).requiredWait().plusMillis(1));
          return;
        }
        longestWaitNanos = Math.max(longestWaitNanos, clock.read() - asked);
        clock.schedule(() -> {
          Answer answer = handle();
          clock.schedule(() -> {
            permit.complete(answer.status(), answer.fields(), null);
            call[0].run();
          }, oneWay);
        }, oneWay);
      });
    };
    for (int i = 0; i < callers; i++) {
      call[0].run();
    }
  }
}
