package dev.headway.hostile;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.headway.Pacer;
import dev.headway.jdk.RateLimitedHttpClient;
import dev.headway.okhttp.RateLimitInterceptor;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import okhttp3.ConnectionPool;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * 200 threads send 50 requests each (10,000 calls) through Headway to a loopback server that
 * really enforces a fixed window and advertises it on every response ({@code RateLimit},
 * {@code RateLimit-Policy} and a whole-second {@code Date}): no window ever receives more than its
 * quota and the server never answers 429. Through OkHttp {@code execute} and the JDK wrapper's
 * {@code send}.
 *
 * <p>The quota is 1,000 per 1-second window (a 1-second window is the shortest the header fields
 * can state) so that a run takes about 10 s per client, not the 50 s 200 per second would take.
 * Windows are aligned to whole seconds of the wall clock, as the {@code Date} field is.
 *
 * <p>At a 1-second window a whole-second reset cannot say in which window a count was taken:
 * the pacer must neither take the next window's count for a server that refills continuously
 * nor trust a reset carried over from a window it did not see (see docs/pacer.md).
 *
 * <p>Nor may it take the next window's first counts for units given back when one of them is
 * not taken: a request sent at the very end of a window reaches the server in the next one, and
 * its count (nearly the whole quota) comes back after the old window's last, higher than it
 * (see docs/pacer.md, "State per policy").
 *
 * <p>When a window receives more than its quota, the failure says which requests were over it:
 * when their calls began, when the server counted them (from its window's start), and what the
 * windows around it received, so that a failure on a loaded machine can be told apart (a
 * request let go late in the window before, a probe at a reset taken too early, ...).
 */
@Isolated("200 threads and 1,000 requests a second: alone, so that other cases do not starve")
class QuotaServerLoadTest {
  static final int THREADS = 200;
  static final int CALLS_PER_THREAD = 50;
  static final int QUOTA = 1_000;
  static final long WINDOW_MILLIS = 1_000;
  /** A run takes 10 to 20 s; past this it fails (TimeoutException) rather than hang the build. */
  static final long RUN_LIMIT_SECONDS = 120;

  private static final DateTimeFormatter HTTP_DATE =
      DateTimeFormatter.RFC_1123_DATE_TIME.withZone(ZoneOffset.UTC);

  /** How many uncaught failures other cases of the suite left before this one started. */
  private static int uncaughtBefore;

  @BeforeAll
  static void warmUp() {
    uncaughtBefore = Client.UNCAUGHT.size();
    Client.warmUp();
  }

  @AfterAll
  static void noUncaught() {
    // Only what this case caused: the list is shared by the whole suite.
    List<Throwable> all = Client.UNCAUGHT;
    assertThat(all.subList(Math.min(uncaughtBefore, all.size()), all.size())).isEmpty();
  }

  /** A fixed-window quota server counting what each window received and what it refused. */
  static final class QuotaServer implements AutoCloseable {
    final HttpServer server;
    final ExecutorService handlers = Executors.newFixedThreadPool(16, r -> {
      Thread t = new Thread(r, "quota-server");
      t.setDaemon(true);
      return t;
    });
    /** Requests received per window (window = epoch millis / WINDOW_MILLIS). */
    final Map<Long, AtomicInteger> received = new ConcurrentHashMap<>();
    final LongAdder ok = new LongAdder();
    final LongAdder refused = new LongAdder();
    /**
     * Every request counted, in the order counted (more than the run's calls only if some are
     * sent twice): when (ticker and wall clock), its window's count, and which call it was.
     */
    private final AtomicInteger counted = new AtomicInteger();
    private final int capacity = 2 * THREADS * CALLS_PER_THREAD;
    private final long[] countedNanos = new long[capacity];
    private final long[] countedMillis = new long[capacity];
    private final int[] countInWindow = new int[capacity];
    private final String[] countedQuery = new String[capacity];

    QuotaServer() throws IOException {
      server = HttpServer.create(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0),
          THREADS + 56);
      server.setExecutor(handlers);
      server.createContext("/", this::handle);
      server.start();
    }

    URI uri(String path) {
      return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + path);
    }

    private void handle(HttpExchange exchange) throws IOException {
      try (exchange; InputStream in = exchange.getRequestBody()) {
        in.readAllBytes();
        long now = System.currentTimeMillis();
        long window = now / WINDOW_MILLIS;
        int count = received.computeIfAbsent(window, w -> new AtomicInteger()).incrementAndGet();
        long resetSeconds = Math.max(1,
            ((window + 1) * WINDOW_MILLIS - now + 999) / 1000); // rounded up: never early
        int remaining = Math.max(0, QUOTA - count);
        record(now, count, exchange.getRequestURI().getRawQuery());
        var headers = exchange.getResponseHeaders();
        headers.set("Date", HTTP_DATE.format(Instant.ofEpochMilli(now)));
        headers.set("RateLimit-Policy", "\"fixed\";q=" + QUOTA + ";w="
            + WINDOW_MILLIS / 1000);
        headers.set("RateLimit", "\"fixed\";r=" + remaining + ";t=" + resetSeconds);
        byte[] body;
        int status;
        if (count > QUOTA) {
          refused.increment();
          status = 429;
          headers.set("Retry-After", String.valueOf(resetSeconds));
          body = "over quota".getBytes(StandardCharsets.UTF_8);
        } else {
          ok.increment();
          status = 200;
          body = "ok".getBytes(StandardCharsets.UTF_8);
        }
        exchange.sendResponseHeaders(status, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
          out.write(body);
        }
      }
    }

    private void record(long millis, int count, String query) {
      int at = counted.getAndIncrement();
      if (at < capacity) {
        countedNanos[at] = System.nanoTime();
        countedMillis[at] = millis;
        countInWindow[at] = count;
        countedQuery[at] = query;
      }
    }

    /**
     * What the windows that received more than the quota received: for each, the requests
     * counted past the quota (the call, how long after it began the server counted it, and
     * when in the window), and what the window and the one before received in their last and
     * first 100 ms. Empty if none did. {@code began} gives when each call began (ticker), by
     * its query.
     */
    String overQuota(java.util.function.ToLongFunction<String> began) {
      StringBuilder out = new StringBuilder();
      int n = Math.min(counted.get(), capacity);
      for (int i = 0; i < n; i++) {
        if (countInWindow[i] <= QUOTA) {
          continue;
        }
        long window = countedMillis[i] / WINDOW_MILLIS;
        long startNanos = began.applyAsLong(countedQuery[i]);
        out.append("\n  over the quota: ").append(countedQuery[i]).append(" counted ")
            .append(countInWindow[i]).append(" in window ").append(window).append(" at +")
            .append(countedMillis[i] - window * WINDOW_MILLIS).append(" ms, ")
            .append("its call began ")
            .append(TimeUnit.NANOSECONDS.toMillis(countedNanos[i] - startNanos))
            .append(" ms before")
            .append("; window ").append(window - 1).append(" received ")
            .append(received(window - 1)).append(" (").append(receivedIn(window - 1, 900, 1000))
            .append(" in its last 100 ms), window ").append(window).append(" ")
            .append(receivedIn(window, 0, 100)).append(" in its first 100 ms");
      }
      return out.toString();
    }

    /**
     * How many requests the server admitted and then counted again (the same call sent twice:
     * a transport's own retry after the server had counted it; never a retry after a 429).
     */
    int admittedTwice() {
      int n = Math.min(counted.get(), capacity);
      java.util.Set<String> admitted = new java.util.HashSet<>();
      int twice = 0;
      for (int i = 0; i < n; i++) {
        if (countInWindow[i] <= QUOTA && !admitted.add(countedQuery[i])) {
          twice++;
        }
      }
      return twice;
    }

    private int received(long window) {
      AtomicInteger count = this.received.get(window);
      return count == null ? 0 : count.get();
    }

    private int receivedIn(long window, long fromMillis, long toMillis) {
      int n = Math.min(counted.get(), capacity);
      int in = 0;
      for (int i = 0; i < n; i++) {
        long offset = countedMillis[i] - window * WINDOW_MILLIS;
        if (offset >= fromMillis && offset < toMillis) {
          in++;
        }
      }
      return in;
    }

    int busiestWindow() {
      return received.values().stream().mapToInt(AtomicInteger::get).max().orElse(0);
    }

    @Override
    public void close() {
      server.stop(0);
      handlers.shutdownNow();
    }
  }

  /** One caller's calls: returns the statuses it saw, in order; throws what it was thrown. */
  @FunctionalInterface
  interface Call {
    int send(URI uri) throws Exception;
  }

  @Test
  void okHttpNeverExceedsTheQuotaNorDrawsA429() throws Exception {
    try (QuotaServer server = new QuotaServer()) {
      Pacer pacer = Pacer.builder().maxWait(Duration.ofSeconds(10)).build();
      ExecutorService okPool = Executors.newCachedThreadPool(daemon("quota-okhttp"));
      OkHttpClient client = new OkHttpClient.Builder()
          .dispatcher(new okhttp3.Dispatcher(okPool))
          .connectionPool(new ConnectionPool(THREADS, 1, TimeUnit.MINUTES))
          .readTimeout(Duration.ofSeconds(10))
          .retryOnConnectionFailure(false)
          .addInterceptor(RateLimitInterceptor.create(pacer))
          .build();
      try {
        run("OkHttp execute", server, pacer, uri -> {
          try (Response response = client.newCall(new Request.Builder().url(uri.toString())
              .build()).execute()) {
            response.body().string();
            return response.code();
          }
        });
      } finally {
        client.dispatcher().executorService().shutdown();
        client.connectionPool().evictAll();
      }
    }
  }

  @Test
  void theJdkWrapperNeverExceedsTheQuotaNorDrawsA429() throws Exception {
    try (QuotaServer server = new QuotaServer()) {
      Pacer pacer = Pacer.builder().maxWait(Duration.ofSeconds(10)).build();
      ExecutorService jdkPool = Executors.newCachedThreadPool(daemon("quota-jdk"));
      HttpClient jdk = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
          .executor(jdkPool).build();
      RateLimitedHttpClient client = RateLimitedHttpClient.wrap(jdk, pacer);
      try {
        run("JDK send", server, pacer, uri -> client.send(HttpRequest.newBuilder(uri)
            .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString())
            .statusCode());
      } finally {
        jdkPool.shutdown();
      }
    }
  }

  private static void run(String what, QuotaServer server, Pacer pacer, Call call)
      throws Exception {
    ExecutorService callers = Executors.newFixedThreadPool(THREADS, daemon("quota-caller"));
    LongAdder non200 = new LongAdder();
    List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
    AtomicLong worstNanos = new AtomicLong();
    long[] tookNanos = new long[THREADS * CALLS_PER_THREAD];
    long[] beganNanos = new long[THREADS * CALLS_PER_THREAD];
    long start = System.nanoTime();
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        int thread = t;
        done.add(callers.submit(() -> {
          for (int i = 0; i < CALLS_PER_THREAD; i++) {
            long begin = System.nanoTime();
            beganNanos[thread * CALLS_PER_THREAD + i] = begin;
            try {
              int status = call.send(server.uri("/q?t=" + thread + "&i=" + i));
              if (status != 200) {
                non200.increment();
              }
            } catch (Exception e) {
              failures.add(e);
            }
            long took = System.nanoTime() - begin;
            tookNanos[thread * CALLS_PER_THREAD + i] = took;
            worstNanos.accumulateAndGet(took, Math::max);
          }
        }));
      }
      // Each call is bounded by maxWait and the clients' timeouts; the run as a whole too.
      long deadline = start + TimeUnit.SECONDS.toNanos(RUN_LIMIT_SECONDS);
      for (Future<?> f : done) {
        f.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      }
    } finally {
      callers.shutdownNow();
    }
    long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    String over = server.overQuota(query -> {
      // "t=<thread>&i=<call>", as run sends it
      int amp = query.indexOf('&');
      int t = Integer.parseInt(query.substring(2, amp));
      int i = Integer.parseInt(query.substring(amp + 3));
      return beganNanos[t * CALLS_PER_THREAD + i];
    });
    java.util.Arrays.sort(tookNanos);
    long p99Millis = TimeUnit.NANOSECONDS.toMillis(tookNanos[tookNanos.length * 99 / 100]);
    String observed = what + ": " + server.ok.sum() + " answered 200, " + server.refused.sum()
        + " answered 429, busiest window " + server.busiestWindow() + " of " + QUOTA + " over "
        + server.received.size() + " windows; callers saw " + non200.sum() + " non-200 and "
        + failures.size() + " failures; p99 call " + p99Millis + " ms, slowest call "
        + TimeUnit.NANOSECONDS.toMillis(worstNanos.get()) + " ms; run " + tookMillis + " ms"
        + (over.isEmpty() ? "" : "; admitted twice by the server " + server.admittedTwice() + over);
    System.out.println("[QuotaServerLoadTest] " + observed);

    assertThat(failures).as(observed).isEmpty();
    assertThat(server.busiestWindow()).as(observed).isLessThanOrEqualTo(QUOTA);
    assertThat(server.refused.sum()).as(observed).isZero();
    assertThat(server.ok.sum()).as(observed).isEqualTo((long) THREADS * CALLS_PER_THREAD);
    assertThat(non200.sum()).as(observed).isZero();
    HostileServerSuiteTest.awaitTrue(() -> HostileServerSuiteTest.inFlight(pacer) == 0,
        Duration.ofSeconds(5));
    assertThat(HostileServerSuiteTest.inFlight(pacer)).as(observed).isZero();
  }

  static java.util.concurrent.ThreadFactory daemon(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }
}
