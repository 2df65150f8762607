package dev.headway.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.HttpFields;
import dev.headway.Pacer;
import dev.headway.Permit;
import dev.headway.RateLimitedException;
import dev.headway.RequestInfo;
import dev.headway.store.QuotaKey;
import dev.headway.testing.LocalRedisServer;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A day-long hold one instance of a fleet learned from its server ({@code Retry-After:
 * 99999999}, capped to a day), shared through a real Redis: every other instance holding it
 * checks it once it has lasted its {@code maxWait}, as the instance that received it does, and
 * one instance's admitted check releases the others. Real time; every admitted request is
 * answered 200 with a count.
 */
@Timeout(60)
class RedisFleetHoldTest {
  static final RequestInfo GET = RequestInfo.get(URI.create("https://api.example.com/items"));
  static final QuotaKey KEY = new QuotaKey("https://api.example.com:443", "requests");
  static final HttpFields OK = HttpFields.of("RateLimit-Policy", "\"d\";q=1000;w=60",
      "RateLimit", "\"d\";r=800;t=30");

  private final List<RedisQuotaStore> stores = new ArrayList<>();
  private final List<Pacer> pacers = new ArrayList<>();
  private LocalRedisServer redis;

  @AfterEach
  void close() {
    try {
      if (redis != null) {
        KeyExpiry.assertEveryKeyExpires(redis.uri(), "headway:");
      }
    } finally {
      pacers.forEach(Pacer::close);
      stores.forEach(RedisQuotaStore::close);
      if (redis != null) {
        redis.stop();
      }
    }
  }

  /** An instance: a pacer with its own store, as another process would have. */
  private Pacer instance(Duration maxWait) {
    RedisQuotaStore store = RedisQuotaStore.builder(redis.uri()).timeout(Duration.ofSeconds(5))
        .build();
    stores.add(store);
    Pacer pacer = Pacer.builder().maxWait(maxWait).store(store).build();
    pacers.add(pacer);
    return pacer;
  }

  /** One call with a budget of 1 ms; answered 200 if it went. Returns whether it went. */
  private static boolean call(Pacer pacer) throws Exception {
    try {
      Permit permit = pacer.acquire(GET, Duration.ofMillis(1));
      permit.complete(200, OK, null);
      return true;
    } catch (RateLimitedException e) {
      return false;
    }
  }

  /** {@code a} is answered 429 {@code Retry-After: 99999999}; returns once Redis holds it. */
  private long heldForADay(Pacer a) throws Exception {
    a.acquire(GET).complete(200, OK, null);
    a.acquire(GET).complete(429, HttpFields.of("Retry-After", "99999999"), null);
    long heldAt = System.nanoTime();
    long end = heldAt + TimeUnit.SECONDS.toNanos(5);
    while (stores.get(0).read(KEY).toCompletableFuture().get(5, TimeUnit.SECONDS).holdUntil()
        .isEmpty()) {
      assertThat(System.nanoTime()).as("the hold reached Redis").isLessThan(end);
      Thread.sleep(5);
    }
    return heldAt;
  }

  private static long ms(long since) {
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - since);
  }

  @Test
  void anotherInstanceChecksTheHoldItLearnedFromRedis() throws Exception {
    redis = LocalRedisServer.start();
    Pacer a = instance(Duration.ofSeconds(1));
    long heldAt = heldForADay(a);
    Pacer b = instance(Duration.ofSeconds(1));
    long started = System.nanoTime();
    List<Long> sent = new ArrayList<>();
    while (ms(started) < 5_000) {
      if (call(b)) {
        sent.add(ms(heldAt));
      }
      Thread.sleep(100);
    }
    // Its first call may go before Redis answers (Redis too slow for a budget of 1 ms).
    List<Long> later = sent.stream().filter(t -> t > 500).toList();
    assertThat(later).as("B's sends, ms after the hold").isNotEmpty();
    assertThat(later.get(0)).as("B checks once the hold has lasted its maxWait")
        .isBetween(1_000L, 3_500L);
    assertThat(later).as("after its check was admitted, B's calls go").hasSizeGreaterThan(
        (int) ((5_000 - later.get(0)) / 200));
  }

  @Test
  void oneInstancesAdmittedCheckReleasesTheOthers() throws Exception {
    redis = LocalRedisServer.start();
    Pacer a = instance(Duration.ofSeconds(1));
    long heldAt = heldForADay(a);
    // B's own check would wait 20 s: only A's check can release it within the test.
    Pacer b = instance(Duration.ofSeconds(20));
    List<Long> aSent = new ArrayList<>();
    List<Long> bSent = new ArrayList<>();
    while (ms(heldAt) < 6_000) {
      if (call(a)) {
        aSent.add(ms(heldAt));
      }
      if (call(b)) {
        bSent.add(ms(heldAt));
      }
      Thread.sleep(100);
    }
    assertThat(aSent).as("A's sends, ms after the hold: it checks after maxWait").isNotEmpty();
    long checked = aSent.get(0);
    List<Long> later = bSent.stream().filter(t -> t > 500).toList();
    assertThat(later).as("B's sends, ms after the hold").isNotEmpty();
    assertThat(later.get(0)).as("released by A's check (at %d ms) at its next read of Redis",
        checked).isBetween(checked, checked + 1_500);
  }
}
