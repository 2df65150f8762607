package dev.headway.hostile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
import dev.headway.jdk.RateLimitedHttpClient;
import dev.headway.okhttp.RateLimitInterceptor;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.ConnectionPool;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * Once its clients are shut down, a case leaves no thread behind: every thread that Headway, OkHttp
 * or java.net.http started for it (and the test's own server and pools) ends. Clients of their
 * own, a pacer of its own, and every way of sending (OkHttp {@code execute} and {@code enqueue},
 * JDK {@code send} and {@code sendAsync}) against a server answering 200s, throttling with JSON
 * bodies, and never answering.
 *
 * <p>JUnit's own worker threads are not the case's. Threads that live for the whole JVM by design, shared by every client, are allowed (at most
 * one {@code headway-scheduler}, OkHttp's {@code OkHttp TaskRunner} and okio's
 * {@code Okio Watchdog}, which end after 60 s idle); every other new thread must end. Pools that end
 * idle threads after a documented timeout (Headway's body readers and deciders after 1 s,
 * java.net.http's selector once its client is unreachable) are waited for by polling, up to
 * {@link #SETTLE}.
 */
@Isolated("compares snapshots of every thread in the JVM")
class NoThreadLeftBehindTest {
  static final Duration SETTLE = Duration.ofSeconds(30);
  static final Set<String> JVM_WIDE = Set.of("OkHttp TaskRunner", "Okio Watchdog");

  @BeforeAll
  static void warmUp() {
    // The JVM-wide threads the warm-up starts exist before the snapshot.
    Client.warmUp();
  }

  @Test
  void shutDownClientsLeaveNoThreadBehind() throws Exception {
    Set<Thread> before = Set.copyOf(Thread.getAllStackTraces().keySet());
    List<String> started = exercise();

    long deadline = System.nanoTime() + SETTLE.toNanos();
    List<Thread> left = leftBehind(before);
    while (!left.isEmpty() && System.nanoTime() < deadline) {
      System.gc(); // java.net.http's selector thread ends once its client is unreachable.
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(200)); // real threads: real time
      left = leftBehind(before);
    }
    System.out.println("[NoThreadLeftBehindTest] threads started during the case: " + started
        + "; still alive after shutdown: " + names(left));
    assertThat(started).as("the case did start threads (else it checks nothing)").isNotEmpty();
    assertThat(names(left)).as("threads still alive %s after the clients were shut down",
        SETTLE).isEmpty();
    long schedulers = Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().equals("headway-scheduler")).count();
    assertThat(schedulers).as("Headway's shared scheduler threads").isLessThanOrEqualTo(1);
  }

  /** Runs every way of sending with clients of its own, shuts them down, returns new threads. */
  private static List<String> exercise() throws Exception {
    Set<Thread> before = Set.copyOf(Thread.getAllStackTraces().keySet());
    List<String> started;
    ExecutorService okPool = Executors.newCachedThreadPool(QuotaServerLoadTest.daemon("leak-ok"));
    ExecutorService jdkPool =
        Executors.newCachedThreadPool(QuotaServerLoadTest.daemon("leak-jdk"));
    OkHttpClient ok = null;
    try (RawServer server = RawServer.start(e -> {
      switch (e.index % 4) {
        case 0 -> e.write(Http.status(200).header("RateLimit", "\"default\";r=50;t=60")
            .header("RateLimit-Policy", "\"default\";q=100;w=60").body("ok"));
        case 1 -> e.write(Http.status(429).header("Content-Type", "application/json")
            .header("Retry-After", "0").body("{\"error\":{\"retry_after\":0}}"));
        case 2 -> e.write(Http.status(503).header("Content-Type", "application/json")
            .body("{\"error\":\"busy\"}"));
        default -> e.hang();
      }
    })) {
      Pacer pacer = Pacer.builder().maxWait(Duration.ofSeconds(1)).build();
      ok = new OkHttpClient.Builder()
          .dispatcher(new okhttp3.Dispatcher(okPool))
          .connectionPool(new ConnectionPool())
          .readTimeout(Duration.ofMillis(500))
          .retryOnConnectionFailure(false)
          .addInterceptor(RateLimitInterceptor.create(pacer)).build();
      HttpClient jdk = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
          .executor(jdkPool).build();
      RateLimitedHttpClient wrapped = RateLimitedHttpClient.wrap(jdk, pacer);
      int outcomes = 0;
      for (int i = 0; i < 8; i++) {
        URI uri = server.uri("/leak?i=" + i);
        outcomes += okExecute(ok, uri) + okEnqueue(ok, uri) + jdkSend(wrapped, uri, false)
            + jdkSend(wrapped, uri, true);
      }
      assertThat(outcomes).as("every call ended").isEqualTo(32);
      started = names(leftBehind(before));
    } finally {
      if (ok != null) {
        ok.dispatcher().executorService().shutdown();
        ok.connectionPool().evictAll();
      }
      okPool.shutdown();
      jdkPool.shutdown();
    }
    return started;
  }

  private static int okExecute(OkHttpClient client, URI uri) {
    try (Response response = client.newCall(new Request.Builder().url(uri.toString()).build())
        .execute()) {
      response.body().bytes();
    } catch (IOException e) {
      // Failures are what the hostile suite checks; here only the threads count.
    }
    return 1;
  }

  private static int okEnqueue(OkHttpClient client, URI uri) throws Exception {
    CompletableFuture<Void> done = new CompletableFuture<>();
    client.newCall(new Request.Builder().url(uri.toString()).build()).enqueue(new Callback() {
      @Override
      public void onFailure(Call call, IOException e) {
        done.complete(null);
      }

      @Override
      public void onResponse(Call call, Response response) {
        try (response) {
          response.body().bytes();
        } catch (IOException e) {
          // As above.
        }
        done.complete(null);
      }
    });
    done.get(Client.HARD_LIMIT.toMillis(), TimeUnit.MILLISECONDS);
    return 1;
  }

  private static int jdkSend(RateLimitedHttpClient client, URI uri, boolean async)
      throws Exception {
    HttpRequest request = HttpRequest.newBuilder(uri).timeout(Duration.ofMillis(500)).build();
    try {
      if (async) {
        client.sendAsync(request, HttpResponse.BodyHandlers.ofString())
            .handle((r, t) -> null).get(Client.HARD_LIMIT.toMillis(), TimeUnit.MILLISECONDS);
      } else {
        client.send(request, HttpResponse.BodyHandlers.ofString());
      }
    } catch (IOException e) {
      // As above.
    }
    return 1;
  }

  private static List<Thread> leftBehind(Set<Thread> before) {
    List<Thread> left = new ArrayList<>();
    int schedulers = 0;
    for (Thread thread : Thread.getAllStackTraces().keySet()) {
      if (before.contains(thread) || !thread.isAlive() || thread == Thread.currentThread()) {
        continue;
      }
      if (JVM_WIDE.contains(thread.getName()) || isTestRunners(thread)) {
        continue;
      }
      if (thread.getName().equals("headway-scheduler") && schedulers++ == 0) {
        continue; // The one shared timer; a second one would be a leak.
      }
      left.add(thread);
    }
    return left;
  }

  /** JUnit's own workers (this test runs on one), which come and go as it schedules tests. */
  private static boolean isTestRunners(Thread thread) {
    return Thread.currentThread() instanceof ForkJoinWorkerThread runner
        && thread instanceof ForkJoinWorkerThread worker
        && worker.getPool() == runner.getPool();
  }

  private static List<String> names(List<Thread> threads) {
    return threads.stream().map(Thread::getName).sorted().collect(Collectors.toList());
  }
}
