package dev.headway.examples;

import dev.headway.Pacer;
import dev.headway.RateLimitedException;
import dev.headway.Scheduler;
import dev.headway.jdk.RateLimitedHttpClient;
import dev.headway.redis.RedisQuotaStore;
import dev.headway.store.QuotaKey;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One instance of the fleet demo ({@link FleetDemo}), run as a separate JVM: a few threads call
 * the quota server through a paced {@code HttpClient} from a common start instant until its end,
 * with or without a Redis store, then print one line of counts. Bounded in time: every call waits
 * at most {@code maxWait}, and the process ends by itself at the end instant.
 *
 * <p>Arguments: server URI, Redis URI ({@code redis://} or {@code redis-sentinel://}), {@code
 * cluster:} and the cluster's node URIs separated by commas, or {@code -} (no store), threads. Once ready (with a store:
 * once Redis answered a first call) it prints
 * {@code ready} and reads one line from its input: the start and end instants (epoch
 * milliseconds), so that slow JVM start-ups on a busy machine do not eat into the run.
 */
public final class FleetWorker {
  static final Duration MAX_WAIT = Duration.ofSeconds(3);

  private FleetWorker() {}

  /**
   * Waits (at most 30 s) until Redis answers a call: connected, script loaded. A cold JVM's first
   * call on a busy machine takes longer than the store's 250 ms timeout, and the instance would
   * pace locally, alone, until the store answers again.
   */
  private static void awaitRedis(RedisQuotaStore store) throws InterruptedException {
    QuotaKey probe = new QuotaKey("fleet-demo", "ready");
    long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (true) {
      try {
        store.read(probe).toCompletableFuture().get(5, TimeUnit.SECONDS);
        return;
      } catch (ExecutionException | TimeoutException e) {
        if (System.nanoTime() > end) {
          throw new IllegalStateException("Redis did not answer within 30 s", e);
        }
        Thread.sleep(100); // waiting for a connection to come up, not for pacing
      }
    }
  }

  /** Runs one instance; see the class comment for the arguments. */
  public static void main(String[] args) throws Exception {
    URI server = URI.create(args[0]);
    int threads = Integer.parseInt(args[2]);

    RedisQuotaStore store;
    if (args[1].equals("-")) {
      store = null;
    } else if (args[1].startsWith("cluster:")) {
      URI[] nodes = java.util.Arrays.stream(args[1].substring("cluster:".length()).split(","))
          .map(URI::create).toArray(URI[]::new);
      store = RedisQuotaStore.clusterBuilder(nodes).build();
    } else {
      store = RedisQuotaStore.create(URI.create(args[1]));
    }
    Pacer.Builder builder = Pacer.builder().maxWait(MAX_WAIT);
    if (store != null) {
      builder.store(store);
    }
    Pacer pacer = builder.build();
    if (store != null) {
      awaitRedis(store);
    }
    System.out.println("ready");
    String go = new java.io.BufferedReader(new java.io.InputStreamReader(System.in,
        java.nio.charset.StandardCharsets.UTF_8)).readLine();
    if (go == null) {
      throw new IllegalStateException("no start and end on the input");
    }
    String[] instants = go.trim().split(" ");
    Instant start = Instant.ofEpochMilli(Long.parseLong(instants[0]));
    Instant end = Instant.ofEpochMilli(Long.parseLong(instants[1]));
    Instant started = start;
    AtomicLong ok = new AtomicLong();
    AtomicLong throttled = new AtomicLong();
    AtomicLong refused = new AtomicLong();
    AtomicLong failed = new AtomicLong();
    try (RateLimitedHttpClient client = RateLimitedHttpClient.wrap(
        HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build(), pacer)) {
      HttpRequest request = HttpRequest.newBuilder(server.resolve("/items"))
          .timeout(Duration.ofSeconds(5)).build();
      long untilStart = Duration.between(Instant.now(), start).toMillis();
      if (untilStart > 0) {
        // The instances start together (a real-time demo).
        Scheduler.system().sleep(Duration.ofMillis(untilStart));
      }
      started = Instant.now();
      List<Thread> workers = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        Thread worker = new Thread(() -> {
          while (Instant.now().isBefore(end)) {
            try {
              int status = client.send(request, HttpResponse.BodyHandlers.discarding())
                  .statusCode();
              (status == 429 ? throttled : ok).incrementAndGet();
            } catch (RateLimitedException e) {
              refused.incrementAndGet(); // would wait past maxWait: not sent
            } catch (IOException | RuntimeException e) {
              if (failed.incrementAndGet() == 1) {
                System.out.println("first failure: " + e);
              }
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
              return;
            }
          }
        }, "fleet-worker-" + t);
        worker.setDaemon(true);
        worker.start();
        workers.add(worker);
      }
      for (Thread worker : workers) {
        worker.join(Math.max(1, Duration.between(Instant.now(), end).plus(MAX_WAIT)
            .plusSeconds(10).toMillis()));
        if (worker.isAlive()) {
          // Reported, not hidden: a call stuck past its maxWait is a bug.
          System.out.println("stuck: " + worker.getName());
          for (StackTraceElement e : worker.getStackTrace()) {
            System.out.println("  at " + e);
          }
        }
      }
    } finally {
      pacer.close();
      if (store != null) {
        store.close();
      }
    }
    System.out.println("started " + Duration.between(start, started).toMillis()
        + " ms after the common start");
    System.out.println("ok=" + ok + " throttled=" + throttled + " refused=" + refused
        + " failed=" + failed);
    System.exit(0);
  }
}
