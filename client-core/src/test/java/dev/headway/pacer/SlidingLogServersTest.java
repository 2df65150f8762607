package dev.headway.pacer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.HttpFields;
import dev.headway.Pacer;
import dev.headway.PacingStrategy;
import dev.headway.Permit;
import dev.headway.RateLimitedException;
import dev.headway.RequestInfo;
import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.CompletionException;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Sliding logs as real limiters run them, driven by eight closed-loop callers in virtual time
 * through the real header parsers: Flask-Limiter's moving window (its reset trails the newest
 * request) and @nestjs/throttler (its reset is a tracker's expiry, and a request over the limit
 * blocks the client for a window). Both give each unit back a window after it was spent; neither
 * says so. What the server admits and refuses is counted by the server.
 */
@Timeout(60)
class SlidingLogServersTest {
  static final RequestInfo GET = RequestInfo.get(URI.create("http://127.0.0.1:5000/work"));
  static final long MS = 1_000_000L;
  static final long SECOND = 1_000_000_000L;
  static final DateTimeFormatter HTTP_DATE = DateTimeFormatter
      .ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US).withZone(ZoneOffset.UTC);

  /** A server model: answers a request arriving now. */
  abstract static class Server {
    final VirtualClock clock;
    final long quota;
    final long windowNanos;
    /** Arrival times of the requests admitted, and of those refused. */
    final List<Long> admitted = new ArrayList<>();
    final List<Long> refused = new ArrayList<>();

    Server(VirtualClock clock, long quota, Duration window) {
      this.clock = clock;
      this.quota = quota;
      this.windowNanos = window.toNanos();
    }

    abstract Response handle();

    List<String> dated() {
      return new ArrayList<>(List.of("Date", HTTP_DATE.format(clock.instant())));
    }

    long refusedAfter(long fromNanos) {
      return refused.stream().filter(t -> t >= fromNanos).count();
    }

    /** The most requests admitted in any window-long stretch (what the server allows: quota). */
    long busiestWindow() {
      long most = 0;
      int from = 0;
      for (int to = 0; to < admitted.size(); to++) {
        while (admitted.get(to) - admitted.get(from) >= windowNanos) {
          from++;
        }
        most = Math.max(most, to - from + 1);
      }
      return most;
    }
  }

  /**
   * Flask-Limiter 3.3's moving window (memory storage): {@code cost} entries per request, the
   * request admitted when fewer than {@code quota} entries are younger than the window;
   * {@code X-RateLimit-Reset} is the newest entry's epoch second plus one plus the window, and
   * {@code Retry-After} (on every response) the whole seconds to it.
   */
  static final class Flask extends Server {
    final int cost;
    final ArrayDeque<Long> entries = new ArrayDeque<>(); // newest first
    /** How long after a request is counted its {@code Date} is written (drawn per answer). */
    final LongSupplier dateLagNanos;

    Flask(VirtualClock clock, long quota, Duration window, int cost) {
      this(clock, quota, window, cost, () -> 0);
    }

    Flask(VirtualClock clock, long quota, Duration window, int cost, LongSupplier dateLagNanos) {
      super(clock, quota * cost, window);
      this.cost = cost;
      this.dateLagNanos = dateLagNanos;
    }

    @Override
    Response handle() {
      long now = clock.read();
      while (!entries.isEmpty() && entries.peekLast() < now - windowNanos) {
        entries.pollLast();
      }
      boolean ok = entries.size() + cost <= quota;
      if (ok) {
        for (int i = 0; i < cost; i++) {
          entries.addFirst(now);
        }
        admitted.add(now);
      } else {
        refused.add(now);
      }
      Instant wallNow = clock.instant();
      long newest = entries.isEmpty() ? now : entries.peekFirst();
      long newestEpoch = wallNow.minusNanos(now - newest).getEpochSecond();
      long reset = newestEpoch + 1 + windowNanos / SECOND;
      Instant dateAt = wallNow.plusNanos(dateLagNanos.getAsLong());
      List<String> h = new ArrayList<>(List.of("Date", HTTP_DATE.format(dateAt)));
      h.addAll(List.of("X-RateLimit-Limit", Long.toString(quota),
          "X-RateLimit-Remaining", Long.toString(quota - entries.size()),
          "X-RateLimit-Reset", Long.toString(reset),
          "Retry-After", Long.toString(reset - dateAt.getEpochSecond())));
      return new Response(ok ? 200 : 429, HttpFields.of(h.toArray(String[]::new)));
    }
  }

  /**
   * @nestjs/throttler 6.7's storage with its default block: every hit expires a window after it;
   * the tracker expires a window after the first hit since it last expired
   * ({@code X-RateLimit-Reset}: the whole seconds to that, rounded up); a hit over the limit
   * blocks the client for a window ({@code Retry-After}, and nothing counted meanwhile), and the
   * first hit after the block starts afresh.
   */
  static final class Nest extends Server {
    final ArrayDeque<Long> hits = new ArrayDeque<>(); // expiry times, oldest first
    long expiresAt = Long.MIN_VALUE;
    boolean blocked;
    long blockExpiresAt = Long.MIN_VALUE;

    /** How late each hit's own expiry fires (a Node timer fires after its time, never before). */
    final long timerLateNanos;

    Nest(VirtualClock clock, long quota, Duration window) {
      this(clock, quota, window, Duration.ZERO);
    }

    Nest(VirtualClock clock, long quota, Duration window, Duration timerLate) {
      super(clock, quota, window);
      this.timerLateNanos = timerLate.toNanos();
    }

    private static long ceilSeconds(long nanos) {
      long ms = nanos >= 0 ? nanos / MS : -((-nanos + MS - 1) / MS); // Date.now() is whole ms
      return Math.floorDiv(ms + 999, 1000);
    }

    @Override
    Response handle() {
      long now = clock.read();
      while (!hits.isEmpty() && hits.peekFirst() <= now) {
        hits.pollFirst();
      }
      long toExpire = ceilSeconds(expiresAt - now);
      if (expiresAt == Long.MIN_VALUE || toExpire <= 0) {
        expiresAt = now + windowNanos;
        toExpire = ceilSeconds(expiresAt - now);
      }
      if (!blocked) {
        hits.addLast(now + windowNanos + timerLateNanos);
      }
      if (hits.size() > quota && !blocked) {
        blocked = true;
        blockExpiresAt = now + windowNanos;
      }
      long toBlockExpire = blockExpiresAt == Long.MIN_VALUE ? -1
          : ceilSeconds(blockExpiresAt - now);
      if (toBlockExpire <= 0 && blocked) {
        blocked = false;
        hits.clear();
        hits.addLast(now + windowNanos);
      }
      List<String> h = dated();
      if (blocked) {
        refused.add(now);
        h.addAll(List.of("Retry-After", Long.toString(toBlockExpire)));
        return new Response(429, HttpFields.of(h.toArray(String[]::new)));
      }
      admitted.add(now);
      h.addAll(List.of("X-RateLimit-Limit", Long.toString(quota),
          "X-RateLimit-Remaining", Long.toString(Math.max(0, quota - hits.size())),
          "X-RateLimit-Reset", Long.toString(toExpire)));
      return new Response(200, HttpFields.of(h.toArray(String[]::new)));
    }
  }

  /**
   * A token bucket of {@code quota} refilled at {@code quota} per window, advertised as
   * {@code X-RateLimit-Limit/-Remaining} (the whole tokens left) and {@code X-RateLimit-Reset}
   * (the epoch second, rounded up, at which the bucket is full again), {@code Retry-After} on a
   * 429. In steady use its reset trails each request, as a log's does.
   */
  static final class Bucket extends Server {
    double tokens;
    long lastNanos;

    Bucket(VirtualClock clock, long quota, Duration window) {
      super(clock, quota, window);
      tokens = quota;
      lastNanos = clock.read();
    }

    @Override
    Response handle() {
      long now = clock.read();
      double perToken = (double) windowNanos / quota;
      tokens = Math.min(quota, tokens + (now - lastNanos) / perToken);
      lastNanos = now;
      boolean ok = tokens >= 1 - 1e-9;
      if (ok) {
        tokens = Math.max(0, tokens - 1);
        admitted.add(now);
      } else {
        refused.add(now);
      }
      Instant wallNow = clock.instant();
      long full = (long) Math.ceil((quota - tokens) * perToken);
      long reset = Math.floorDiv(wallNow.plusNanos(full).toEpochMilli() + 999, 1000);
      List<String> h = dated();
      h.addAll(List.of("X-RateLimit-Limit", Long.toString(quota),
          "X-RateLimit-Remaining", Long.toString((long) Math.floor(tokens + 1e-9))));
      h.addAll(List.of("X-RateLimit-Reset", Long.toString(reset)));
      if (!ok) {
        h.addAll(List.of("Retry-After",
            Long.toString(Math.max(1, (long) Math.ceil((1 - tokens) * perToken / SECOND)))));
      }
      return new Response(ok ? 200 : 429, HttpFields.of(h.toArray(String[]::new)));
    }
  }

  record Response(int status, HttpFields headers) {}

  /**
   * One closed-loop caller: acquire, reach the server after a one-way trip, answer after a trip
   * back of {@code backNanos} (drawn per request).
   */
  private static void call(Pacer pacer, VirtualClock clock, Server server, long oneWayNanos,
      LongSupplier backNanos, long untilNanos) {
    if (clock.read() >= untilNanos) {
      return;
    }
    pacer.acquireAsync(GET).whenComplete((permit, error) -> {
      if (error != null) {
        Throwable cause = error instanceof CompletionException ? error.getCause() : error;
        RateLimitedException e = (RateLimitedException) cause;
        clock.schedule(() -> call(pacer, clock, server, oneWayNanos, backNanos, untilNanos),
            e.requiredWait().plusMillis(1));
        return;
      }
      clock.schedule(() -> {
        Response response = server.handle();
        clock.schedule(() -> {
          Permit p = permit;
          p.complete(response.status(), response.headers(), null);
          call(pacer, clock, server, oneWayNanos, backNanos, untilNanos);
        }, Duration.ofNanos(backNanos.getAsLong()));
      }, Duration.ofNanos(oneWayNanos));
    });
  }

  interface Factory {
    Server create(VirtualClock clock);
  }

  static Server run(Factory factory, long startMillis, int callers, Duration length) {
    return run(factory, startMillis, callers, length, PacingStrategy.burstThenSpread(0.2));
  }

  static Server run(Factory factory, long startMillis, int callers, Duration length,
      PacingStrategy strategy) {
    return run(factory, startMillis, callers, length, strategy, MS, () -> MS);
  }

  static Server run(Factory factory, long startMillis, int callers, Duration length,
      PacingStrategy strategy, long oneWayNanos, LongSupplier backNanos) {
    VirtualClock clock = VirtualClock.startingAt(
        Instant.parse("2026-11-28T22:00:00Z").plusMillis(startMillis));
    Server server = factory.create(clock);
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock).jitterSeed(3)
        .strategy(strategy).build();
    long until = length.toNanos();
    for (int i = 0; i < callers; i++) {
      call(pacer, clock, server, oneWayNanos, backNanos, until);
    }
    while (clock.read() < until + SECOND) {
      clock.advance(Duration.ofMillis(1));
    }
    return server;
  }

  private static void assertMeetsTheTargets(String name, Server server, long quotaPerWindow) {
    long windows = 15;
    double goodput = 100.0 * server.admitted.size() / (quotaPerWindow * windows);
    long requests = server.admitted.size() + server.refused.size();
    double throttled = 100.0 * server.refused.size() / requests;
    String what = String.format(Locale.ROOT,
        "%s: %d admitted (%.1f%% of the allowance), %d refused (%.1f%%), %d after two windows,"
            + " busiest window %d", name, server.admitted.size(), goodput, server.refused.size(),
        throttled, server.refusedAfter(8 * SECOND), server.busiestWindow());
    if (Boolean.getBoolean("slidinglog.trace")) {
      StringBuilder b = new StringBuilder(what).append('\n');
      for (long w = 0; w < 16; w++) {
        long from = w * server.windowNanos;
        long to = from + server.windowNanos;
        b.append(server.admitted.stream().filter(t -> t >= from && t < to).count()).append(' ');
      }
      System.out.println(b);
    }
    assertThat(goodput).as(what).isGreaterThanOrEqualTo(90);
    assertThat(throttled).as(what).isLessThanOrEqualTo(3);
    assertThat(server.refusedAfter(8 * SECOND)).as(what).isLessThanOrEqualTo(1);
  }

  /**
   * Flask-Limiter's reset is when the newest request leaves the window: every request moves it
   * on, so pacing the count to it gave about half the allowance. Each unit comes back a window
   * after it was spent: paced at that, at least 90%, and no 429 after the first two windows.
   */
  @Test
  void flaskLimitersMovingWindowGivesNinetyPercentOfTheAllowance() {
    for (long start : new long[] {0, 130, 470, 610, 990}) {
      Server server = run(clock -> new Flask(clock, 20, Duration.ofSeconds(4), 1), start, 8,
          Duration.ofSeconds(60));
      assertMeetsTheTargets("flask, start " + start + " ms", server, 20);
    }
  }

  /**
   * The same with each request costing 2 of 40 units (the remaining count drops by 2). The log is
   * recognised once counts covering a quota's worth of units agreed with its bounds: at cost 2
   * that is 20 answers, one window's. Counted as a quota's worth of answers (40, two windows), it
   * was recognised a cycle later (74% of the allowance, now 82%; no 429). Known shortfall: the
   * first two cycles still wait for Flask-Limiter's reset (5 s after its newest unit) before a
   * count bounds the window at all.
   */
  @Test
  void flaskLimitersMovingWindowWithCostTwoIsPacedAsALogOnceItsCostIsKnown() {
    for (long start : new long[] {0, 470, 990}) {
      Server server = run(clock -> new Flask(clock, 20, Duration.ofSeconds(4), 2), start, 8,
          Duration.ofSeconds(60));
      double goodput = 100.0 * server.admitted.size() / (20 * 15);
      assertThat(goodput).as("flask cost 2, start %d ms: goodput", start)
          .isGreaterThanOrEqualTo(80);
      assertThat(server.refused).as("flask cost 2, start %d ms: 429s", start).isEmpty();
    }
  }

  /**
   * NestJS's reset is its tracker's expiry, not when units come back, and a request over the
   * limit costs a whole window of 429s: paced at a refill, it drew about one block a window.
   */
  @Test
  void nestjsThrottlersSlidingLogGivesNinetyPercentOfTheAllowance() {
    for (long start : new long[] {0, 130, 470, 610, 990}) {
      Server server = run(clock -> new Nest(clock, 20, Duration.ofSeconds(4)), start, 8,
          Duration.ofSeconds(60));
      assertMeetsTheTargets("nestjs, start " + start + " ms", server, 20);
    }
  }

  /**
   * NestJS again, with answers that come back out of the order the server counted them in (an
   * 8 ms trip there, 4 to 20 ms back). A request over the limit is refused, and so is all that
   * was in flight with it; when the block ends the server forgets every unit spent before it.
   * Those units leaving at once made the log's upper bound shorter than the window, the counts
   * that followed contradicted it, and the client fell back to pacing a smooth refill from each
   * burst: one 429 and a block every window for the rest of the run (12-22 429s, 80-87% of the
   * allowance). A refusal now moves the bounds once for all that was in flight with it, and units
   * spent before a block's end say nothing of the window. Known shortfall: requests committed
   * at the refill pace before the log is recognised still go at their times, which can overdraw
   * the log once (up to 4 429s in one block, about 8-10 s in); none after that.
   */
  /**
   * NestJS as Node runs it: each hit leaves by a timer, which fires a few milliseconds after its
   * time, while the tracker expires exactly a window after its first hit. A request sent at the
   * tracker's reset finds a new tracker (its reset a whole window on) and the old hits still
   * there: the count did not come back at the reset. Taken for a window that has just begun and
   * is already spent, the client waited that whole window, and did so again at every reset:
   * 20 and 1 admitted in turn, 55% of the allowance (the interop suite's jdk-send cells: 58%).
   * A reset that moved on while the count stayed spent now says the server refills. And the
   * tracker's reset, which the log took as when each unit is back at the latest, is 5 ms short of
   * when the hits leave: the log let a request go 1 ms early, drew a 429 and a window's block,
   * moved its bound up, and the next trailing reset pulled it back down, once every four windows
   * (74%, 5 429s). A reset refuted so gives no bound again: 80%, 4 429s. Known shortfall: the
   * first four windows still wait two of them out before the log is recognised, and the first
   * refutation costs a block.
   */
  @Test
  void nestjsWhoseHitsLeaveJustAfterItsResetIsStillPacedAsALog() {
    for (long start : new long[] {0, 470, 990}) {
      Server server = run(clock -> new Nest(clock, 20, Duration.ofSeconds(4),
          Duration.ofMillis(5)), start, 8, Duration.ofSeconds(60));
      double goodput = 100.0 * server.admitted.size() / (20 * 15);
      long requests = server.admitted.size() + server.refused.size();
      if (Boolean.getBoolean("slidinglog.trace")) {
        System.out.printf(Locale.ROOT, "nestjs, timers 5 ms late, start %d ms: %.1f%%, %d 429s%n",
            start, goodput, server.refused.size());
      }
      assertThat(goodput).as("nestjs, timers 5 ms late, start %d ms: goodput", start)
          .isGreaterThanOrEqualTo(78);
      assertThat(100.0 * server.refused.size() / requests)
          .as("nestjs, timers 5 ms late, start %d ms: 429s %%", start).isLessThanOrEqualTo(3);
    }
  }

  @Test
  void nestjsWithAnswersOutOfOrderKeepsItsLogAfterABlock() {
    for (long start : new long[] {0, 130, 470, 610, 990}) {
      Random random = new Random(7);
      Server server = run(clock -> new Nest(clock, 20, Duration.ofSeconds(4)), start, 8,
          Duration.ofSeconds(60), PacingStrategy.burstThenSpread(0.2), 8 * MS,
          () -> 4 * MS + (long) (random.nextDouble() * 16 * MS));
      double goodput = 100.0 * server.admitted.size() / (20 * 15);
      long requests = server.admitted.size() + server.refused.size();
      String what = String.format(Locale.ROOT, "nestjs out of order, start %d ms: %d admitted,"
          + " %d refused at %s", start, server.admitted.size(), server.refused.size(),
          server.refused.stream().map(t -> String.format(Locale.ROOT, "%.2f", t / 1e9)).toList());
      assertThat(goodput).as(what).isGreaterThanOrEqualTo(90);
      assertThat(100.0 * server.refused.size() / requests).as(what).isLessThanOrEqualTo(3);
      assertThat(server.refusedAfter(20 * SECOND)).as(what).isZero();
      assertThat(server.refused.stream().distinct().count()).as(what).isLessThanOrEqualTo(1);
    }
  }

  /**
   * NestJS with slower answers (8 or 20 ms there, 4 to 40 ms back). A request the refill pace
   * let go before the log was recognised drew a 429 and a block; the block's refusals were taken
   * for the log's own overdraw, which moved its lower bound past the window, so the next counts
   * contradicted the bounds and the log was learned again from nothing, paced as a smooth refill
   * meanwhile: one 429 and a block a window (80-87% of the allowance, 15-19 429s). A refusal of a
   * request the log did not let go now moves nothing, and a reset that trails a request by less
   * than a unit of ours was ever seen held (the tracker's expiry) bounds nothing.
   */
  @Test
  void nestjsWithSlowAnswersKeepsItsLogThroughABlockItDidNotCause() {
    for (long[] cell : new long[][] {{20, 250}, {8, 800}}) {
      long oneWay = cell[0] * MS;
      Random random = new Random(cell[1] + cell[0]);
      Server server = run(clock -> new Nest(clock, 20, Duration.ofSeconds(4)), cell[1], 8,
          Duration.ofSeconds(60), PacingStrategy.burstThenSpread(0.2), oneWay,
          () -> (long) (oneWay * (0.5 + random.nextDouble() * 2)));
      double goodput = 100.0 * server.admitted.size() / (20 * 15);
      long requests = server.admitted.size() + server.refused.size();
      String what = String.format(Locale.ROOT, "nestjs %d ms each way, start %d ms: %d admitted,"
          + " %d refused at %s", cell[0], cell[1], server.admitted.size(), server.refused.size(),
          server.refused.stream().map(t -> String.format(Locale.ROOT, "%.2f", t / 1e9)).toList());
      assertThat(goodput).as(what).isGreaterThanOrEqualTo(90);
      assertThat(100.0 * server.refused.size() / requests).as(what).isLessThanOrEqualTo(3);
    }
  }

  /**
   * A token bucket in steady use passes for a sliding log for a while: its reset trails each
   * request, and its counts fit a log of a shorter window (the time its spent units take to come
   * back). Paced as that log it was overdrawn (the simulator's grid: up to 17 429s). It is paced
   * as a bucket: nothing refused once its rate is known.
   */
  @Test
  void aTokenBucketInSteadyUseIsNotTakenForALog() {
    for (PacingStrategy strategy : new PacingStrategy[] {PacingStrategy.spread(),
        PacingStrategy.burstThenSpread(0.2)}) {
      Server server = run(clock -> new Bucket(clock, 100, Duration.ofSeconds(60)), 0, 64,
          Duration.ofMinutes(10), strategy);
      assertThat(server.refusedAfter(120 * SECOND)).as("bucket, %s: 429s after two windows"
          + " (%d admitted)", strategy, server.admitted.size()).isZero();
      assertThat(server.admitted.size()).as("bucket, %s: admitted", strategy)
          .isGreaterThanOrEqualTo(900);
    }
  }
}
