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
import java.util.Locale;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;

/**
 * A sliding-window counter (Cloudflare's, Kong's, Upstash's) that publishes its quota in full:
 * {@code RateLimit-Policy} and {@code RateLimit} with the window, or the draft-02 trio with
 * {@code w}. Its reset is the end of the current fixed window, its count the window before's,
 * weighted by how much of it still overlaps the trailing window, plus the current window's
 * ({@code estimate + 1 <= quota} admits). So over each window it gives back what the window
 * before held, not the quota: after a window that held less, and at its steady state (a window
 * after a full one, it fits only the quota less one), a pace of the quota per window overdraws.
 * Several callers of one client in virtual time; the server counts what it admitted and refused.
 */
class SlidingCounterFullHeadersTest {
  private static final RequestInfo GET = RequestInfo.get(URI.create("https://api.example.com/x"));
  private static final long MS = 1_000_000L;
  private static final long SECOND = 1_000_000_000L;
  private static final DateTimeFormatter HTTP_DATE = DateTimeFormatter
      .ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US).withZone(ZoneOffset.UTC);

  /** How the server says its state. */
  enum Style { STRUCTURED, DRAFT02 }

  /** The strict sliding-window counter, its fixed windows starting {@code phase} before ours. */
  static final class Counter {
    final VirtualClock clock;
    final Style style;
    final long quota;
    final long windowNanos;
    final long phaseNanos;
    long index = Long.MIN_VALUE;
    long previous;
    long current;

    Counter(VirtualClock clock, Style style, long quota, long windowNanos, long phaseNanos) {
      this.clock = clock;
      this.style = style;
      this.quota = quota;
      this.windowNanos = windowNanos;
      this.phaseNanos = phaseNanos;
    }

    private double estimate(long t) {
      long start = index * windowNanos;
      return previous * (1.0 - (double) (t - start) / windowNanos) + current;
    }

    ModelServerLoop.Response handle(long arrival) {
      long now = arrival + phaseNanos;
      long i = Math.floorDiv(now, windowNanos);
      if (i != index) {
        previous = i == index + 1 ? current : 0;
        current = 0;
        index = i;
      }
      double estimate = estimate(now);
      long reset = (index + 1) * windowNanos - now;
      boolean ok = estimate + 1 <= quota + 1e-9;
      long left = 0;
      long retry = 0;
      if (ok) {
        current++;
        left = (long) Math.floor(quota - estimate - 1 + 1e-9);
      } else {
        long t = now;
        while (estimate(t) + 1 > quota + 1e-9 && t < (index + 1) * windowNanos) {
          t += 10 * MS;
        }
        retry = t - now;
      }
      Instant at = clock.instant();
      long w = windowNanos / SECOND;
      long resetSeconds = (reset + SECOND - 1) / SECOND;
      HttpFields.Builder fields = HttpFields.builder()
          .add("Date", HTTP_DATE.format(Instant.ofEpochSecond(at.getEpochSecond())));
      if (style == Style.STRUCTURED) {
        fields.add("RateLimit-Policy", "\"default\";q=" + quota + ";w=" + w)
            .add("RateLimit", "\"default\";r=" + left + ";t=" + resetSeconds);
      } else {
        fields.add("RateLimit-Limit", quota + ", " + quota + ";w=" + w)
            .add("RateLimit-Remaining", Long.toString(left))
            .add("RateLimit-Reset", Long.toString(resetSeconds));
      }
      if (!ok) {
        fields.add("Retry-After", Long.toString(Math.max(1, (retry + SECOND - 1) / SECOND)));
      }
      HttpFields built = fields.build();
      int status = ok ? 200 : 429;
      return new ModelServerLoop.Response(status, permit -> permit.complete(status, built, null));
    }
  }

  private static ModelServerLoop.Counts run(Style style, long quota, long windowSeconds,
      long phaseMillis, int callers, long oneWayMillis, int windows) {
    VirtualClock clock = VirtualClock.startingAt(Instant.parse("2026-11-29T12:00:00Z"));
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock).jitterSeed(7)
        .build();
    long window = windowSeconds * SECOND;
    Counter server = new Counter(clock, style, quota, window, phaseMillis * MS);
    long start = clock.read();
    ModelServerLoop.Counts counts = ModelServerLoop.run(pacer, clock, GET, callers,
        oneWayMillis * MS, start + windows * window, start + 2 * window, server::handle);
    if (Boolean.getBoolean("slidingcounter.trace")) {
      System.out.printf(Locale.ROOT, "%s %d per %d s, phase %d ms, %d callers, %d ms: %s%n",
          style, quota, windowSeconds, phaseMillis, callers, 2 * oneWayMillis, counts);
    }
    return counts;
  }

  /**
   * Asserts, for each style, that each counter ({quota, window s, phase ms, callers, one way ms})
   * draws no 429 after the first two of 20 windows, and is given 90% of what a strict counter
   * allows a window after a full one (the quota less one, per window).
   */
  private static void noLate429s(long[][] counters) {
    SoftAssertions soft = new SoftAssertions();
    for (Style style : Style.values()) {
      for (long[] c : counters) {
        ModelServerLoop.Counts counts = run(style, c[0], c[1], c[2], (int) c[3], c[4], 20);
        String what = style + " " + c[0] + " per " + c[1] + " s, " + c[3] + " callers: " + counts;
        soft.assertThat(counts.throttledLate()).as(what).isZero();
        soft.assertThat(counts.admitted()).as(what)
            .isGreaterThanOrEqualTo((c[0] - 1) * 20 * 90 / 100);
      }
    }
    soft.assertAll();
  }

  /**
   * Paced at the quota per window, a counter whose window before held less than the quota (the
   * first window was met part-way) or the quota less one (its steady state) overdrew it, window
   * after window: before, 24 per 10 s with 25 callers drew 10 429s after the first two windows
   * (407 admitted), and 5 per 5 s with 10 callers 3 (58 admitted). Its reset moves on by one
   * window once it passed: paced at what this client was admitted under the reset before, per
   * window, it draws none (480 and 81 admitted). The others drew none before and after.
   */
  @Test
  void aCounterWhoseResetMovesByItsWindowIsPacedAtWhatTheWindowBeforeHeld() {
    noLate429s(new long[][] {{24, 10, 9_897, 25, 1}, {5, 5, 1_507, 10, 96},
        {30, 10, 3_300, 8, 25}, {73, 21, 9_178, 26, 72}, {28, 27, 19_951, 10, 85}});
  }

  /**
   * Many callers pacing a large quota: answers to requests sent together come back with counts
   * not lower than the one held, and are not taken (the server may have counted them in either
   * order); the requests are no longer in flight, and the refill pace from the count held
   * handed their units out again. Before: 642 per 10 s with 8 callers drew 25 429s after the
   * first two windows.
   */
  @Test
  void answersNotTakenSpendWhatTheRefillGaveBack() {
    noLate429s(new long[][] {{642, 10, 3_322, 8, 47}});
  }
}
