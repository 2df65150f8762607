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
   * A fixed grid of windows aligned at whole seconds, whose epoch reset is exact: what the
   * legacy express-rate-limit server looks like to a client that opens each window at the whole
   * second its reset named (the same reset, count and {@code Date} on every answer, with windows
   * a second longer).
   */
  static final class Grid extends SlidingLogServersTest.Server {
    long hits;
    long windowIndex = Long.MIN_VALUE;

    Grid(VirtualClock clock, long quota, Duration window) {
      super(clock, quota, window);
    }

    @Override
    SlidingLogServersTest.Response handle() {
      long epochMillis = clock.instant().toEpochMilli();
      long windowMillis = windowNanos / MS;
      long index = Math.floorDiv(epochMillis, windowMillis);
      if (index != windowIndex) {
        windowIndex = index;
        hits = 0;
      }
      hits++;
      boolean ok = hits <= quota;
      (ok ? admitted : refused).add(clock.read());
      long reset = (index + 1) * windowMillis / 1000;
      List<String> h = dated();
      h.addAll(List.of("X-RateLimit-Limit", Long.toString(quota),
          "X-RateLimit-Remaining", Long.toString(Math.max(0, quota - hits)),
          "X-RateLimit-Reset", Long.toString(reset)));
      if (!ok) {
        h.addAll(List.of("Retry-After",
            Long.toString(Math.floorDiv((index + 1) * windowMillis - epochMillis + 999, 1000))));
      }
      return new SlidingLogServersTest.Response(ok ? 200 : 429,
          HttpFields.of(h.toArray(String[]::new)));
    }
  }

  /**
   * The window starts at the request that opens it, and its reset is that instant plus the
   * window, rounded up to an epoch second. Waited for, the reset opened each window a few
   * milliseconds past a whole second, which the next reset rounded up by almost a second: every
   * window opened about a second late (80-84% of the allowance at 4-second windows). The answer
   * to the request that opened a window gives its length plus the second of rounding, so a
   * window of whole seconds ends within that request's round trip of its answer plus that reset,
   * less a second; its last unit goes there, and the count comes back with the next window (or,
   * a little early, spends the unit in this one). At least 90% of the allowance, no 429.
   */
  @Test
  void expressRateLimitsLegacyResetOpensTheNextWindowWhenTheCountComesBack() {
    for (long start : new long[] {0, 130, 470, 610, 990}) {
      Express server = (Express) SlidingLogServersTest.run(
          clock -> new Express(clock, 20, Duration.ofSeconds(4)), start, 8,
          Duration.ofSeconds(60));
      String what = described(server, start);
      if (Boolean.getBoolean("slidinglog.trace")) {
        System.out.println(what);
      }
      assertThat(server.refused).as(what).isEmpty();
      assertThat(100.0 * server.admitted.size() / (20 * 15)).as(what)
          .isGreaterThanOrEqualTo(90);
    }
  }

  /**
   * The same answers from a grid of windows a second longer, whose reset is exact: the last unit
   * sent a second before the reset lands in the window it was counted for, so nothing is
   * refused and every window is spent.
   */
  @Test
  void aGridOfWholeSecondWindowsIsNotOverdrawn() {
    for (long start : new long[] {0, 130, 470, 610, 990}) {
      Grid server = (Grid) SlidingLogServersTest.run(
          clock -> new Grid(clock, 20, Duration.ofSeconds(5)), start, 8,
          Duration.ofSeconds(60));
      String what = String.format(Locale.ROOT, "start %d ms: %d admitted, %d refused", start,
          server.admitted.size(), server.refused.size());
      if (Boolean.getBoolean("slidinglog.trace")) {
        System.out.println("grid " + what);
      }
      assertThat(server.refused).as(what).isEmpty();
      assertThat(server.admitted.size()).as(what).isGreaterThanOrEqualTo(20 * 12 - 1);
    }
  }

  private static String described(Express server, long start) {
    StringBuilder late = new StringBuilder();
    long previousEnd = Long.MIN_VALUE;
    for (long opened : server.starts) {
      if (previousEnd != Long.MIN_VALUE) {
        late.append(String.format(Locale.ROOT, "%.0f ", (opened - previousEnd) / 1e6));
      }
      previousEnd = opened + server.windowNanos;
    }
    return String.format(Locale.ROOT, "start %d ms: %d admitted (%.1f%%), %d refused;"
        + " each window opened late by (ms) %s", start, server.admitted.size(),
        100.0 * server.admitted.size() / (20 * 15), server.refused.size(), late);
  }
}
