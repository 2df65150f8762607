package dev.headway.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.headway.Pacer;
import dev.headway.Permit;
import dev.headway.RateLimitedException;
import dev.headway.RequestInfo;
import dev.headway.store.QuotaKey;
import dev.headway.store.SharedQuota;
import dev.headway.testing.LocalRedisServer;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Several pacers of one process given one {@link RedisQuotaStore} (a Spring {@code QuotaStore}
 * bean injected into two {@code Pacer} beans; one store handed to each client's pacer). Before,
 * the store counted them as one instance, its one id: four pacers sharing the last three units
 * sent four, and the server answered one 429. Now each pacer after the first open one runs on
 * {@link RedisQuotaStore#anotherInstance()}: the same connection, an id of its own. Real Redis,
 * so real time; the waits are the pacers' own or for Redis.
 */
@Timeout(120)
class SeveralPacersOneStoreTest {
  static final RequestInfo GET = RequestInfo.get(URI.create("https://api.example.com/items"));
  static final QuotaKey KEY = new QuotaKey("https://api.example.com:443", "requests");

  private final ExecutorService threads = Executors.newFixedThreadPool(16);
  private final RedisFleetTest.Server server = new RedisFleetTest.Server();
  private LocalRedisServer redis;
  private RedisQuotaStore store;

  @AfterEach
  void close() {
    threads.shutdownNow();
    if (store != null) {
      store.close();
    }
    if (redis != null) {
      redis.stop();
    }
  }

  private SharedQuota read() throws Exception {
    return store.read(KEY).toCompletableFuture().get(5, TimeUnit.SECONDS);
  }

  private void awaitAvailable(long units) throws Exception {
    long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (read().available().orElse(-1) != units) {
      assertThat(System.nanoTime()).as("a count reached Redis within 10 s").isLessThan(end);
      Thread.sleep(5);
    }
  }

  private void awaitLent() throws Exception {
    long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (read().available().orElse(-1) != 0 && System.nanoTime() < end) {
      Thread.sleep(5);
    }
  }

  private long burst(List<Pacer> pacers, int each, Duration maxWait, boolean afterLent)
      throws Exception {
    List<Future<Boolean>> calls = new ArrayList<>();
    for (Pacer pacer : pacers) {
      for (int j = 0; j < each; j++) {
        calls.add(threads.submit(() -> {
          try {
            Permit permit = pacer.acquire(GET, maxWait);
            if (afterLent) {
              awaitLent();
            }
            permit.complete(server.handle());
            return true;
          } catch (RateLimitedException e) {
            return false;
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
  void fourPacersOnOneStoreShareTheLastThreeUnits() throws Exception {
    redis = LocalRedisServer.start();
    store = RedisQuotaStore.builder(redis.uri()).timeout(Duration.ofSeconds(5))
        .backoff(Duration.ofMillis(100), Duration.ofMillis(200)).build();
    List<Pacer> pacers = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      pacers.add(Pacer.builder().jitterSeed(i).store(store).build());
    }
    server.refill(4);
    pacers.get(0).acquire(GET, Duration.ofSeconds(1)).complete(server.handle());
    awaitAvailable(3);
    long sent = burst(pacers, 3, Duration.ofSeconds(5), true);
    assertThat(server.throttled()).as("429s").isZero();
    assertThat(sent).isEqualTo(3);
    assertThat(read().instances()).as("instances Redis counts").isEqualTo(4);
    pacers.forEach(Pacer::close);
    KeyExpiry.assertEveryKeyExpires(redis.uri(), "headway:");
  }

  @Test
  void anotherInstanceHasItsOwnIdAndClosingItLeavesTheConnectionOpen() throws Exception {
    redis = LocalRedisServer.start();
    store = RedisQuotaStore.builder(redis.uri()).instanceId("pod-7").build();
    RedisQuotaStore other = store.anotherInstance();
    assertThat(other.instanceId()).isNotEqualTo("pod-7").startsWith("pod-7");
    assertThat(store.anotherInstance().instanceId()).isNotEqualTo(other.instanceId());
    other.close();
    assertThat(read().count()).isEmpty(); // the store still answers
    store.close();
    assertThatThrownBy(() -> other.read(KEY).toCompletableFuture().get(5, TimeUnit.SECONDS))
        .hasRootCauseMessage("store closed");
  }
}
