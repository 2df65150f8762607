package dev.headway.pacer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.HttpFields;
import dev.headway.Pacer;
import dev.headway.RequestInfo;
import dev.headway.testing.VirtualClock;
import java.net.URI;
import dev.headway.Permit;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A GCRA whose burst is one request (a quota under twenty in many gateways' defaults), told as
 * {@code X-RateLimit-Limit}, {@code -Remaining} and {@code -Reset} (epoch seconds, rounded up;
 * a whole-second {@code Date}) with no window: every answer says 0 left, and its reset is the
 * next unit. First contact shows it (the probes sent before any answer: one admitted with 0
 * left), so after each reset (and each hold) only one request goes until it is answered: a
 * second one sent with it is a 429 every time. Virtual time, {@link ModelServerLoop}.
 */
@Timeout(120)
class BucketOfOneProbesTest {
  static final RequestInfo GET = RequestInfo.get(URI.create("https://api.example.com/items"));
  static final long SECOND = 1_000_000_000L;
  static final DateTimeFormatter HTTP_DATE = DateTimeFormatter.RFC_1123_DATE_TIME;

  private final VirtualClock clock = VirtualClock.create();

  /** A GCRA of {@code quota} per {@code window} with a burst of one answers at {@code now}. */
  private ModelServerLoop.Response answer(long quota, long window, long[] tat, long now) {
    long emission = window / quota;
    long at = Math.max(tat[0], now);
    boolean ok = at <= now;
    if (ok) {
      tat[0] = at + emission;
    }
    long reset = ok ? tat[0] - now : at - now;
    Instant wall = clock.instant();
    long resetEpoch = Math.floorDiv(wall.getEpochSecond() * SECOND + wall.getNano() + reset
        + SECOND - 1, SECOND);
    HttpFields.Builder fields = HttpFields.builder()
        .add("Date", HTTP_DATE.format(Instant.ofEpochSecond(wall.getEpochSecond())
            .atOffset(ZoneOffset.UTC)))
        .add("X-RateLimit-Limit", Long.toString(quota))
        .add("X-RateLimit-Remaining", "0")
        .add("X-RateLimit-Reset", Long.toString(resetEpoch));
    if (!ok) {
      fields.add("Retry-After", Long.toString(Math.max(1, (at - now + SECOND - 1) / SECOND)));
    }
    HttpFields built = fields.build();
    int status = ok ? 200 : 429;
    return new ModelServerLoop.Response(status, permit -> permit.complete(status, built, null));
  }

  private ModelServerLoop.Counts run(long quota, long window, int callers, long seconds) {
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock).jitterSeed(5)
        .build();
    long[] tat = {Long.MIN_VALUE};
    // First contact sends the probes before anything is known (one 429 there): counted apart.
    return ModelServerLoop.run(pacer, clock, GET, callers, 9_000_000L, seconds * SECOND,
        SECOND, now -> answer(quota, window, tat, now));
  }

  @Test
  void aFastBucketOfOneGetsOneRequestAtEachResetNotTwo() {
    // 8 per 4 s: a unit every 0.5 s, 4 callers for 60 s.
    ModelServerLoop.Counts counts = run(8, 4 * SECOND, 4, 60);
    // Before (6fdb677): 59 admitted, 17 429s after first contact (2 probes at each reset into a
    // bucket of one); now 59 and none (a unit a second: the reset, read in whole seconds, is
    // all that paces it, see docs/pacer.md's known limits).
    assertThat(counts.throttledLate()).as("429s after first contact (%s admitted)",
        counts.admitted()).isZero();
    assertThat(counts.admitted()).as("admitted (%s 429s)", counts.throttled())
        .isGreaterThanOrEqualTo(59);
  }

  @Test
  void aSlowBucketOfOneGetsOneRequestAtEachResetNotTwo() {
    // 6 per 60 s: a unit every 10 s, 8 callers for 300 s.
    ModelServerLoop.Counts counts = run(6, 60 * SECOND, 8, 300);
    // Before (6fdb677): 28 admitted, 27 429s after first contact; now 28 and none.
    assertThat(counts.throttledLate()).as("429s after first contact (%s admitted)",
        counts.admitted()).isZero();
    assertThat(counts.admitted()).as("admitted (%s 429s)", counts.throttled())
        .isGreaterThanOrEqualTo(28);
  }

  /** {@code X-RateLimit} fields: {@code left} of {@code quota}, the reset {@code inSeconds} on. */
  private HttpFields counted(long quota, long left, long inSeconds) {
    Instant wall = clock.instant();
    return HttpFields.builder()
        .add("Date", HTTP_DATE.format(Instant.ofEpochSecond(wall.getEpochSecond())
            .atOffset(ZoneOffset.UTC)))
        .add("X-RateLimit-Limit", Long.toString(quota))
        .add("X-RateLimit-Remaining", Long.toString(left))
        .add("X-RateLimit-Reset", Long.toString(wall.getEpochSecond() + inSeconds))
        .build();
  }

  /** Spends the count with {@code first} then 0 left; returns how many go at its reset. */
  private long probesAtReset(long first) throws Exception {
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock).jitterSeed(5)
        .maxWait(Duration.ofMinutes(1)).build();
    pacer.acquire(GET).complete(200, counted(10, first, 3), null);
    if (first > 0) {
      pacer.acquire(GET).complete(200, counted(10, 0, 3), null); // spent by others since
    }
    List<CompletableFuture<Permit>> waiting = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      waiting.add(pacer.acquireAsync(GET));
    }
    clock.advance(Duration.ofSeconds(5)); // past the reset
    return waiting.stream().filter(CompletableFuture::isDone).count();
  }

  @Test
  void aCountFirstContactShowedAboveZeroKeepsItsTwoProbes() throws Exception {
    // A larger bucket that others keep spent (instances without a store) looks like a bucket
    // of one later on; first contact said more, and it keeps its probes.
    assertThat(probesAtReset(1)).as("probes at the reset").isEqualTo(2);
    assertThat(probesAtReset(0)).as("probes at a bucket of one's reset").isEqualTo(1);
  }
}
