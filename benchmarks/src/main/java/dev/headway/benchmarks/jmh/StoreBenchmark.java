package dev.headway.benchmarks.jmh;

import dev.headway.HttpFields;
import dev.headway.Pacer;
import dev.headway.Permit;
import dev.headway.RequestInfo;
import dev.headway.redis.RedisQuotaStore;
import dev.headway.store.InMemoryQuotaStore;
import dev.headway.store.QuotaStore;
import dev.headway.testing.store.StoreFaults;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Acquire + release of a pacer sharing its quota through a store, amortised per request: no
 * store, the in-process {@link InMemoryQuotaStore}, and a {@link RedisQuotaStore} on loopback (a
 * {@code redis-server} from the PATH, or the one shipped in the embedded-redis jar, started for
 * the trial). The pacer spends leased units locally and asks the store for more in the
 * background, so the store's round trip shows only where a request found no units left. {@code
 * acquireRelease} gives each permit back unused; {@code acquireComplete} completes it with a
 * response carrying a count, which the pacer tells the store (the calls a real request makes).
 * At the end of each trial the round trips per request are printed.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class StoreBenchmark {
  private static final URI API = URI.create("https://api.example.com/v1/items");

  /** Which store: {@code none}, {@code memory} or {@code redis}. */
  @Param({"none", "memory", "redis"})
  public String store;

  private final RequestInfo request = RequestInfo.get(API);
  private final HttpFields answer = HttpFields.of(
      "RateLimit", "\"default\";r=" + (LimiterBenchmark.HUGE - 1) + ";t=3600");
  private Pacer pacer;
  private QuotaStore quotaStore;
  /** Counts the pacer's calls to the store. */
  private final StoreFaults counted = new StoreFaults();
  private Process redis;
  private long requests;

  /** Starts the store (and Redis), and teaches the pacer the partition's (huge) quota. */
  @Setup(Level.Trial)
  public void setUp() throws Exception {
    Pacer.Builder builder = Pacer.builder();
    switch (store) {
      case "none" -> quotaStore = null;
      case "memory" -> quotaStore = InMemoryQuotaStore.builder().maxLeaseUnits(1_000).build();
      case "redis" -> {
        int port = freePort();
        redis = new ProcessBuilder(redisServer().toString(), "--port", Integer.toString(port),
            "--bind", "127.0.0.1", "--save", "", "--appendonly", "no")
            .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        RedisQuotaStore r = RedisQuotaStore.builder(URI.create("redis://127.0.0.1:" + port))
            .maxLeaseUnits(1_000).build();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
          try {
            r.read(new dev.headway.store.QuotaKey("ready", "ready")).toCompletableFuture()
                .get(2, TimeUnit.SECONDS);
            break;
          } catch (Exception e) {
            if (System.nanoTime() > end) {
              throw new IllegalStateException("redis-server did not start on port " + port, e);
            }
            Thread.sleep(50); // waiting for a process to come up, not for pacing
          }
        }
        quotaStore = r;
      }
      default -> throw new IllegalArgumentException("store " + store);
    }
    if (quotaStore != null) {
      builder.store(counted.wrap(quotaStore));
    }
    pacer = builder.build();
    Permit first = pacer.acquire(request);
    first.complete(200, HttpFields.of(
        "RateLimit-Policy", "\"default\";q=" + LimiterBenchmark.HUGE + ";w=3600",
        "RateLimit", "\"default\";r=" + LimiterBenchmark.HUGE + ";t=3600"), null);
  }

  /** Prints the round trips per request, and stops the store (and Redis). */
  @TearDown(Level.Trial)
  public void tearDown() {
    if (quotaStore != null) {
      long trips = counted.calls(); // one round trip each (plus an EVAL after a Redis restart)
      System.out.printf(Locale.ROOT, "%n[store=%s] %d requests, %d store round trips: %.5f per "
          + "request%n", store, requests, trips, requests == 0 ? 0.0 : (double) trips / requests);
      quotaStore.close();
    }
    if (redis != null) {
      redis.destroy();
    }
  }

  /** One request's permit, taken and given back. */
  @Benchmark
  public void acquireRelease() throws Exception {
    pacer.acquire(request, Duration.ofSeconds(1)).release();
    requests++;
  }

  /**
   * One request's permit, taken and completed with a response carrying a count: the store is
   * told counts too (at most every 100 ms while more than 64 units are left), so the round trips
   * printed are those of a real call.
   */
  @Benchmark
  public void acquireComplete() throws Exception {
    pacer.acquire(request, Duration.ofSeconds(1)).complete(200, answer, null);
    requests++;
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  /** A redis-server from the PATH, else the linux-amd64 one of the embedded-redis jar. */
  private static Path redisServer() throws IOException {
    String path = System.getenv("PATH");
    if (path != null) {
      for (String dir : path.split(File.pathSeparator)) {
        Path candidate = Path.of(dir, "redis-server");
        if (Files.isExecutable(candidate)) {
          return candidate;
        }
      }
    }
    String name = "redis-server-6.2.6-v5-linux-amd64";
    try (InputStream in = StoreBenchmark.class.getClassLoader().getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("No redis-server on the PATH and no " + name
            + " in the class path: install Redis 6.2 or later (redis-server on the PATH)");
      }
      Path target = Files.createTempFile("redis-server", "");
      Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
      if (!target.toFile().setExecutable(true)) {
        throw new IOException("could not make " + target + " executable");
      }
      target.toFile().deleteOnExit();
      return target;
    }
  }
}
