package dev.headway.benchmarks.sim;

import com.sun.net.httpserver.HttpServer;
import dev.headway.HttpFields;
import dev.headway.Pacer;
import dev.headway.Permit;
import dev.headway.RateLimitSignal;
import dev.headway.RateLimitedException;
import dev.headway.RequestInfo;
import dev.headway.Scheduler;
import dev.headway.Ticker;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Runs one scenario in real time against a real loopback HTTP server that enforces the same
 * server model and sends the same headers as the simulator, with real threads and the real
 * system clock, then runs the same scenario in the simulator (with the round trip measured on
 * the loopback) and writes both side by side to {@code realtime.md}.
 *
 * <p>The scenario: a fixed window of 50 requests per 10 s with the structured {@code RateLimit}
 * fields, 8 callers in one client with Headway's default pacing, 30 seconds, starting 2.37 s
 * into a server window. Usage: {@code RealTimeCheck [--out DIR] [--seconds N]}.
 */
public final class RealTimeCheck {
  private static final long SECOND = 1_000_000_000L;

  private RealTimeCheck() {}

  /** Runs the check; see the class comment for arguments. */
  public static void main(String[] args) throws Exception {
    Path out = Path.of("benchmarks/results");
    long seconds = 30;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--out" -> out = Path.of(args[++i]);
        case "--seconds" -> seconds = Long.parseLong(args[++i]);
        default -> throw new IllegalArgumentException("unknown argument " + args[i]);
      }
    }
    Scenario scenario = scenario(Duration.ofSeconds(seconds));
    Outcome real = runReal(scenario);
    Scenario simulated = scenario.withRtt(Duration.ofNanos(Math.max(1, real.meanRttNanos)));
    Result sim = Simulation.run(simulated, defaultHeadway());
    String md = report(scenario, real, sim);
    Files.createDirectories(out);
    Files.writeString(out.resolve("realtime.md"), md);
    System.out.print(md);
  }

  /** The scenario run in both worlds. */
  static Scenario scenario(Duration duration) {
    return new Scenario(ModelKind.FIXED_WINDOW, HeaderStyle.STRUCTURED, 1, 8, 50,
        Duration.ofSeconds(10), duration, Duration.ofMillis(1), Duration.ofMillis(2_370), 42);
  }

  static ClientKind defaultHeadway() {
    return new HeadwayClient(HeadwayVariants.PREFIX + " (default)", b -> b);
  }

  /** What the real run measured. */
  record Outcome(long allowed, long admitted, long throttled, long callsFailed, long meanRttNanos,
      double meanDelayMs) {
    double goodputPct() {
      return 100.0 * admitted / allowed;
    }

    double throttledPct() {
      long requests = admitted + throttled;
      return requests == 0 ? 0 : 100.0 * throttled / requests;
    }
  }

  static Outcome runReal(Scenario scenario) throws Exception {
    System.setProperty("sun.net.httpserver.nodelay", "true");
    Ticker ticker = Ticker.system();
    InstantSource wall = InstantSource.system();
    long durationNanos = scenario.duration().toNanos();
    long start = ticker.read();
    ServerModel model = scenario.model().create(scenario.quota(), scenario.window().toNanos(),
        -scenario.phase().toNanos());
    AtomicLong admitted = new AtomicLong();
    AtomicLong throttled = new AtomicLong();
    HttpServer server = HttpServer.create(
        new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
    ExecutorService serverThreads = Executors.newFixedThreadPool(4);
    server.setExecutor(serverThreads);
    server.createContext("/", exchange -> {
      long now = ticker.read() - start;
      Decision decision;
      synchronized (model) {
        decision = model.admit(now);
      }
      if (now < durationNanos) {
        (decision.allowed() ? admitted : throttled).incrementAndGet();
      }
      HttpFields fields = scenario.style().render(decision, model.quota(), model.windowNanos(),
          wall.instant());
      for (Map.Entry<String, List<String>> e : fields.asMap().entrySet()) {
        exchange.getResponseHeaders().put(e.getKey(), e.getValue());
      }
      byte[] body = "{}".getBytes(StandardCharsets.US_ASCII);
      exchange.sendResponseHeaders(decision.allowed() ? 200 : 429, body.length);
      try (OutputStream os = exchange.getResponseBody()) {
        os.write(body);
      }
    });
    server.start();
    URI uri = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/v1/items");
    RequestInfo request = RequestInfo.get(uri);
    HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    Pacer pacer = Pacer.builder().maxAttempts(4).jitterSeed(42).build();
    Scheduler scheduler = pacer.scheduler();
    AtomicLong failed = new AtomicLong();
    AtomicLong rttSum = new AtomicLong();
    AtomicLong rttCount = new AtomicLong();
    List<Long> delays = Collections.synchronizedList(new ArrayList<>());
    List<Thread> callers = new ArrayList<>();
    for (int c = 0; c < scenario.callers(); c++) {
      Thread caller = new Thread(() -> {
        try {
          while (ticker.read() - start < durationNanos) {
            long issued = ticker.read();
            for (int attempt = 1; ; attempt++) {
              Permit permit;
              try {
                permit = pacer.acquire(request);
              } catch (RateLimitedException e) {
                failed.incrementAndGet();
                scheduler.sleep(Duration.between(wall.instant(), e.retryAt()));
                break;
              }
              long sent = ticker.read();
              HttpResponse<byte[]> response;
              try {
                response = http.send(HttpRequest.newBuilder(uri).GET().build(),
                    HttpResponse.BodyHandlers.ofByteArray());
              } catch (IOException e) {
                permit.release();
                return; // the server stopped: the run is over
              }
              rttSum.addAndGet(ticker.read() - sent);
              rttCount.incrementAndGet();
              RateLimitSignal signal = permit.complete(response.statusCode(),
                  HttpFields.of(response.headers().map()), null);
              if (response.statusCode() == 200) {
                delays.add(sent - issued);
                break;
              }
              Optional<Duration> delay = pacer.retryDelay(request, signal, attempt);
              if (delay.isEmpty()) {
                failed.incrementAndGet();
                break;
              }
              scheduler.sleep(delay.get());
            }
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }, "caller-" + c);
      caller.setDaemon(true);
      callers.add(caller);
    }
    callers.forEach(Thread::start);
    scheduler.sleep(scenario.duration());
    long stopped = ticker.read() - start;
    for (Thread caller : callers) {
      caller.interrupt();
    }
    server.stop(0);
    serverThreads.shutdownNow();
    double meanDelay = delays.stream().mapToLong(Long::longValue).average().orElse(0) / 1e6;
    long meanRtt = rttCount.get() == 0 ? 0 : rttSum.get() / rttCount.get();
    long allowed = Simulation.allowed(scenario.withDuration(Duration.ofNanos(stopped)));
    return new Outcome(allowed, admitted.get(), throttled.get(), failed.get(), meanRtt,
        meanDelay);
  }

  static String report(Scenario scenario, Outcome real, Result sim) {
    StringBuilder md = new StringBuilder("# Real time against the simulation\n\n");
    md.append(String.format(Locale.ROOT, "Scenario: %s, quota %d per %d s, %d s, starting %.2f s "
            + "into a server window; Headway with its default pacing. Real: a "
            + "`com.sun.net.httpserver` loopback server enforcing the same model and sending the "
            + "same headers, 8 caller threads on `java.net.http.HttpClient`, the system clock. "
            + "Simulated: the same scenario in virtual time with the measured mean round trip "
            + "(%.2f ms). Generated by `benchmarks/run-sim.sh` on %s.%n%n",
        scenario.label(), scenario.quota(), scenario.window().toSeconds(),
        scenario.duration().toSeconds(), scenario.phase().toMillis() / 1000.0,
        real.meanRttNanos / 1e6, Machine.describe()));
    md.append("| run | allowed | admitted | goodput % | 429s | 429 % | failed calls "
        + "| mean delay ms |\n|---|---:|---:|---:|---:|---:|---:|---:|\n");
    md.append(String.format(Locale.ROOT, "| real time | %d | %d | %.1f | %d | %.2f | %d | %.0f |%n",
        real.allowed, real.admitted, real.goodputPct(), real.throttled, real.throttledPct(),
        real.callsFailed, real.meanDelayMs));
    md.append(String.format(Locale.ROOT, "| simulated | %d | %d | %.1f | %d | %.2f | %d | %.0f |%n",
        sim.allowed(), sim.admitted(), sim.goodputPct(), sim.throttled(), sim.throttledPct(),
        sim.callsFailed(), sim.meanDelayMs()));
    double gap = real.goodputPct() - sim.goodputPct();
    md.append(String.format(Locale.ROOT, "%nGoodput differs by %.1f percentage points (%s); 429 "
            + "share by %.2f points.%n", gap,
        Math.abs(gap) <= 3 ? "agreement within a few percent" : "MORE than a few percent",
        real.throttledPct() - sim.throttledPct()));
    return md.toString();
  }
}
