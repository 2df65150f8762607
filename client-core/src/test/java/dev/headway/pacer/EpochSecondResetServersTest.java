package dev.headway.pacer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.HttpFields;
import dev.headway.testing.VirtualClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Fixed windows whose reset is an epoch second rounded up (express-rate-limit's legacy
 * {@code X-RateLimit-Reset}), measured against a whole-second {@code Date}.
 */
@Timeout(60)
class EpochSecondResetServersTest {
  static final long MS = 1_000_000L;
  static final long SECOND = 1_000_000_000L;

  /**
   * express-rate-limit 8's memory store with its legacy headers: a client's window starts at its
   * first request after the last one ended; {@code X-RateLimit-Reset} is that window's end in
   * epoch seconds, rounded up, beside a {@code Date}; a 429 says {@code Retry-After}, the whole
   * seconds left rounded up.
   */
  static final class Express extends SlidingLogServersTest.Server {
    long resetAtNanos = Long.MIN_VALUE;
    long hits;
    final java.util.List<Long> starts = new java.util.ArrayList<>();

    Express(VirtualClock clock, long quota, Duration window) {
      super(clock, quota, window);
    }

    @Override
    SlidingLogServersTest.Response handle() {
      long now = clock.read();
      if (resetAtNanos <= now) {
        resetAtNanos = now + windowNanos;
        hits = 0;
        starts.add(now);
      }
      hits++;
      boolean ok = hits <= quota;
      if (ok) {
        admitted.add(now);
      } else {
        refused.add(now);
      }
      Instant wallReset = clock.instant().plusNanos(resetAtNanos - now);
      long reset = Math.floorDiv(wallReset.toEpochMilli() + 999, 1000);
      List<String> h = dated();
      h.addAll(List.of("X-RateLimit-Limit", Long.toString(quota),
          "X-RateLimit-Remaining", Long.toString(Math.max(0, quota - hits)),
          "X-RateLimit-Reset", Long.toString(reset)));
      if (!ok) {
        h.addAll(List.of("Retry-After",
            Long.toString(Math.floorDiv((resetAtNanos - now) / MS + 999, 1000))));
      }
      return new SlidingLogServersTest.Response(ok ? 200 : 429,
          HttpFields.of(h.toArray(String[]::new)));
    }
  }

  /**
   * Known limit, pinned so that a change shows. The window starts at the request that opens it,
   * and the client opens it at the whole second its reset named, a few milliseconds past the
   * true end: the new window ends a few milliseconds past a whole second, its reset is rounded up
   * by almost a second, and so on, window after window. Every window opens about a second late
   * (83% of the allowance at 4-second windows, no 429). Nothing in the answers tells this
   * server from a fixed grid of windows a second longer (whose reset is exact): both give the
   * same reset, the same count and the same {@code Date} on every answer, so a client that
   * opened the window sooner would draw a 429 a window from that one.
   */
  @Test
  void expressRateLimitsLegacyResetOpensEachWindowASecondLate() {
    for (long start : new long[] {0, 130, 470, 610, 990}) {
      Express server = (Express) SlidingLogServersTest.run(
          clock -> new Express(clock, 20, Duration.ofSeconds(4)), start, 8,
          Duration.ofSeconds(60));
      StringBuilder late = new StringBuilder();
      long previousEnd = Long.MIN_VALUE;
      long latest = 0;
      for (long opened : server.starts) {
        if (previousEnd != Long.MIN_VALUE) {
          late.append(String.format(Locale.ROOT, "%.0f ", (opened - previousEnd) / 1e6));
          latest = Math.max(latest, opened - previousEnd);
        }
        previousEnd = opened + server.windowNanos;
      }
      double goodput = 100.0 * server.admitted.size() / (20 * 15);
      String what = String.format(Locale.ROOT, "start %d ms: %d admitted (%.1f%%), %d refused;"
          + " each window opened late by (ms) %s", start, server.admitted.size(), goodput,
          server.refused.size(), late);
      assertThat(server.refused).as(what).isEmpty();
      assertThat(goodput).as(what).isGreaterThanOrEqualTo(80);
      assertThat(latest).as(what).isLessThan(1_010 * MS);
    }
  }
}
