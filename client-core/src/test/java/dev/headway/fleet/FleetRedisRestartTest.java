package dev.headway.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
import dev.headway.QuotaLimit;
import dev.headway.QuotaPolicy;
import dev.headway.QuotaUnit;
import dev.headway.RateLimitSignal;
import dev.headway.RateLimitedException;
import dev.headway.RequestInfo;
import dev.headway.store.InMemoryQuotaStore;
import dev.headway.store.QuotaStore;
import dev.headway.store.QuotaStoreException;
import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A Redis restarted under a small fleet, as a new user's trial did it: two instances of 4
 * closed-loop callers share a fixed window of 10 requests per 2 s (quota headers on every
 * response, 1-4 ms each way to the server, maxWait 5 s); the Redis dies (every store call fails,
 * those in flight too) and comes back empty 4 to 5 s later. Each instance's store backs off as
 * the Redis store does: after a failure it fails every call at once and probes Redis 100 ms
 * later, then 200 ms after that, doubling up to 10 s; it answers again from the first probe that
 * finds Redis up. Virtual time.
 */
@Timeout(300)
class FleetRedisRestartTest {
  static final RequestInfo GET = RequestInfo.get(URI.create("https://api.example.com/items"));
  private static final Duration MAX_WAIT = Duration.ofSeconds(5);
  private static final long RUN_NANOS = 20_000_000_000L;
  private static final long MIN_BACKOFF = 100_000_000L;
  private static final long MAX_BACKOFF = 10_000_000_000L;

  private final VirtualClock clock = VirtualClock.create();
  private Random rtt = new Random(7);
  private final ExpressServer server = new ExpressServer();
  private volatile InMemoryQuotaStore redis = newStore();
  private volatile boolean down;
  private boolean comesBackEmpty = true;
  /** Whether the server gives its quota and window ({@code RateLimit-Policy}), else counts only. */
  private boolean policyGiven = true;
  /** Whether the server gives its counts' reset, else only the units left. */
  private boolean resetGiven = true;
  /** Bumped when Redis dies: calls made before then fail when they complete. */
  private volatile int epoch;

  /** One request the server received. */
  record Sent(String client, long atNanos, int status) {}

  /**
   * A server limiting as express-rate-limit's memory store does: 10 requests per 2 s, a window
   * starting with the first request after the last one ended, every request counted (429s too),
   * {@code RateLimit} with the reset in whole seconds rounded up.
   */
  private final class ExpressServer {
    private static final long QUOTA = 10;
    private static final long WINDOW = 2_000_000_000L;
    private long resetAt = Long.MIN_VALUE;
    private long hits;
    private final List<Sent> sent = new ArrayList<>();

    synchronized RateLimitSignal handle(String client) {
      long now = clock.read();
      if (resetAt == Long.MIN_VALUE || now >= resetAt) {
        resetAt = now + WINDOW;
        hits = 0;
      }
      hits++;
      int status = hits > QUOTA ? 429 : 200;
      sent.add(new Sent(client, now, status));
      long resetSeconds = (resetAt - now + 999_999_999L) / 1_000_000_000L;
      return new RateLimitSignal(status,
          !policyGiven ? List.of() : List.of(new QuotaPolicy("fixed", QUOTA, QuotaUnit.REQUESTS,
              Optional.of(Duration.ofSeconds(2)), Optional.empty(), "ietf")),
          List.of(new QuotaLimit("fixed", Math.max(0, QUOTA - hits),
              resetGiven ? Optional.of(Duration.ofSeconds(resetSeconds)) : Optional.empty(),
              Optional.empty(), "ietf")),
          Optional.empty(), Optional.empty(), Optional.empty(), List.of(), List.of("ietf"),
          List.of(), status == 429);
    }

    synchronized List<Sent> sent() {
      return List.copyOf(sent);
    }
  }

  private InMemoryQuotaStore newStore() {
    return InMemoryQuotaStore.builder().clock(clock).roundTrip(Duration.ofMillis(1), clock)
        .build();
  }

  /** One instance's store: fails at once while it backs off, as the Redis store does. */
  private final class BackingOff extends CallThroughStore {
    private final String name;
    private boolean backingOff;
    private long backoff;

    BackingOff(String name) {
      this.name = name;
    }

    private synchronized void fail() {
      if (backingOff) {
        return;
      }
      backingOff = true;
      backoff = MIN_BACKOFF;
      clock.schedule(this::probe, Duration.ofNanos(backoff));
    }

    private synchronized void probe() {
      if (down) {
        backoff = Math.min(MAX_BACKOFF, 2 * backoff);
        clock.schedule(this::probe, Duration.ofNanos(backoff));
      } else {
        backingOff = false;
      }
    }

    @Override
    <T> CompletionStage<T> call(Function<QuotaStore, CompletionStage<T>> call) {
      synchronized (this) {
        if (backingOff) {
          return CompletableFuture.failedFuture(new QuotaStoreException("backing off"));
        }
      }
      if (down) {
        fail();
        return CompletableFuture.failedFuture(new QuotaStoreException("connection refused"));
      }
      int at = epoch;
      return call.apply(redis.instance(name)).thenCompose(r -> {
        if (epoch == at) {
          return CompletableFuture.completedFuture(r);
        }
        fail();
        return CompletableFuture.failedFuture(new QuotaStoreException("connection lost"));
      });
    }
  }

  private Pacer pacer(String name) {
    return Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .maxWait(MAX_WAIT).jitterSeed(name.hashCode()).store(new BackingOff(name)).build();
  }

  private void loop(Pacer pacer, String name) {
    if (clock.read() >= RUN_NANOS) {
      return;
    }
    pacer.acquireAsync(GET).whenComplete((permit, error) -> {
      if (error != null) {
        Throwable cause = error.getCause() != null ? error.getCause() : error;
        long wait = cause instanceof RateLimitedException r
            ? Math.max(1_000_000, Duration.between(clock.instant(), r.retryAt()).toNanos())
            : 1_000_000;
        clock.schedule(() -> loop(pacer, name), Duration.ofNanos(wait));
        return;
      }
      long there = (1 + rtt.nextInt(4)) * 1_000_000L;
      long back = (1 + rtt.nextInt(4)) * 1_000_000L;
      clock.schedule(() -> {
        RateLimitSignal answer = server.handle(name);
        clock.schedule(() -> {
          permit.complete(answer);
          loop(pacer, name);
        }, Duration.ofNanos(back));
      }, Duration.ofNanos(there));
    });
  }

  /** Runs the fleet with Redis dead from {@code killMillis} for {@code downMillis}. */
  private List<Sent> run(long seed, long killMillis, long downMillis) {
    rtt = new Random(seed);
    List<Pacer> pacers = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      pacers.add(pacer("p" + i));
    }
    for (int i = 0; i < 2; i++) {
      for (int c = 0; c < 4; c++) {
        loop(pacers.get(i), "p" + i);
      }
    }
    clock.schedule(() -> {
      down = true;
      epoch++;
    }, Duration.ofMillis(killMillis));
    clock.schedule(() -> {
      if (comesBackEmpty) {
        redis = newStore();
      }
      down = false;
    }, Duration.ofMillis(killMillis + downMillis));
    clock.advance(Duration.ofNanos(RUN_NANOS + 5_000_000_000L));
    StringBuilder at = new StringBuilder();
    long ok = 0;
    for (Sent s : server.sent()) {
      if (s.status() == 429) {
        at.append(String.format(" %s@%.3f", s.client(), s.atNanos() / 1e9));
      } else if (s.atNanos() < RUN_NANOS) {
        ok++;
      }
    }
    System.out.printf("kill at %d ms, down %d ms, seed %d: 200s %d; 429s at (s)%s%n", killMillis,
        downMillis, seed, ok, at);
    return server.sent();
  }

  /**
   * Redis killed at several phases of the window and back empty 4 to 5 s later, as in the
   * trial: no 429, and the fleet still sends most of the quota (100 in the run without an
   * outage; the outage and the shares after it cost at most a unit per instance and window).
   */
  @ParameterizedTest
  @CsvSource({"7, 9500, 4500", "7, 9900, 4500", "7, 10100, 4000", "7, 10400, 4500",
      "7, 10700, 4200", "7, 10950, 5000", "11, 9250, 4700", "11, 9750, 4300", "11, 10200, 4800",
      "13, 9000, 5000", "13, 9600, 4000", "13, 11300, 4400"})
  void aRedisRestartedEmptyDrawsNo429(long seed, long killMillis, long downMillis) {
    List<Sent> sent = run(seed, killMillis, downMillis);
    assertThat(sent).filteredOn(s -> s.status() == 429).isEmpty();
    assertThat(sent).filteredOn(s -> s.status() == 200 && s.atNanos() < RUN_NANOS)
        .hasSizeGreaterThanOrEqualTo(80);
  }

  /** The same, Redis back with everything it had (saved on shutdown and loaded again). */
  @ParameterizedTest
  @CsvSource({"7, 9500, 4500", "7, 9900, 4500", "7, 10400, 4500", "11, 9750, 4300",
      "13, 9000, 5000", "13, 11300, 4400"})
  void aRedisRestartedWithItsDataDrawsNo429(long seed, long killMillis, long downMillis) {
    comesBackEmpty = false;
    aRedisRestartedEmptyDrawsNo429(seed, killMillis, downMillis);
  }

  /**
   * The same, against a server that gives its counts and resets but not its quota or window
   * ({@code RateLimit} without {@code RateLimit-Policy}; express-rate-limit's draft-8 headers
   * read that way when the policy item carries a partition key the count does not). Before, an
   * instance whose share of such counts was spent could not tell when it came back, and went as
   * if alone: 5 to 8 429s a run, at the kill, during the outage and after it, as in the trial. A
   * sweep of 98 kills from 8 to 12 s (4 to 5 s down) drew 429s in 19 runs, and none since.
   */
  @ParameterizedTest
  @CsvSource({"7, 9500, 4500", "7, 9900, 4500", "7, 10400, 4500", "11, 9750, 4300",
      "13, 9000, 5000", "13, 11300, 4400"})
  void aServerThatGivesNoQuotaDrawsNo429(long seed, long killMillis, long downMillis) {
    policyGiven = false;
    aRedisRestartedEmptyDrawsNo429(seed, killMillis, downMillis);
  }

  /**
   * The same, against a server that gives only the units left: no quota, no window, no reset.
   * An instance whose share of such a count is spent cannot tell when it comes back; it waits for
   * the next count its own requests bring (one request once its last is 2 s old), as past the
   * reset of a window it does not know. Before, its share answered "never", which the instance
   * took for "go": it went as if alone: 11 to 14 429s a run (at the kill, during the outage and
   * after it) and 40 to 50 admitted in the run; now none, and 50 to 60 admitted.
   */
  @ParameterizedTest
  @CsvSource({"7, 9500, 4500", "7, 9900, 4500", "7, 10400, 4500", "11, 9750, 4300",
      "13, 9000, 5000", "13, 11300, 4400"})
  void aServerThatGivesOnlyTheUnitsLeftDrawsNo429(long seed, long killMillis, long downMillis) {
    policyGiven = false;
    resetGiven = false;
    List<Sent> sent = run(seed, killMillis, downMillis);
    assertThat(sent).filteredOn(s -> s.status() == 429).isEmpty();
  }
}
