package dev.headway.examples;

import dev.headway.HttpFields;
import dev.headway.Pacer;
import dev.headway.Permit;
import dev.headway.RequestInfo;
import dev.headway.redis.RedisQuotaStore;
import dev.headway.store.Lease;
import dev.headway.store.QuotaKey;
import dev.headway.store.QuotaStore;
import dev.headway.store.RefillRate;
import dev.headway.store.ServerCount;
import dev.headway.store.SharedQuota;
import dev.headway.testing.LocalRedisCluster;
import dev.headway.testing.LocalRedisServer;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * What the Redis store costs one instance per call, against a real local Redis: store round
 * trips per request and the client process's CPU time per request (all its threads: the caller's
 * and Lettuce's), with no store, with one Redis node and with a three-primary Redis Cluster, and
 * Redis's own CPU per request ({@code INFO cpu}), for one instance and for 50 sharing one quota
 * (50 pacers in this process, each with a store and a Redis client of its own, called in turn).
 * One thread calls the pacers in a loop, each call completed with the {@code RateLimit} headers
 * of a quota that never runs out (a count every response, as a real server sends). CPU time, not wall time: this machine is shared. The best of
 * three rounds is printed.
 *
 * <pre>java -cp examples/target/classes:... dev.headway.examples.FleetStoreCost [calls]</pre>
 */
public final class FleetStoreCost {
  private static final RequestInfo GET = RequestInfo.get(URI.create("https://api.example.com/items"));
  private static final long QUOTA = 1_000_000_000L;
  /** One instance alone, and a fleet of 50 (in one process, each on a client of its own). */
  private static final int[] INSTANCES = {1, 50};

  private FleetStoreCost() {}

  /** Runs the measurement; {@code args[0]} the calls per round (default 20000). */
  public static void main(String[] args) throws Exception {
    int calls = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
    System.out.printf(Locale.ROOT, "%-14s %9s %16s %16s %16s%n", "store", "instances",
        "round trips/req", "client CPU/req", "Redis CPU/req");
    for (int instances : INSTANCES) {
      measure("none", instances, calls, null, List.of());
    }
    try (LocalRedisServer redis = LocalRedisServer.start()) {
      for (int instances : INSTANCES) {
        measure("redis single", instances, calls, () -> RedisQuotaStore.builder(redis.uri())
            .timeout(Duration.ofSeconds(2)).build(), List.of(redis));
      }
    }
    try (LocalRedisCluster cluster = LocalRedisCluster.start()) {
      for (int instances : INSTANCES) {
        measure("redis cluster", instances, calls, () -> RedisQuotaStore.clusterBuilder(
            cluster.uris().toArray(URI[]::new)).timeout(Duration.ofSeconds(2)).build(),
            cluster.nodes());
      }
    }
    System.exit(0);
  }

  /**
   * Measures {@code instances} pacers, each with a store of its own from {@code stores} (a
   * client of its own, as separate processes have) sharing one quota, called in turn.
   */
  private static void measure(String name, int instances, int calls,
      Supplier<QuotaStore> stores, List<LocalRedisServer> nodes) throws Exception {
    List<Counting> counted = new ArrayList<>();
    List<Pacer> pacers = new ArrayList<>();
    for (int i = 0; i < instances; i++) {
      Pacer.Builder builder = Pacer.builder();
      if (stores != null) {
        Counting store = new Counting(stores.get());
        counted.add(store);
        builder.store(store);
      }
      pacers.add(builder.build());
    }
    long remaining = QUOTA;
    remaining = run(pacers, calls, remaining); // warm-up: JIT, connections, scripts
    double bestCpu = Double.MAX_VALUE;
    double bestTrips = 0;
    double bestRedis = 0;
    for (int round = 0; round < 3; round++) {
      long trips0 = trips(counted);
      long redis0 = redisCpuMicros(nodes);
      long cpu0 = processCpuNanos();
      remaining = run(pacers, calls, remaining);
      long cpu = processCpuNanos() - cpu0;
      TimeUnit.MILLISECONDS.sleep(200); // the last background store calls land
      long redis = redisCpuMicros(nodes) - redis0;
      long trips = trips(counted) - trips0;
      if (cpu / (double) calls < bestCpu) {
        bestCpu = cpu / (double) calls;
        bestTrips = trips / (double) calls;
        bestRedis = redis * 1000.0 / calls;
      }
    }
    System.out.printf(Locale.ROOT, "%-14s %9d %16.3f %13.1f µs %13.1f µs%n", name, instances,
        bestTrips, bestCpu / 1000, bestRedis / 1000);
    pacers.forEach(Pacer::close);
    counted.forEach(Counting::close);
  }

  private static long trips(List<Counting> stores) {
    return stores.stream().mapToLong(store -> store.calls.get()).sum();
  }

  private static long run(List<Pacer> pacers, int calls, long remaining) throws Exception {
    for (int i = 0; i < calls; i++) {
      Permit permit = pacers.get(i % pacers.size()).acquire(GET, Duration.ofSeconds(5));
      remaining--;
      permit.complete(200, HttpFields.of(
          "RateLimit-Policy", "\"default\";q=" + QUOTA + ";w=3600",
          "RateLimit", "\"default\";r=" + remaining + ";t=3600"), null);
    }
    return remaining;
  }

  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory
        .getOperatingSystemMXBean()).getProcessCpuTime();
  }

  /** The nodes' used_cpu_user + used_cpu_sys, in microseconds. */
  private static long redisCpuMicros(List<LocalRedisServer> nodes) {
    long total = 0;
    for (LocalRedisServer node : nodes) {
      for (String line : node.command("INFO", "cpu").split("\r?\n")) {
        if (line.startsWith("used_cpu_user:") || line.startsWith("used_cpu_sys:")) {
          total += Math.round(Double.parseDouble(line.substring(line.indexOf(':') + 1)) * 1e6);
        }
      }
    }
    return total;
  }

  /** Counts every call to the store (each one round trip to Redis). */
  private static final class Counting implements QuotaStore {
    final QuotaStore store;
    final AtomicLong calls = new AtomicLong();

    Counting(QuotaStore store) {
      this.store = store;
    }

    @Override
    public CompletionStage<SharedQuota> observe(QuotaKey key, ServerCount count) {
      calls.incrementAndGet();
      return store.observe(key, count);
    }

    @Override
    public CompletionStage<SharedQuota> observe(QuotaKey key, ServerCount count, Lease lease,
        long units, Instant sentAt) {
      calls.incrementAndGet();
      return store.observe(key, count, lease, units, sentAt);
    }

    @Override
    public CompletionStage<Lease> lease(QuotaKey key, long minUnits, long maxUnits) {
      calls.incrementAndGet();
      return store.lease(key, minUnits, maxUnits);
    }

    @Override
    public CompletionStage<SharedQuota> spent(Lease lease, long units, Instant lastSentAt) {
      calls.incrementAndGet();
      return store.spent(lease, units, lastSentAt);
    }

    @Override
    public CompletionStage<SharedQuota> release(Lease lease, long unusedUnits) {
      calls.incrementAndGet();
      return store.release(lease, unusedUnits);
    }

    @Override
    public CompletionStage<SharedQuota> hold(QuotaKey key, Instant until) {
      calls.incrementAndGet();
      return store.hold(key, until);
    }

    @Override
    public CompletionStage<SharedQuota> lift(QuotaKey key, Instant until) {
      calls.incrementAndGet();
      return store.lift(key, until);
    }

    @Override
    public CompletionStage<SharedQuota> learnRate(QuotaKey key, RefillRate rate) {
      calls.incrementAndGet();
      return store.learnRate(key, rate);
    }

    @Override
    public CompletionStage<SharedQuota> read(QuotaKey key) {
      calls.incrementAndGet();
      return store.read(key);
    }

    @Override
    public void close() {
      store.close();
    }
  }
}
