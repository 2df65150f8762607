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
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Servers that advertise a fixed window as real limiters do, driven by closed-loop callers in
 * virtual time, through the real header parsers: what the server counts per window and how many
 * 429s it answers.
 */
@Timeout(60)
class AdvertisedWindowServersTest {
  static final RequestInfo GET = RequestInfo.get(URI.create("http://127.0.0.1:8080/work"));
  static final long MS = 1_000_000L;
  static final long SECOND = 1_000_000_000L;
  static final DateTimeFormatter HTTP_DATE = DateTimeFormatter
      .ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US).withZone(ZoneOffset.UTC);

  /** How a server spells its reset. */
  enum Style {
    /**
     * koa-ratelimit: a window opened by the first request after the last one expired;
     * {@code X-RateLimit-Reset} in fractional epoch seconds; on the 429 a {@code Retry-After} of
     * the whole seconds left, rounded down (0 in the window's last second).
     */
    KOA,
    /**
     * express-rate-limit's legacy headers: a window opened by the first request after the last
     * one expired; {@code X-RateLimit-Reset} in epoch seconds rounded up; on the 429 a
     * {@code Retry-After} of the seconds left, rounded up.
     */
    EXPRESS_LEGACY,
    /**
     * @fastify/rate-limit: a window opened by the first request after the last one expired;
     * {@code x-ratelimit-reset} in delta seconds rounded up, as is the 429's {@code retry-after}.
     */
    FASTIFY
  }

  /** A fixed window of {@code quota} per {@code window}, opened by a request, as {@link Style}. */
  static final class Server {
    final VirtualClock clock;
    final Style style;
    final long quota;
    final long windowNanos;
    long resetAt = Long.MIN_VALUE;
    long used;
    final List<long[]> windows = new ArrayList<>(); // {start, admitted, refused}
    int throttled;
    int received;

    Server(VirtualClock clock, Style style, long quota, Duration window) {
      this.clock = clock;
      this.style = style;
      this.quota = quota;
      this.windowNanos = window.toNanos();
    }

    /** Receives a request of the pacer's now. */
    Response handle() {
      return handle(true);
    }

    /** Receives a request now, the pacer's ({@code own}) or another client's. */
    Response handle(boolean own) {
      long now = clock.read();
      if (own) {
        received++;
      }
      if (now >= resetAt) {
        resetAt = now + windowNanos;
        used = 0;
        windows.add(new long[] {now, 0, 0});
      }
      long[] current = windows.get(windows.size() - 1);
      Instant wallNow = clock.instant();
      Instant wallReset = wallNow.plusNanos(resetAt - now);
      List<String> h = new ArrayList<>(List.of("Date", HTTP_DATE.format(wallNow),
          "X-RateLimit-Limit", Long.toString(quota)));
      boolean admitted = used < quota;
      if (admitted) {
        used++;
        current[1] += own ? 1 : 0;
      } else if (own) {
        current[2]++;
        throttled++;
      }
      h.addAll(List.of("X-RateLimit-Remaining", Long.toString(quota - used)));
      long leftNanos = resetAt - now;
      if (style == Style.KOA) {
        h.addAll(List.of("X-RateLimit-Reset", String.format(Locale.ROOT, "%d.%06d",
            wallReset.getEpochSecond(), wallReset.getNano() / 1000)));
        if (!admitted) {
          h.addAll(List.of("Retry-After", Long.toString(leftNanos / SECOND)));
        }
      } else if (style == Style.FASTIFY) {
        long up = (leftNanos / MS + 999) / 1000; // whole milliseconds, then seconds rounded up
        h.addAll(List.of("X-RateLimit-Reset", Long.toString(up)));
        if (!admitted) {
          h.addAll(List.of("Retry-After", Long.toString(up)));
        }
      } else {
        long epochUp = wallReset.getEpochSecond() + (wallReset.getNano() > 0 ? 1 : 0);
        h.addAll(List.of("X-RateLimit-Reset", Long.toString(epochUp)));
        if (!admitted) {
          h.addAll(List.of("Retry-After", Long.toString((leftNanos + SECOND - 1) / SECOND)));
        }
      }
      return new Response(admitted ? 200 : 429, HttpFields.of(h.toArray(String[]::new)));
    }

    /** 2xx of the windows that began in [from, to). */
    long admittedBetween(long from, long to) {
      return windows.stream().filter(w -> w[0] >= from && w[0] < to).mapToLong(w -> w[1]).sum();
    }

    String describe() {
      StringBuilder b = new StringBuilder();
      for (long[] w : windows) {
        b.append(String.format(Locale.ROOT, "%n  at %.3f s: %d admitted, %d refused",
            w[0] / 1e9, w[1], w[2]));
      }
      return b.toString();
    }
  }

  record Response(int status, HttpFields headers) {}

  /** How long one way takes: a fixed time, or drawn for each leg. */
  interface Latency {
    Duration next();
  }

  /**
   * A loaded machine: 1 ms and an exponential tail of mean {@code meanMillis}, and now and then
   * (one leg in {@code 1/spikeChance}) a stall of 20-100 ms (a thread put aside, a collection).
   */
  static Latency loaded(long seed, double meanMillis, int spikeChance) {
    java.util.Random random = new java.util.Random(seed);
    return () -> {
      double ms = 1 + -Math.log(1 - random.nextDouble()) * meanMillis;
      if (random.nextInt(spikeChance) == 0) {
        ms += 20 + random.nextInt(80);
      }
      return Duration.ofNanos((long) (ms * MS));
    };
  }

  /** One closed-loop caller: acquire, reach the server after {@code oneWay}, answer after it. */
  private static void call(Pacer pacer, VirtualClock clock, Server server, Duration oneWay,
      long untilNanos) {
    call(pacer, clock, server, () -> oneWay, untilNanos);
  }

  private static void call(Pacer pacer, VirtualClock clock, Server server, Latency oneWay,
      long untilNanos) {
    if (clock.read() >= untilNanos) {
      return;
    }
    pacer.acquireAsync(GET).whenComplete((permit, error) -> {
      if (error != null) {
        Throwable cause = error instanceof CompletionException ? error.getCause() : error;
        RateLimitedException e = (RateLimitedException) cause;
        clock.schedule(() -> call(pacer, clock, server, oneWay, untilNanos),
            e.requiredWait().plusMillis(1));
        return;
      }
      clock.schedule(() -> {
        Response response = server.handle();
        clock.schedule(() -> {
          Permit p = permit;
          p.complete(response.status(), response.headers(), null);
          call(pacer, clock, server, oneWay, untilNanos);
        }, oneWay.next());
      }, oneWay.next());
    });
  }

  private static Server run(Style style, long startMillis, Duration oneWay, int callers,
      Duration length) {
    return run(style, startMillis, oneWay, callers, length, 0);
  }

  private static Server run(Style style, long startMillis, Duration oneWay, int callers,
      Duration length, int foreign) {
    return run(style, startMillis, () -> oneWay, callers, length, foreign);
  }

  /** With {@code foreign} requests of another client at 10 s, 30 s and 50 s. */
  static Server run(Style style, long startMillis, Latency oneWay, int callers,
      Duration length, int foreign) {
    VirtualClock clock = VirtualClock.startingAt(
        Instant.parse("2026-11-28T22:00:00Z").plusMillis(startMillis));
    Server server = new Server(clock, style, 20, Duration.ofSeconds(4));
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock).jitterSeed(3)
        .strategy(PacingStrategy.burstThenSpread(0.2)).build();
    long until = length.toNanos();
    for (int i = 0; i < callers; i++) {
      call(pacer, clock, server, oneWay, until);
    }
    for (int at = 10; foreign > 0 && at < length.toSeconds(); at += 20) {
      clock.schedule(() -> {
        for (int i = 0; i < foreign; i++) {
          server.handle(false);
        }
      }, Duration.ofSeconds(at));
    }
    while (clock.read() < until + SECOND) {
      clock.advance(Duration.ofMillis(1));
    }
    return server;
  }

  /**
   * koa's {@code Retry-After} is the whole seconds left rounded down, so it ends up to a second
   * before the window does (and is 0 in its last second), while its fractional reset is exact.
   * Taken in the reset's place, each 429 sent a probe into the spent window at once, whose 429
   * said 0 again: a storm until the window ended (382 429s in one window of a CI cell).
   */
  @Test
  void aRetryAfterRoundedDownIsNotTakenForAnEarlierResetThanTheOneAdvertised() {
    for (long start : new long[] {0, 130, 470, 610, 990}) {
      // Another client takes 6 units at 10 s, 30 s and 50 s: the pacer draws a 429 each time.
      Server server = run(Style.KOA, start, Duration.ofMillis(1), 8, Duration.ofSeconds(60), 6);
      assertThat(server.throttled).as("429s, start %d ms:%s", start, server.describe())
          .isLessThanOrEqualTo(3 * 2 + 6 * 3);
    }
  }

  /**
   * Eight callers on a loaded machine (answers out of order, now and then a stall of up to
   * 100 ms) against each style, for a minute: after the first window, no 429.
   */
  @Test
  void eightCallersOnALoadedMachineDrawNo429AfterTheFirstWindow() {
    for (Style style : Style.values()) {
      for (long seed = 1; seed <= 6; seed++) {
        Server server = run(style, seed * 337 % 1000, loaded(seed, 10, 10), 8,
            Duration.ofSeconds(60), 0);
        long after = server.windows.stream().skip(1).mapToLong(w -> w[2]).sum();
        assertThat(after).as("%s, seed %d: 429s after the first window:%s", style, seed,
            server.describe()).isZero();
      }
    }
  }

  /**
   * koa's reset is exact (fractional epoch seconds) but its {@code Date} is whole seconds, and
   * measured from the start of that second the reset came out up to a second late; each window,
   * opened by the first request after the reset the client waited for, started that much late.
   * Measured from what the earlier answers' {@code Date} fields said of the server's clock (the
   * server's clock read at least {@code Date − arrival} more than the client's when it answered),
   * it is exact to a round trip: 89-99% of the allowance at five phases before, 100% now; on a
   * loaded machine 83-88% before, 89-94% now. No 429 either way.
   */
  @Test
  void koasFractionalResetIsMeasuredFromTheServersClockNotFromTheSecondOfItsDate() {
    for (long start : new long[] {0, 130, 470, 610, 990}) {
      Server server = run(Style.KOA, start, Duration.ofMillis(1), 8, Duration.ofSeconds(60));
      long admitted = server.windows.stream().mapToLong(w -> w[1]).sum();
      assertThat(server.throttled).as("start %d ms: 429s:%s", start, server.describe()).isZero();
      assertThat(100.0 * admitted / (20 * 15)).as("start %d ms: goodput:%s", start,
          server.describe()).isGreaterThanOrEqualTo(97);
    }
    long admitted = 0;
    for (long seed = 1; seed <= 6; seed++) {
      Server server = run(Style.KOA, seed * 337 % 1000, loaded(seed, 10, 10), 8,
          Duration.ofSeconds(60), 0);
      assertThat(server.throttled).as("seed %d: 429s:%s", seed, server.describe()).isZero();
      admitted += server.windows.stream().mapToLong(w -> w[1]).sum();
    }
    assertThat(100.0 * admitted / (6 * 20 * 15)).as("loaded: mean goodput")
        .isGreaterThanOrEqualTo(89);
  }
}
