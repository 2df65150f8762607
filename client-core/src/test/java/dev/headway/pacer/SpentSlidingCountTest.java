package dev.headway.pacer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.HttpFields;
import dev.headway.Pacer;
import dev.headway.Permit;
import dev.headway.RateLimitedException;
import dev.headway.RequestInfo;
import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code X-RateLimit-Limit}, {@code -Remaining} and {@code -Reset} (epoch seconds) with no window,
 * from a server whose count is not back at its reset. A sliding-window counter (Cloudflare's,
 * Kong's) reports the end of its current fixed window as the reset, and weighs the previous
 * window's count into the current one: a window spent in one burst leaves the next one spent at
 * its start too, and its reset a whole window on. Its 429s say, in {@code Retry-After}, when the
 * next request fits. Several closed-loop callers in virtual time; what the server admits and
 * refuses is counted by the server.
 */
@Timeout(60)
class SpentSlidingCountTest {
  static final RequestInfo GET = RequestInfo.get(URI.create("https://api.example.com/items"));
  static final long MS = 1_000_000L;
  static final long SECOND = 1_000_000_000L;
  static final DateTimeFormatter HTTP_DATE = DateTimeFormatter
      .ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US).withZone(ZoneOffset.UTC);

  /** A server: answers a request arriving now, and counts what it admitted and refused. */
  abstract static class Server {
    final VirtualClock clock;
    final long quota;
    final long windowNanos;
    long admitted;
    long refused;
    /** Refusals after the first two windows. */
    long refusedLate;

    Server(VirtualClock clock, long quota, long windowNanos) {
      this.clock = clock;
      this.quota = quota;
      this.windowNanos = windowNanos;
    }

    /** Returns {admitted (1 or 0), remaining, nanoseconds to the reset, to the retry}. */
    abstract long[] decide(long now);

    HttpFields handle() {
      long now = clock.read();
      long[] d = decide(now);
      if (d[0] == 1) {
        admitted++;
      } else {
        refused++;
        if (now >= 2 * windowNanos) {
          refusedLate++;
        }
      }
      Instant at = clock.instant();
      long nanosOfEpoch = at.getEpochSecond() * SECOND + at.getNano();
      HttpFields.Builder fields = HttpFields.builder()
          .add("Date", HTTP_DATE.format(Instant.ofEpochSecond(at.getEpochSecond())))
          .add("X-RateLimit-Limit", Long.toString(quota))
          .add("X-RateLimit-Remaining", Long.toString(d[1]))
          .add("X-RateLimit-Reset", Long.toString((nanosOfEpoch + d[2] + SECOND - 1) / SECOND));
      if (d[0] == 0) {
        fields.add("Retry-After", Long.toString(Math.max(1, (d[3] + SECOND - 1) / SECOND)));
      }
      return fields.build();
    }

    int status(HttpFields fields) {
      return fields.contains("Retry-After") ? 429 : 200;
    }
  }

  /**
   * A sliding-window counter: the previous fixed window's count, weighted by how much of it
   * still overlaps the trailing window, plus the current one's, stays within the quota. The
   * reset is the end of the current fixed window; {@code Retry-After} when the next request fits.
   */
  static final class SlidingWindow extends Server {
    long index = Long.MIN_VALUE;
    long previous;
    long current;
    /** How far into a fixed window the server is when the clients start. */
    final long phaseNanos;

    SlidingWindow(VirtualClock clock, long quota, long windowNanos, long phaseNanos) {
      super(clock, quota, windowNanos);
      this.phaseNanos = phaseNanos;
    }

    private void roll(long now) {
      long i = Math.floorDiv(now, windowNanos);
      if (i != index) {
        previous = i == index + 1 ? current : 0;
        current = 0;
        index = i;
      }
    }

    /** The count at {@code t}, in this fixed window or the next (nothing more admitted). */
    private double estimate(long t) {
      long i = Math.floorDiv(t, windowNanos);
      double weight = 1.0 - (double) (t - i * windowNanos) / windowNanos;
      return i == index ? previous * weight + current : current * weight;
    }

    @Override
    long[] decide(long arrival) {
      long now = arrival + phaseNanos;
      roll(now);
      double estimate = estimate(now);
      long reset = (index + 1) * windowNanos - now;
      if (estimate + 1 <= quota + 1e-9) {
        current++;
        return new long[] {1, (long) Math.floor(quota - estimate - 1 + 1e-9), reset, 0};
      }
      long retry = now;
      while (estimate(retry) + 1 > quota + 1e-9) {
        retry += 10 * MS;
      }
      return new long[] {0, 0, reset, retry - now};
    }
  }

  /** A fixed window: the whole quota back at each reset. */
  static final class FixedWindow extends Server {
    long index = Long.MIN_VALUE;
    long count;

    FixedWindow(VirtualClock clock, long quota, long windowNanos) {
      super(clock, quota, windowNanos);
    }

    @Override
    long[] decide(long now) {
      long i = Math.floorDiv(now, windowNanos);
      if (i != index) {
        index = i;
        count = 0;
      }
      long reset = (i + 1) * windowNanos - now;
      if (count < quota) {
        count++;
        return new long[] {1, quota - count, reset, 0};
      }
      return new long[] {0, 0, reset, reset};
    }
  }

  /** One closed-loop caller with a round trip of 50 ms, until {@code untilNanos}. */
  private static void call(Pacer pacer, VirtualClock clock, Server server, long untilNanos) {
    if (clock.read() >= untilNanos) {
      return;
    }
    pacer.acquireAsync(GET).whenComplete((permit, error) -> {
      if (error != null) {
        Throwable cause = error instanceof CompletionException ? error.getCause() : error;
        RateLimitedException e = (RateLimitedException) cause;
        clock.schedule(() -> call(pacer, clock, server, untilNanos),
            e.requiredWait().plusMillis(1));
        return;
      }
      clock.schedule(() -> {
        HttpFields fields = server.handle();
        clock.schedule(() -> {
          Permit p = permit;
          p.complete(server.status(fields), fields, null);
          call(pacer, clock, server, untilNanos);
        }, Duration.ofMillis(25));
      }, Duration.ofMillis(25));
    });
  }

  private static <S extends Server> S run(S server, VirtualClock clock, int callers,
      long untilNanos) {
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock).jitterSeed(7)
        .build();
    for (int i = 0; i < callers; i++) {
      call(pacer, clock, server, untilNanos);
    }
    while (clock.read() < untilNanos + SECOND) {
      clock.advance(Duration.ofMillis(5));
    }
    return server;
  }

  private static String what(Server server, long allowance) {
    return String.format(Locale.ROOT, "%d admitted of %d allowed, %d refused (%d after two"
        + " windows)", server.admitted, allowance, server.refused, server.refusedLate);
  }

  /**
   * The window is spent in the first burst; at its reset the count is still spent (the previous
   * window weighs on it) and the reset moves a window on. Waiting for that reset wasted every
   * other window until the window was inferred (two moves later); the move itself bounds the
   * window from above, and the count comes back at least at quota per move.
   */
  @Test
  void aCountStillSpentAfterItsResetMovedOnIsPacedAtTheQuotaPerMove() {
    for (long phaseSeconds : new long[] {0, 23, 41}) {
      VirtualClock clock = VirtualClock.startingAt(Instant.parse("2026-11-29T12:00:00Z"));
      long window = 60 * SECOND;
      // The server's windows start phaseSeconds before the client's first request.
      SlidingWindow server = run(new SlidingWindow(clock, 100, window, phaseSeconds * SECOND),
          clock, 8, 600 * SECOND);
      long allowance = 100 * 10 + 100 * phaseSeconds / 60;
      String what = "phase " + phaseSeconds + " s: " + what(server, allowance);
      if (Boolean.getBoolean("spentsliding.trace")) {
        System.out.println(what);
      }
      assertThat(server.admitted).as(what).isGreaterThanOrEqualTo(allowance * 95 / 100);
      assertThat(server.refused).as(what)
          .isLessThanOrEqualTo((server.admitted + server.refused) / 200);
    }
  }

  /**
   * The window is spent, by this client alone, a request at a time (the pace leaves a unit or two
   * for the reset), so the first answers after the reset are admitted, with the count still
   * holding what the client spent and the reset a window on: no 429 to say how soon a unit is
   * back. Waiting for that reset wasted the second window whole; the count holding the client's
   * own units of the reset that passed says the server weighs the window before, and the move
   * bounds the window.
   */
  @Test
  void aCountStillHoldingOurUnitsAfterItsResetIsPacedAtTheQuotaPerMoveWithout429() {
    for (long phaseMillis : new long[] {200, 3_100}) {
      VirtualClock clock = VirtualClock.startingAt(Instant.parse("2026-11-29T12:00:00Z"));
      long window = 8 * SECOND;
      SlidingWindow server = run(new SlidingWindow(clock, 42, window, phaseMillis * MS), clock,
          8, 80 * SECOND);
      long allowance = 42 * 10;
      String what = "phase " + phaseMillis + " ms: " + what(server, allowance);
      if (Boolean.getBoolean("spentsliding.trace")) {
        System.out.println(what);
      }
      assertThat(server.admitted).as(what).isGreaterThanOrEqualTo(allowance * 90 / 100);
      assertThat(server.refused).as(what).isLessThanOrEqualTo(4);
    }
  }

  /**
   * A small quota (9 per 88 s) met part-way through a window, spent by one client with 8
   * callers. Before its first reset nothing tells this counter from a fixed window. Spent to its
   * last unit, the first requests at the reset were 429s (the window before still weighs
   * whole there), and the pace that followed, the quota per window, overdrew a counter whose
   * window before held less than the quota: about three 429s a run, each a third of a percent
   * of a hundred requests. Now the last unit is kept for the reset, the one request there is
   * admitted, its count (still holding this client's units) tells the counter from a fixed
   * window, and the pace is what the window before held, per window.
   */
  @Test
  void aSmallQuotaDrawsNo429AtItsFirstResetNorAfter() {
    for (long phaseMillis : new long[] {15_200, 40_000, 70_000}) {
      VirtualClock clock = VirtualClock.startingAt(Instant.parse("2026-11-29T12:00:00Z"));
      long window = 88 * SECOND;
      SlidingWindow server = run(new SlidingWindow(clock, 9, window, phaseMillis * MS), clock,
          8, 880 * SECOND);
      long allowance = 9 * 10 + 9 * phaseMillis / 88_000;
      String what = "phase " + phaseMillis + " ms: " + what(server, allowance);
      if (Boolean.getBoolean("spentsliding.trace")) {
        System.out.println(what);
      }
      // Before: 75-78 admitted and 3 refused at each phase; now 82-87 and none.
      assertThat(server.refused).as(what).isZero();
      assertThat(server.admitted).as(what + ": ten windows' quota is 90")
          .isGreaterThanOrEqualTo(81);
    }
  }

  /**
   * A fixed window gives its quota back at its reset: a lone client never finds it spent after
   * its reset, and it is paced exactly as before, one window's quota per window, no 429.
   */
  @Test
  void aFixedWindowKeepsItsQuotaPerWindowAndNo429() {
    VirtualClock clock = VirtualClock.startingAt(Instant.parse("2026-11-29T12:00:00Z"));
    FixedWindow server = run(new FixedWindow(clock, 100, 60 * SECOND), clock, 8,
        600 * SECOND);
    assertThat(server.refused).as(what(server, 1_000)).isZero();
    assertThat(server.admitted).as(what(server, 1_000)).isGreaterThanOrEqualTo(1_000);
  }
}
