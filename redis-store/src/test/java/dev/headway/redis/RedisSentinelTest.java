package dev.headway.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
import dev.headway.RateLimitedException;
import dev.headway.store.SharedQuota;
import dev.headway.testing.LocalRedisSentinel;
import dev.headway.testing.LocalRedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Two pacers, each with its own {@link RedisQuotaStore} on a {@code redis-sentinel://} URI, share
 * one quota through a real Sentinel-managed pair (see {@link LocalRedisSentinel}); the primary is
 * killed mid-run. Real processes, sockets and Redis's own failover, so real time: every wait is
 * bounded.
 */
@Timeout(120)
class RedisSentinelTest {
  private final RedisFleetTest.Server server = new RedisFleetTest.Server();
  private final List<RedisQuotaStore> stores = new ArrayList<>();
  private final ExecutorService threads = Executors.newFixedThreadPool(8);
  private LocalRedisSentinel sentinel;

  @AfterEach
  void close() {
    threads.shutdownNow();
    stores.forEach(RedisQuotaStore::close);
    if (sentinel != null) {
      sentinel.close();
    }
  }

  private List<Pacer> fleet(int n) {
    List<Pacer> pacers = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      RedisQuotaStore store = RedisQuotaStore.builder(sentinel.uri())
          .timeout(Duration.ofMillis(250)).backoff(Duration.ofMillis(100), Duration.ofMillis(200))
          .build();
      stores.add(store);
      pacers.add(Pacer.builder().jitterSeed(i).store(store).build());
    }
    return pacers;
  }

  /** Acquires (at most {@code maxWait}), sends, completes; returns the nanos waited. */
  private long send(Pacer pacer, Duration maxWait) throws Exception {
    long start = System.nanoTime();
    var permit = pacer.acquire(RedisFleetTest.GET, maxWait);
    long waited = System.nanoTime() - start;
    permit.complete(server.handle());
    return waited;
  }

  private long burst(List<Pacer> pacers, int each, Duration maxWait) throws Exception {
    List<Future<Boolean>> calls = new ArrayList<>();
    for (Pacer pacer : pacers) {
      for (int j = 0; j < each; j++) {
        calls.add(threads.submit(() -> {
          try {
            send(pacer, maxWait);
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

  private SharedQuota read(int store) throws Exception {
    return stores.get(store).read(RedisFleetTest.KEY).toCompletableFuture()
        .get(5, TimeUnit.SECONDS);
  }

  @Test
  void aPrimaryKilledMidRunFailsNoCallDelaysNoneAndSharingResumesAfterTheFailover()
      throws Exception {
    sentinel = LocalRedisSentinel.start();
    List<Pacer> pacers = fleet(2);
    server.refill(100_000);
    Duration maxWait = Duration.ofMillis(300);
    assertThat(burst(pacers, 10, maxWait)).isEqualTo(20);
    assertThat(read(1).count()).as("a count through the first primary").isPresent();

    LocalRedisServer old = sentinel.killPrimary();
    AtomicBoolean failedOver = new AtomicBoolean();
    List<Future<long[]>> runs = new ArrayList<>();
    for (Pacer pacer : pacers) {
      runs.add(threads.submit(() -> {
        long longest = 0;
        long calls = 0;
        // Calls through the outage and the failover, one every 10 ms, at most 30 s of them.
        long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!failedOver.get() && System.nanoTime() < end) {
          longest = Math.max(longest, send(pacer, maxWait)); // throws nothing
          calls++;
          TimeUnit.MILLISECONDS.sleep(10); // spacing the calls, not making time pass
        }
        return new long[] {longest, calls};
      }));
    }
    long killedAt = System.nanoTime();
    LocalRedisServer primary = sentinel.awaitFailover(old, Duration.ofSeconds(30));
    long failoverMillis = (System.nanoTime() - killedAt) / 1_000_000;
    failedOver.set(true);
    long calls = 0;
    for (Future<long[]> run : runs) {
      long[] outcome = run.get(40, TimeUnit.SECONDS);
      // maxWait, and a little for threads a busy machine runs late.
      assertThat(outcome[0]).as("no call waited past maxWait (failover took %d ms)",
          failoverMillis).isLessThan(maxWait.plusMillis(200).toNanos());
      calls += outcome[1];
    }
    assertThat(calls).as("calls went on during the failover").isPositive();
    assertThat(primary.port()).isNotEqualTo(old.port());

    // Sharing resumes: what one pacer reports through the new primary, the other's store reads.
    server.refill(40);
    long end = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    do {
      TimeUnit.MILLISECONDS.sleep(20);
      send(pacers.get(0), Duration.ofSeconds(5));
      assertThat(System.nanoTime()).as("sharing resumed within 20 s of the failover")
          .isLessThan(end);
    } while (!stores.get(1).read(RedisFleetTest.KEY).toCompletableFuture()
        .handle((s, e) -> e == null && s.available().orElse(Long.MAX_VALUE) <= 40)
        .get(5, TimeUnit.SECONDS));
    long left;
    synchronized (server) {
      left = server.remaining();
    }
    assertThat(left).as("the resume took a few calls, not the whole quota").isPositive();
    long sent = burst(pacers, 20, Duration.ofSeconds(1));
    assertThat(sent).as("the fleet spends what is left, once").isLessThanOrEqualTo(left)
        .isPositive();
    assertThat(server.throttled()).isZero();
    KeyExpiry.assertEveryKeyExpires(primary.uri(), "headway:");
  }
}
