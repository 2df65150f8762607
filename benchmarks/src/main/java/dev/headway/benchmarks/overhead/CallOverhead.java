package dev.headway.benchmarks.overhead;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.sun.net.httpserver.HttpServer;
import dev.headway.jdk.RateLimitedHttpClient;
import dev.headway.okhttp.RateLimitInterceptor;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Predicate;
import dev.headway.feign.RateLimitCapability;
import dev.headway.httpclient5.RateLimitAsyncExecChainHandler;
import dev.headway.httpclient5.RateLimitExecChainHandler;
import feign.Feign;
import feign.RequestLine;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.apache.hc.client5.http.async.methods.SimpleHttpResponse;
import org.apache.hc.client5.http.async.methods.SimpleRequestBuilder;
import org.apache.hc.client5.http.classic.methods.HttpGet;
import org.apache.hc.client5.http.impl.async.CloseableHttpAsyncClient;
import org.apache.hc.client5.http.impl.async.HttpAsyncClients;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.core5.http.io.entity.EntityUtils;

/**
 * What Headway adds to a real HTTP call, in CPU time and allocation rather than wall time: an
 * OkHttp 5 call with and without {@code RateLimitInterceptor}, a {@code java.net.http} call with
 * and without {@code RateLimitedHttpClient}, an Apache HttpClient 5 classic and async call with
 * and without {@code RateLimitExecChainHandler} / {@code RateLimitAsyncExecChainHandler}, and a
 * Feign call (Feign's default client) with and without {@code RateLimitCapability}, each a GET to
 * a loopback server whose every response carries the structured {@code RateLimit} pair (a quota
 * that never runs out).
 *
 * <p><b>Why CPU time.</b> Wall time of a loopback call on a shared machine is mostly waiting for
 * a core: three or four threads (caller, client I/O, server) must each be scheduled, and the
 * variance of that dwarfs what an interceptor costs. The CPU time the threads actually ran is
 * not inflated by waiting (only, slightly, by cache and frequency effects).
 *
 * <p><b>Which threads.</b> A call does not run only on the calling thread: OkHttp hands
 * connection upkeep to its task runner, and {@code java.net.http} does its I/O on a selector
 * thread and completes bodies on its executor. So every live thread's CPU time and allocated
 * bytes ({@code com.sun.management.ThreadMXBean}) are read before and after a block of calls;
 * the server's threads (named here, and the JDK server's {@code HTTP-Dispatcher}) are counted
 * apart and left out of "the call": a real server is not in the client's process. JIT compiler
 * and GC threads are not Java threads and are not counted (their work is the same for both
 * variants in a warm JVM, and would only add noise).
 *
 * <p><b>Two figures.</b> The difference on every client thread is the whole story but not a
 * steady one: OkHttp's background threads (its pool's connection closer, Okio's timeout
 * watchdog) run no Headway code, yet showed +1 to +2 us each per call, with intervals as wide
 * as the figures: they wake on their own schedules, and how often a block of calls wakes them
 * depends on how closely the calls follow one another, which any added microsecond shifts. So
 * the figure the target is judged on is the difference on the threads Headway's code runs on:
 * the calling thread for OkHttp (a synchronous call runs its interceptors there), the calling
 * thread and the client's worker threads for {@code java.net.http} (the wrapper acquires on the
 * first, reads the response on the others). Both are printed, with the difference on each
 * thread group.
 *
 * <p><b>Why it holds on a noisy machine.</b> Blocks of calls with and without Headway are
 * interleaved (ABBA: the order flips every pair, so a drift in machine load hits both equally),
 * in one JVM, after a warm-up of both: {@code --warmup} calls of each, then more until the JIT
 * compiled nothing during two rounds of 2,000 calls of each in a row (at most 100,000; the
 * count is printed). Each pair gives one difference; the figure is the mean difference with a
 * 95% confidence interval over the pairs (Student's t, approximated).
 *
 * <p>Usage: {@code CallOverhead [--pairs N] [--block CALLS] [--warmup CALLS] [--only TEXT]
 * [--out FILE.json]} (defaults 40, 500, 10000, every client, {@code
 * benchmarks/results/overhead.json}); {@code --only} runs the clients whose name contains
 * {@code TEXT} (e.g. {@code HttpClient 5}). Not thread-safe; a program.
 */
public final class CallOverhead {
  private static final String SERVER_THREAD = "overhead-server";
  /** The group of the calling thread in {@link Block#cpuByGroup}. */
  private static final String CALLER = "calling thread";
  private static final byte[] BODY = "{\"ok\":true}".getBytes(StandardCharsets.UTF_8);
  private static final long HUGE = 1_000_000_000_000L;
  /** Calls of each variant per round of {@link #settle}. */
  private static final int SETTLE_ROUND = 2_000;
  /** The most calls of each variant {@link #settle} makes. */
  private static final int SETTLE_MAX = 100_000;

  private final com.sun.management.ThreadMXBean threads =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

  private CallOverhead() {}

  /** One way to make the call. */
  @FunctionalInterface
  interface Call {
    void run() throws Exception;
  }

  /** One client's call without and with Headway, and the threads Headway's code runs on. */
  private record Variants(Call plain, Call headway, Predicate<String> headwayRunsOn) {}

  /** CPU nanoseconds and bytes of every live thread, at one instant. */
  private record Sample(Map<Long, long[]> byThread, long callerId) {}

  /** Per-call figures of one block. */
  record Block(double clientCpuNanos, double clientBytes, double serverCpuNanos,
      Map<String, Double> cpuByGroup) {
    /** CPU nanoseconds per call of the thread groups {@code groups} accepts. */
    double cpuOf(Predicate<String> groups) {
      return cpuByGroup.entrySet().stream().filter(e -> groups.test(e.getKey()))
          .mapToDouble(Map.Entry::getValue).sum();
    }
  }

  /** Runs the comparison; see the class comment for the options. */
  public static void main(String[] args) throws Exception {
    int pairs = 40;
    int block = 500;
    int warmup = 10_000;
    Path out = Path.of("benchmarks/results/overhead.json");
    String only = "";
    for (int i = 0; i + 1 < args.length; i += 2) {
      switch (args[i]) {
        case "--pairs" -> pairs = Integer.parseInt(args[i + 1]);
        case "--block" -> block = Integer.parseInt(args[i + 1]);
        case "--warmup" -> warmup = Integer.parseInt(args[i + 1]);
        case "--out" -> out = Path.of(args[i + 1]);
        case "--only" -> only = args[i + 1];
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    // The JDK's HttpServer writes a response's head and body separately; without TCP_NODELAY,
    // Nagle's algorithm holds the body until the client's delayed ACK (about 40 ms on Linux), and
    // on a quiet machine every call then takes 40 ms: the run crawls for an hour.
    System.setProperty("sun.net.httpserver.nodelay", "true");
    new CallOverhead().run(pairs, block, warmup, only, out);
  }

  private void run(int pairs, int block, int warmup, String only, Path out) throws Exception {
    if (!threads.isThreadCpuTimeSupported() || !threads.isThreadAllocatedMemorySupported()) {
      throw new IllegalStateException("this JVM cannot measure per-thread CPU time and "
          + "allocation (com.sun.management.ThreadMXBean); run it on HotSpot");
    }
    threads.setThreadCpuTimeEnabled(true);
    threads.setThreadAllocatedMemoryEnabled(true);
    ExecutorService serverPool = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, SERVER_THREAD);
      t.setDaemon(true);
      return t;
    });
    HttpServer server = HttpServer.create(
        new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.setExecutor(serverPool);
    server.createContext("/", exchange -> {
      try (InputStream in = exchange.getRequestBody()) {
        in.readAllBytes();
      }
      exchange.getResponseHeaders().add("Content-Type", "application/json");
      exchange.getResponseHeaders().add("RateLimit-Policy", "\"default\";q=" + HUGE + ";w=3600");
      exchange.getResponseHeaders().add("RateLimit", "\"default\";r=" + HUGE + ";t=3600");
      exchange.sendResponseHeaders(200, BODY.length);
      try (OutputStream body = exchange.getResponseBody()) {
        body.write(BODY);
      }
    });
    server.start();
    String url = "http://127.0.0.1:" + server.getAddress().getPort() + "/v1/items";
    URI uri = URI.create(url);
    List<Map<String, Object>> results = new ArrayList<>();
    try {
      OkHttpClient okPlain = new OkHttpClient.Builder().build();
      OkHttpClient okHeadway = okPlain.newBuilder()
          .addInterceptor(RateLimitInterceptor.create()).build();
      HttpClient jdkPlain = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
      RateLimitedHttpClient jdkHeadway = RateLimitedHttpClient.wrap(jdkPlain);
      CloseableHttpClient hc5Plain = HttpClients.custom().build();
      CloseableHttpClient hc5Headway = RateLimitExecChainHandler.create()
          .addTo(HttpClients.custom()).build();
      CloseableHttpAsyncClient hc5AsyncPlain = HttpAsyncClients.custom().build();
      CloseableHttpAsyncClient hc5AsyncHeadway = RateLimitAsyncExecChainHandler.create()
          .addTo(HttpAsyncClients.custom()).build();
      hc5AsyncPlain.start();
      hc5AsyncHeadway.start();
      FeignApi feignPlain = Feign.builder().target(FeignApi.class, url);
      FeignApi feignHeadway = Feign.builder().addCapability(RateLimitCapability.create())
          .target(FeignApi.class, url);
      Map<String, Variants> cases = new LinkedHashMap<>();
      // A synchronous OkHttp call runs its interceptors on the calling thread.
      cases.put("OkHttp 5 call + RateLimitInterceptor", new Variants(
          () -> okCall(okPlain, url), () -> okCall(okHeadway, url), CALLER::equals));
      // The wrapper acquires on the calling thread; the client hands the response's head to
      // the body handler (where the wrapper reads the signals) on its executor's workers.
      cases.put("java.net.http call + RateLimitedHttpClient", new Variants(
          () -> jdkCall(jdkPlain, uri), () -> jdkCall(jdkHeadway, uri),
          group -> group.equals(CALLER)
              || group.startsWith("HttpClient-") && group.contains("-Worker-")));
      // The classic chain, handler included, runs on the calling thread.
      cases.put("Apache HttpClient 5 classic call + RateLimitExecChainHandler", new Variants(
          () -> hc5Call(hc5Plain, url), () -> hc5Call(hc5Headway, url),
          CALLER::equals));
      // The async handler acquires on the calling thread and reads the response on the I/O
      // reactor's dispatch threads.
      cases.put("Apache HttpClient 5 async call + RateLimitAsyncExecChainHandler", new Variants(
          () -> hc5AsyncCall(hc5AsyncPlain, uri),
          () -> hc5AsyncCall(hc5AsyncHeadway, uri),
          group -> group.equals(CALLER)
              || group.startsWith("httpclient-dispatch")));
      // Feign's default client (HttpURLConnection) and the capability run on the calling thread.
      cases.put("Feign call (default client) + RateLimitCapability", new Variants(
          () -> feignPlain.get(), () -> feignHeadway.get(), CALLER::equals));
      for (Map.Entry<String, Variants> c : cases.entrySet()) {
        if (c.getKey().contains(only)) {
          Variants v = c.getValue();
          results.add(compare(c.getKey(), v.plain(), v.headway(), pairs, block, warmup,
              v.headwayRunsOn()));
        }
      }
      okPlain.dispatcher().executorService().shutdown();
      okPlain.connectionPool().evictAll();
      hc5Plain.close();
      hc5Headway.close();
      hc5AsyncPlain.close();
      hc5AsyncHeadway.close();
    } finally {
      server.stop(0);
      serverPool.shutdownNow();
    }
    Files.createDirectories(out.toAbsolutePath().getParent());
    new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(out.toFile(),
        results);
    System.out.println("written to " + out);
  }

  private static void okCall(OkHttpClient client, String url) throws IOException {
    try (Response response = client.newCall(new Request.Builder().url(url).build()).execute()) {
      response.body().string();
    }
  }

  /** The Feign client of the comparison: one GET, its body read. */
  interface FeignApi {
    @RequestLine("GET")
    String get();
  }

  private static void hc5Call(CloseableHttpClient client, String url) throws IOException {
    String body = client.execute(new HttpGet(url), response -> {
      if (response.getCode() != 200) {
        throw new IllegalStateException("status " + response.getCode());
      }
      return EntityUtils.toString(response.getEntity());
    });
    if (body.isEmpty()) {
      throw new IllegalStateException("no body");
    }
  }

  private static void hc5AsyncCall(CloseableHttpAsyncClient client, URI uri) throws Exception {
    SimpleHttpResponse response = client.execute(SimpleRequestBuilder.get(uri).build(), null)
        .get();
    if (response.getCode() != 200) {
      throw new IllegalStateException("status " + response.getCode());
    }
  }

  private static void jdkCall(HttpClient client, URI uri) throws Exception {
    HttpResponse<String> response = client.send(HttpRequest.newBuilder(uri).GET().build(),
        HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IllegalStateException("status " + response.statusCode());
    }
  }

  private Map<String, Object> compare(String name, Call plain, Call headway, int pairs,
      int block, int warmup, Predicate<String> headwayRunsOn) throws Exception {
    for (int i = 0; i < warmup; i++) {
      plain.run();
      headway.run();
    }
    int settled = settle(plain, headway);
    System.out.printf(Locale.ROOT, "%s: warmed up with %d + %d calls of each%n", name, warmup,
        settled);
    List<Block> without = new ArrayList<>();
    List<Block> with = new ArrayList<>();
    for (int p = 0; p < pairs; p++) {
      if (p % 2 == 0) {
        without.add(measure(plain, block));
        with.add(measure(headway, block));
      } else {
        with.add(measure(headway, block));
        without.add(measure(plain, block));
      }
    }
    double[] cpu = diffs(with, without, Block::clientCpuNanos);
    double[] caller = diffs(with, without, b -> b.cpuOf(CALLER::equals));
    double[] own = diffs(with, without, b -> b.cpuOf(headwayRunsOn));
    double[] bytes = diffs(with, without, Block::clientBytes);
    double baseCpu = mean(without, Block::clientCpuNanos);
    double baseBytes = mean(without, Block::clientBytes);
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("name", name);
    r.put("pairs", pairs);
    r.put("callsPerBlock", block);
    r.put("baselineCpuNanos", baseCpu);
    r.put("addedCpuNanos", mean(cpu));
    r.put("addedCpuNanosCi95", ci95(cpu));
    r.put("addedCpuPercent", 100 * mean(cpu) / baseCpu);
    r.put("addedCpuPercentCi95", 100 * ci95(cpu) / baseCpu);
    r.put("headwayThreadsAddedCpuNanos", mean(own));
    r.put("headwayThreadsAddedCpuNanosCi95", ci95(own));
    r.put("headwayThreadsAddedCpuPercent", 100 * mean(own) / baseCpu);
    r.put("headwayThreadsAddedCpuPercentCi95", 100 * ci95(own) / baseCpu);
    r.put("callerAddedCpuNanos", mean(caller));
    r.put("callerAddedCpuNanosCi95", ci95(caller));
    r.put("baselineBytes", baseBytes);
    r.put("addedBytes", mean(bytes));
    r.put("addedBytesCi95", ci95(bytes));
    r.put("serverCpuNanos", mean(without, Block::serverCpuNanos));
    System.out.printf(Locale.ROOT, "%s: call without %.1f us CPU, %.0f B; Headway adds "
        + "%.2f +- %.2f us CPU (%.1f%% +- %.1f%%; calling thread %.2f +- %.2f us) and "
        + "%.0f +- %.0f B per call (%d pairs of %d calls)%n", name, baseCpu / 1e3, baseBytes,
        mean(cpu) / 1e3, ci95(cpu) / 1e3, 100 * mean(cpu) / baseCpu, 100 * ci95(cpu) / baseCpu,
        mean(caller) / 1e3, ci95(caller) / 1e3, mean(bytes), ci95(bytes), pairs, block);
    System.out.printf(Locale.ROOT, "  on the threads Headway's code runs on: %.2f +- %.2f us "
        + "(%.1f%% +- %.1f%% of the call without)%n", mean(own) / 1e3, ci95(own) / 1e3,
        100 * mean(own) / baseCpu, 100 * ci95(own) / baseCpu);
    // Where the difference is, by thread group (numbers in names folded): a difference on a
    // thread Headway's code never runs on is noise or an indirect effect.
    Set<String> groups = new TreeSet<>();
    with.forEach(b -> groups.addAll(b.cpuByGroup().keySet()));
    Map<String, Double> addedByGroup = new LinkedHashMap<>();
    for (String group : groups) {
      double[] d = diffs(with, without, b -> b.cpuByGroup().getOrDefault(group, 0.0));
      addedByGroup.put(group, mean(d));
      System.out.printf(Locale.ROOT, "  %-40s %+8.2f +- %.2f us%n", group, mean(d) / 1e3,
          ci95(d) / 1e3);
    }
    r.put("addedCpuNanosByThread", addedByGroup);
    return r;
  }

  /**
   * Goes on warming up, in rounds of {@link #SETTLE_ROUND} calls of each variant, until the JIT
   * compiled nothing during two rounds in a row (at most {@link #SETTLE_MAX} calls of each);
   * returns how many calls of each it made. On a busy machine the compiler threads wait for a
   * core, and code not yet compiled while the blocks run is charged to the variant whose code it
   * is: with a fixed warm-up of 10,000 calls on a loaded machine, Headway's side of an OkHttp
   * call measured several times what it costs once compiled.
   */
  private static int settle(Call plain, Call headway) throws Exception {
    CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
    if (jit == null || !jit.isCompilationTimeMonitoringSupported()) {
      throw new IllegalStateException("this JVM does not report its JIT compilation time "
          + "(CompilationMXBean); run it on HotSpot without -Xint");
    }
    int calls = 0;
    int quiet = 0;
    while (calls < SETTLE_MAX && quiet < 2) {
      long before = jit.getTotalCompilationTime();
      for (int i = 0; i < SETTLE_ROUND; i++) {
        plain.run();
        headway.run();
      }
      calls += SETTLE_ROUND;
      quiet = jit.getTotalCompilationTime() == before ? quiet + 1 : 0;
    }
    return calls;
  }

  private Block measure(Call call, int calls) throws Exception {
    Sample before = sample();
    for (int i = 0; i < calls; i++) {
      call.run();
    }
    Sample after = sample();
    long clientCpu = 0;
    long clientBytes = 0;
    long serverCpu = 0;
    Map<Long, String> names = names();
    Map<String, Double> byGroup = new TreeMap<>();
    for (Map.Entry<Long, long[]> e : after.byThread().entrySet()) {
      long[] end = e.getValue();
      long[] start = before.byThread().getOrDefault(e.getKey(), new long[2]);
      long cpu = Math.max(0, end[0] - start[0]);
      long bytes = Math.max(0, end[1] - start[1]);
      String name = names.getOrDefault(e.getKey(), "");
      String group = e.getKey() == after.callerId() ? CALLER
          : name.replaceAll("[0-9]+", "#");
      byGroup.merge(group, (double) cpu / calls, Double::sum);
      if (name.equals(SERVER_THREAD) || name.startsWith("HTTP-Dispatcher")) {
        serverCpu += cpu;
      } else {
        clientCpu += cpu;
        clientBytes += bytes;
      }
    }
    return new Block((double) clientCpu / calls, (double) clientBytes / calls,
        (double) serverCpu / calls, byGroup);
  }

  private Sample sample() {
    long[] ids = threads.getAllThreadIds();
    long[] cpu = threads.getThreadCpuTime(ids);
    long[] bytes = threads.getThreadAllocatedBytes(ids);
    Map<Long, long[]> byThread = new HashMap<>();
    for (int i = 0; i < ids.length; i++) {
      if (cpu[i] >= 0 && bytes[i] >= 0) {
        byThread.put(ids[i], new long[] {cpu[i], bytes[i]});
      }
    }
    return new Sample(byThread, Thread.currentThread().getId());
  }

  private Map<Long, String> names() {
    Map<Long, String> names = new HashMap<>();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      names.put(t.getId(), t.getName());
    }
    return names;
  }

  private static double[] diffs(List<Block> with, List<Block> without,
      java.util.function.ToDoubleFunction<Block> metric) {
    double[] d = new double[with.size()];
    for (int i = 0; i < d.length; i++) {
      d[i] = metric.applyAsDouble(with.get(i)) - metric.applyAsDouble(without.get(i));
    }
    return d;
  }

  private static double mean(List<Block> blocks, java.util.function.ToDoubleFunction<Block> m) {
    return blocks.stream().mapToDouble(m).average().orElse(Double.NaN);
  }

  static double mean(double[] values) {
    double sum = 0;
    for (double v : values) {
      sum += v;
    }
    return sum / values.length;
  }

  /** Half-width of the 95% confidence interval of the mean (t quantile approximated). */
  static double ci95(double[] values) {
    int n = values.length;
    if (n < 2) {
      return Double.NaN;
    }
    double mean = mean(values);
    double ss = 0;
    for (double v : values) {
      ss += (v - mean) * (v - mean);
    }
    double sd = Math.sqrt(ss / (n - 1));
    double t = 1.96 + 2.5 / (n - 1); // within 1% of Student's t for 10 or more pairs
    return t * sd / Math.sqrt(n);
  }
}
