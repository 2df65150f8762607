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
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code X-RateLimit-Limit}, {@code -Remaining} and {@code -Reset} (epoch seconds) with no
 * window: the pacer infers the window from how the reset moves, and paces a count that comes
 * back before its reset (a sliding window) at quota per inferred window; a fixed window and a
 * bucket keep today's behaviour. The servers below answer after 25 ms each way with real header
 * fields (a whole-second {@code Date}); virtual time throughout.
 */
@Timeout(60)
class CountsWithoutAWindowTest {
  static final RequestInfo GET = RequestInfo.get(URI.create("https://api.example.com/items"));
  static final long SECOND = 1_000_000_000L;
  static final long QUOTA = 100;
  static final long WINDOW = 60 * SECOND;
  static final DateTimeFormatter HTTP_DATE = DateTimeFormatter.RFC_1123_DATE_TIME;

  private final VirtualClock clock = VirtualClock.create();

  private Pacer pacer() {
    return Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock).jitterSeed(5).build();
  }

  /** What a server decided: admitted or not, the count left, nanoseconds to its reset. */
  record Answer(boolean ok, long remaining, long resetNanos) {}

  /** A server model; {@code now} in nanoseconds from the start. */
  interface Server {
    Answer admit(long now);
  }

  /** A sliding-window counter as Cloudflare's: the reset is the end of the fixed window. */
  static final class SlidingWindow implements Server {
    long index;
    long previous;
    long current;

    @Override
    public Answer admit(long now) {
      long i = now / WINDOW;
      if (i != index) {
        previous = i == index + 1 ? current : 0;
        current = 0;
        index = i;
      }
      double estimate = previous * (1.0 - (double) (now - i * WINDOW) / WINDOW) + current;
      long reset = (i + 1) * WINDOW - now;
      if (estimate + 1 <= QUOTA) {
        current++;
        return new Answer(true, (long) Math.floor(QUOTA - estimate - 1), reset);
      }
      return new Answer(false, 0, reset);
    }
  }

  /** A fixed window of 100 per 60 s; {@link #sent} counts requests per window. */
  static final class FixedWindow implements Server {
    final long[] sent = new long[64];
    final long[] admitted = new long[64];

    @Override
    public Answer admit(long now) {
      int i = (int) (now / WINDOW);
      sent[i]++;
      boolean ok = admitted[i] < QUOTA;
      if (ok) {
        admitted[i]++;
      }
      return new Answer(ok, QUOTA - admitted[i], (i + 1) * WINDOW - now);
    }
  }

  /** A token bucket of 100, one back every 0.6 s; the reset is when it is full again. */
  static final class TokenBucket implements Server {
    double tokens = QUOTA;
    long last;

    @Override
    public Answer admit(long now) {
      double perToken = (double) WINDOW / QUOTA;
      tokens = Math.min(QUOTA, tokens + (now - last) / perToken);
      last = now;
      boolean ok = tokens >= 1;
      if (ok) {
        tokens -= 1;
      }
      return new Answer(ok, (long) Math.floor(tokens), (long) ((QUOTA - tokens) * perToken));
    }
  }

  /**
   * GCRA of 100 per 60 s with a burst of 10: one request every 0.6 s, the limit reported is the
   * quota (100), the remaining count is the burst left and the reset is when the burst is all
   * back, at most 6 s ahead: it covers the burst, not the quota.
   */
  static final class Gcra implements Server {
    static final long EMISSION = WINDOW / QUOTA;
    static final long TOLERANCE = EMISSION * 9;
    long tat;

    @Override
    public Answer admit(long now) {
      long t = Math.max(tat, now);
      if (t - now <= TOLERANCE) {
        tat = t + EMISSION;
        long remaining = (TOLERANCE - (tat - now) + EMISSION) / EMISSION;
        return new Answer(true, Math.max(0, remaining), tat - now);
      }
      return new Answer(false, 0, t - now);
    }
  }

  /** The response's header fields: a whole-second Date, the three counts, Retry-After on 429. */
  private HttpFields fields(Answer answer) {
    Instant now = clock.instant();
    long resetEpoch = (now.getEpochSecond() * SECOND + now.getNano() + answer.resetNanos()
        + SECOND - 1) / SECOND;
    HttpFields.Builder fields = HttpFields.builder()
        .add("Date", HTTP_DATE.format(Instant.ofEpochSecond(now.getEpochSecond())
            .atOffset(ZoneOffset.UTC)))
        .add("X-RateLimit-Limit", Long.toString(QUOTA))
        .add("X-RateLimit-Remaining", Long.toString(answer.remaining()))
        .add("X-RateLimit-Reset", Long.toString(resetEpoch));
    if (!answer.ok()) {
      fields.add("Retry-After", Long.toString((answer.resetNanos() + SECOND - 1) / SECOND));
    }
    return fields.build();
  }

  /** One caller back to back for {@code seconds}. Returns {admitted, 429s}. */
  private long[] run(Pacer pacer, Server server, long seconds) {
    long admitted = 0;
    long throttled = 0;
    long end = seconds * SECOND;
    while (clock.read() < end) {
      Optional<Permit> permit = pacer.tryAcquire(GET);
      if (permit.isEmpty()) {
        clock.advance(Duration.ofMillis(10));
        continue;
      }
      clock.advance(Duration.ofMillis(25));
      Answer answer = server.admit(clock.read());
      HttpFields fields = fields(answer);
      if (answer.ok()) {
        admitted++;
      } else {
        throttled++;
      }
      clock.advance(Duration.ofMillis(25));
      permit.get().complete(answer.ok() ? 200 : 429, fields, null);
    }
    return new long[] {admitted, throttled};
  }

  @Test
  void aSlidingWindowsCountIsPacedOnceItsResetMovedOnByTheSameWindowTwice() {
    // At most 100 in any 60 s: about 1,000 in ten minutes. Waiting for each reset (the end of
    // the fixed window, when the sliding count is still nearly full) got about 57% of that.
    long[] outcome = run(pacer(), new SlidingWindow(), 600);
    assertThat(outcome[0]).as("admitted of about 1,000").isGreaterThanOrEqualTo(850);
    assertThat(outcome[1]).as("429s").isLessThanOrEqualTo(outcome[0] / 200);
  }

  @Test
  void aFixedWindowsCountKeepsItsExactBehaviour() {
    FixedWindow server = new FixedWindow();
    long[] outcome = run(pacer(), server, 600);
    assertThat(outcome[1]).as("429s").isZero();
    // Before its first reset nothing tells a fixed window from a sliding-window counter: the
    // last unit of the first window is kept for the reset (one unit, once).
    assertThat(server.admitted[0]).as("admitted in window 0").isEqualTo(QUOTA - 1);
    for (int w = 1; w < 10; w++) {
      assertThat(server.admitted[w]).as("admitted in window %d", w).isEqualTo(QUOTA);
    }
  }

  @Test
  void theInferredWindowShowsInTheQuotaMarkedLearnedWithItsConfidence() {
    Pacer pacer = pacer();
    FixedWindow server = new FixedWindow();
    run(pacer, server, 1);
    PolicySnapshot first = pacer.quota(GET.uri()).policies().get(0);
    assertThat(first.window()).as("no window before the reset moved").isEmpty();
    assertThat(first.learned()).isFalse();
    assertThat(first.limit()).hasValue(QUOTA);

    run(pacer, server, 200); // the reset moved on at 60, 120 and 180 s
    PolicySnapshot later = pacer.quota(GET.uri()).policies().get(0);
    assertThat(later.window()).as("inferred from the reset's moves").contains(
        Duration.ofSeconds(60));
    assertThat(later.learned()).isTrue();
    assertThat(later.confidence()).as("two moves agreed with the first two").isBetween(0.5, 1.0)
        .isLessThan(1.0);
    assertThat(later.limit()).as("the header's number, not a guess").hasValue(QUOTA);
    assertThat(later.toString()).contains("per 60 s").contains("learned, confidence");
  }

  @Test
  void aBucketsResetMovesWithEveryRequestAndGivesNoWindow() {
    // The reset of a bucket in use is when it is full again: it moves on with every request
    // and never passes, so no window is inferred and the count alone paces it, as before.
    long[] outcome = run(pacer(), new TokenBucket(), 600);
    assertThat(outcome[1]).as("429s").isLessThanOrEqualTo(1);
    assertThat(outcome[0]).as("admitted of the 1,100 the bucket allows")
        .isGreaterThanOrEqualTo(1_000);
  }

  @Test
  void twoClientsSharingTheCountUseItWithFew429s() {
    // Two instances, each paced at the whole inferred rate, would send twice what the window
    // gives: each 429 while paced at the guess slows it (the inferred window doubles, and the
    // refill pacing's own slowdown applies). Before the inference: about 60% of the quota.
    SlidingWindow server = new SlidingWindow();
    List<Pacer> instances = List.of(pacer(), pacer());
    long admitted = 0;
    long throttled = 0;
    long end = 900 * SECOND;
    while (clock.read() < end) {
      for (Pacer pacer : instances) {
        Optional<Permit> permit = pacer.tryAcquire(GET);
        if (permit.isEmpty()) {
          continue;
        }
        Answer answer = server.admit(clock.read() + 25_000_000L);
        if (answer.ok()) {
          admitted++;
        } else {
          throttled++;
        }
        clock.advance(Duration.ofMillis(50));
        permit.get().complete(answer.ok() ? 200 : 429, fields(answer), null);
      }
      clock.advance(Duration.ofMillis(10));
    }
    long sent = admitted + throttled;
    assertThat(throttled).as("429s of %s sent", sent).isLessThanOrEqualTo(sent * 3 / 100);
    assertThat(admitted).as("admitted of about 1,500").isGreaterThanOrEqualTo(1_200);
  }

  @Test
  void aGcraBurstIsNotAQuota() {
    // A GCRA's reset covers its burst of 10, not its quota of 100, and after an idle gap it
    // jumps on by about the gap: a caller that comes in bursts of up to 20 every 12 s sees it
    // move by about 5.6 s after each gap, a length a window's reset would move by too. One such
    // move taken for the window (or the longest reset taken for it; 45% 429s at 64 callers in
    // the simulator) makes the bucket a "quota of 100 per 64 s" and paces it as one. Within each
    // burst the bucket's reset moves on again, by 1-2 s and before it has passed (no window's
    // move), which breaks every run of moves: no two agree in a row and nothing is inferred.
    Gcra server = new Gcra();
    Pacer pacer = pacer();
    long admitted = 0;
    long throttled = 0;
    for (int burst = 0; burst < 50; burst++) {
      long start = burst * 12 * SECOND;
      clock.advance(Duration.ofNanos(Math.max(0, start - clock.read())));
      int sent = 0;
      while (sent < 20 && clock.read() - start < 4 * SECOND) {
        Optional<Permit> permit = pacer.tryAcquire(GET);
        if (permit.isEmpty()) {
          clock.advance(Duration.ofMillis(10));
          continue;
        }
        sent++;
        clock.advance(Duration.ofMillis(25));
        Answer answer = server.admit(clock.read());
        if (answer.ok()) {
          admitted++;
        } else {
          throttled++;
        }
        clock.advance(Duration.ofMillis(25));
        permit.get().complete(answer.ok() ? 200 : 429, fields(answer), null);
      }
    }
    PolicySnapshot shown = pacer.quota(URI.create("https://api.example.com/")).policies().get(0);
    assertThat(shown.learned()).as("no window inferred: %s", shown).isFalse();
    assertThat(shown.window()).as("no window shown").isEmpty();
    assertThat(throttled).as("429s").isZero();
    assertThat(admitted).as("admitted: the burst of 10 in each 12 s").isGreaterThanOrEqualTo(500);
  }
}
