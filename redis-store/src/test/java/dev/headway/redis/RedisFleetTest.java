package dev.headway.redis;

import dev.headway.testing.LocalRedisServer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
import dev.headway.Permit;
import dev.headway.QuotaLimit;
import dev.headway.QuotaPolicy;
import dev.headway.QuotaUnit;
import dev.headway.RateLimitSignal;
import dev.headway.RateLimitedException;
import dev.headway.RequestInfo;
import dev.headway.store.QuotaKey;
import dev.headway.store.SharedQuota;
import java.net.URI;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Four pacers (separate {@link Pacer} instances, each with its own {@link RedisQuotaStore}, as
 * separate processes would be) sharing one quota through a real Redis. Real processes and
 * sockets, so real time; the waits here are the pacers' own, or waiting for Redis.
 */
@Timeout(120)
class RedisFleetTest {
  static final RequestInfo GET = RequestInfo.get(URI.create("https://api.example.com/items"));
  static final QuotaKey KEY = new QuotaKey("https://api.example.com:443", "requests");

  private final List<RedisQuotaStore> stores = new ArrayList<>();
  private final ExecutorService threads = Executors.newFixedThreadPool(16);

  /** A server with {@code remaining} requests left in a 60 s window; 429s past it. */
  static final class Server {
    private long remaining;
    private long ok;
    private long throttled;

    synchronized void refill(long units) {
      remaining = units;
    }

    synchronized RateLimitSignal handle() {
      int status = remaining > 0 ? 200 : 429;
      if (status == 200) {
        remaining--;
        ok++;
      } else {
        throttled++;
      }
      return new RateLimitSignal(status,
          List.of(new QuotaPolicy("default", 100_000, QuotaUnit.REQUESTS,
              Optional.of(Duration.ofSeconds(60)), Optional.empty(), "ietf")),
          List.of(new QuotaLimit("default", remaining, Optional.of(Duration.ofSeconds(60)),
              Optional.empty(), "ietf")),
          Optional.empty(), Optional.empty(), Optional.empty(), List.of(), List.of("ietf"),
          List.of(), status == 429);
    }

    synchronized long remaining() {
      return remaining;
    }

    synchronized long ok() {
      return ok;
    }

    synchronized long throttled() {
      return throttled;
    }
  }

  private final Server server = new Server();

  private LocalRedisServer redis;
  /** Whether a request reaches the server only once the fleet has lent every unit it had. */
  private volatile boolean afterEveryUnitLent;

  /** The test's Redis; stopped after the test, once every key it holds is seen to expire. */
  private LocalRedisServer redis() {
    redis = LocalRedisServer.start();
    return redis;
  }

  @AfterEach
  void close() {
    threads.shutdownNow();
    try {
      if (redis != null) {
        KeyExpiry.assertEveryKeyExpires(redis.uri(), "headway:");
      }
    } finally {
      stores.forEach(RedisQuotaStore::close);
      if (redis != null) {
        redis.stop();
      }
    }
  }

  private List<Pacer> fleet(LocalRedisServer redis, int n) throws Exception {
    return fleet(redis, n, Duration.ofMillis(250));
  }

  /** {@code n} pacers, each with its own store whose calls time out after {@code timeout}. */
  private List<Pacer> fleet(LocalRedisServer redis, int n, Duration timeout) throws Exception {
    List<Pacer> pacers = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      RedisQuotaStore store = RedisQuotaStore.builder(redis.uri()).timeout(timeout)
          .backoff(Duration.ofMillis(100), Duration.ofMillis(200)).build();
      stores.add(store);
      pacers.add(Pacer.builder().jitterSeed(i).store(store).build());
    }
    return pacers;
  }

  /** Acquires (at most {@code maxWait}), sends, completes; returns the nanos waited. */
  private long send(Pacer pacer, Duration maxWait) throws Exception {
    long start = System.nanoTime();
    Permit permit = pacer.acquire(GET, maxWait);
    long waited = System.nanoTime() - start;
    if (afterEveryUnitLent) {
      awaitLent();
    }
    permit.complete(server.handle());
    return waited;
  }

  /**
   * Waits (bounded) until Redis shows every unit lent (none available): a unit the fleet never
   * lends is still seen missing, 10 s later.
   */
  private void awaitLent() throws Exception {
    long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (read().available().orElse(-1) != 0 && System.nanoTime() < end) {
      Thread.sleep(5);
    }
  }

  private SharedQuota read() throws Exception {
    return stores.get(0).read(KEY).toCompletableFuture().get(5, TimeUnit.SECONDS);
  }

  /** Waits (bounded) until what the pacers told Redis has landed: {@code units} available. */
  private void awaitAvailable(long units) throws Exception {
    long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (read().available().orElse(-1) != units) {
      assertThat(System.nanoTime()).as("a count reached Redis within 10 s").isLessThan(end);
      Thread.sleep(5);
    }
  }

  /** Every pacer makes {@code each} calls at once; returns how many were sent. */
  private long burst(List<Pacer> pacers, int each, Duration maxWait) throws Exception {
    List<Future<Boolean>> calls = new ArrayList<>();
    for (Pacer pacer : pacers) {
      for (int j = 0; j < each; j++) {
        calls.add(threads.submit(() -> {
          try {
            send(pacer, maxWait);
            return true;
          } catch (RateLimitedException e) {
            return false; // the documented refusal
          }
        }));
      }
    }
    long sent = 0;
    for (Future<Boolean> call : calls) {
      if (call.get(30, TimeUnit.SECONDS)) {
        sent++;
      }
    }
    return sent;
  }

  @Test
  void fourPacersSharingTheLastThreeUnitsSendExactlyThree() throws Exception {
    { // stopped after the test, once its keys are checked
      LocalRedisServer redis = redis();
      // Store calls time out after 5 s, not 250 ms: on a loaded machine a call past 250 ms made
      // an instance pace locally, as documented, and send a fourth unit (RedisFaultsTest covers
      // timeouts); this test is about sharing.
      List<Pacer> pacers = fleet(redis, 4, Duration.ofSeconds(5));
      server.refill(4);
      send(pacers.get(0), Duration.ofSeconds(1)); // the server says 3 are left
      awaitAvailable(3);
      // The requests reach the server once the fleet has lent all three units. Otherwise threads
      // a loaded machine runs late can have the request decided first counted last, its count
      // (1 left) reach Redis before the other's (2 left), and the third unit not lent yet: on a
      // window not shown to come back whole the store keeps the other's unit taken until a count
      // observed after it was sent (a count with more left may be of units given back since:
      // docs/fleet.md), which the window's last request never brings, and the fleet sends 2 of
      // 3 (FleetTest's disabled test, in virtual time). CI saw 2 of 3 once in four runs.
      afterEveryUnitLent = true;
      // Long enough that a loaded machine's late threads still spend what their pacer leased.
      assertThat(burst(pacers, 3, Duration.ofSeconds(5))).isEqualTo(3);
      assertThat(server.ok()).isEqualTo(4);
      assertThat(server.throttled()).isZero();
    }
  }

  /**
   * The server refused one instance's request for a reason of its own (a bare 429): it did not
   * count it, so the unit that instance took of the fleet's last one goes back through Redis,
   * and after the hold exactly one more request goes. Kept taken, the fleet would believe itself
   * spent until a count said otherwise, and none would come.
   */
  @Test
  void aThrottledRequestsUnitGoesBackToTheFleet() throws Exception {
    { // stopped after the test, once its keys are checked
      LocalRedisServer redis = redis();
      List<Pacer> pacers = fleet(redis, 4, Duration.ofSeconds(5));
      server.refill(2);
      send(pacers.get(0), Duration.ofSeconds(1)); // the server says 1 is left
      awaitAvailable(1);
      pacers.get(1).acquire(GET, Duration.ofSeconds(5)).complete(new RateLimitSignal(429,
          List.of(), List.of(), Optional.of(Duration.ofSeconds(1)), Optional.empty(),
          Optional.empty(), List.of(), List.of("test"), List.of(), true));
      assertThat(burst(pacers.subList(2, 4), 2, Duration.ofSeconds(5)))
          .as("the unit given back is sent once").isEqualTo(1);
      assertThat(server.ok()).isEqualTo(2);
      assertThat(server.throttled()).isZero();
    }
  }

  @Test
  void oneInstancesThrottledResponseHoldsTheWholeFleet() throws Exception {
    { // stopped after the test, once its keys are checked
      LocalRedisServer redis = redis();
      List<Pacer> pacers = fleet(redis, 4);
      server.refill(1_000);
      for (Pacer pacer : pacers) {
        send(pacer, Duration.ofSeconds(1));
      }
      long throttledAt = System.nanoTime();
      pacers.get(0).acquire(GET).complete(new RateLimitSignal(429, List.of(), List.of(),
          Optional.of(Duration.ofSeconds(2)), Optional.empty(), Optional.empty(), List.of(),
          List.of("test"), List.of(), true));
      long end = System.nanoTime() + Duration.ofSeconds(5).toNanos();
      while (read().holdUntil().isEmpty()) {
        assertThat(System.nanoTime()).as("the hold reached Redis").isLessThan(end);
        Thread.sleep(5);
      }
      List<Future<Long>> sentAt = new ArrayList<>();
      for (Pacer pacer : pacers.subList(1, 4)) {
        Callable<Long> call = () -> {
          send(pacer, Duration.ofSeconds(10));
          return System.nanoTime();
        };
        sentAt.add(threads.submit(call));
        sentAt.add(threads.submit(call));
      }
      for (Future<Long> at : sentAt) {
        // Redis keeps instants to the millisecond: allow that much.
        assertThat(at.get(30, TimeUnit.SECONDS) - throttledAt)
            .as("another instance's 429 held this one").isGreaterThanOrEqualTo(
                Duration.ofSeconds(2).minusMillis(5).toNanos());
      }
    }
  }

  /**
   * A hold in the shared store that no server gave (another client, an older version, garbage)
   * until the year 9999: before, the fleet refused every call until then. A server's
   * Retry-After is capped at a day; so is what the store hands the pacer.
   */
  @Test
  void aHoldAnotherClientWroteForTheYear9999HoldsTheFleetADayAtMost() throws Exception {
    { // stopped after the test, once its keys are checked
      LocalRedisServer redis = redis();
      List<Pacer> pacers = fleet(redis, 1, Duration.ofSeconds(5));
      RedisClient adminClient = RedisClient.create(redis.uri().toString());
      try (StatefulRedisConnection<String, String> admin = adminClient.connect()) {
        admin.sync().set(KeyNames.of("headway:", KEY)[2], "253402300799999");
      } finally {
        adminClient.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      }
      server.refill(10);
      RateLimitedException refused = null;
      for (int i = 0; i < 5 && refused == null; i++) {
        try {
          send(pacers.get(0), Duration.ofSeconds(1));
        } catch (RateLimitedException e) {
          refused = e;
        }
      }
      assertThat(refused).as("the fleet's hold refuses the call").isNotNull();
      assertThat(refused.retryAt()).as("what the pacer was told")
          .isBefore(Instant.now().plus(Duration.ofDays(1)).plusSeconds(60));
      assertThat(read().holdUntil().orElseThrow())
          .isBefore(Instant.now().plus(Duration.ofDays(1)).plusSeconds(60));
    }
  }

  @Test
  void redisStoppedMidRunLeavesCallsPacedLocallyAndSharingResumesAfterARestart()
      throws Exception {
    { // stopped after the test, once its keys are checked
      LocalRedisServer redis = redis();
      List<Pacer> pacers = fleet(redis, 4);
      server.refill(100_000);
      Duration maxWait = Duration.ofMillis(300);
      assertThat(burst(pacers, 20, maxWait)).isEqualTo(80);

      redis.stop();
      List<Future<Long>> waits = new ArrayList<>();
      for (Pacer pacer : pacers) {
        waits.add(threads.submit(() -> {
          long longest = 0;
          for (int i = 0; i < 50; i++) {
            longest = Math.max(longest, send(pacer, maxWait)); // throws nothing
          }
          return longest;
        }));
      }
      for (Future<Long> longest : waits) {
        // maxWait, and a little for threads a busy machine runs late.
        assertThat(longest.get(60, TimeUnit.SECONDS)).as("no call waited past maxWait")
            .isLessThan(maxWait.plusMillis(200).toNanos());
      }
      assertThat(server.ok()).as("calls went on while Redis was down").isEqualTo(80 + 200);

      redis.restart(); // empty
      server.refill(40);
      long end = System.nanoTime() + Duration.ofSeconds(20).toNanos();
      do { // until the fleet shares again: one call every 20 ms
        Thread.sleep(20);
        send(pacers.get(0), Duration.ofSeconds(5));
        assertThat(System.nanoTime()).as("sharing resumed within 20 s").isLessThan(end);
      } while (stores.get(1).read(KEY).toCompletableFuture().handle((s, e) -> e == null
          && s.count().isPresent()).get(5, TimeUnit.SECONDS) == Boolean.FALSE);
      long left;
      synchronized (server) {
        left = server.remaining;
      }
      assertThat(left).as("the resume took a few calls, not the whole quota").isPositive();
      long sent = burst(pacers, 20, Duration.ofSeconds(1));
      assertThat(sent).as("the fleet spends what is left, once").isLessThanOrEqualTo(left)
          .isPositive();
      assertThat(server.throttled()).isZero();
    }
  }
}
