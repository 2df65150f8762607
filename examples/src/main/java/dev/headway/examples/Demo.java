package dev.headway.examples;

import dev.headway.Pacer;
import dev.headway.PolicySnapshot;
import dev.headway.QuotaSnapshot;
import dev.headway.Scheduler;
import dev.headway.Ticker;
import dev.headway.jdk.RateLimitedHttpClient;
import dev.headway.okhttp.RateLimitInterceptor;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;

/**
 * The demo the README runs: three clients against a local server that really enforces its quota.
 *
 * <p>Two rounds, run at the same time (each client has its own server, so nothing is shared). In
 * round 1 the server enforces a fixed window of 50 requests per 5 seconds and a token bucket of
 * 40 (refilled at 20 per second), and says so with the IETF {@code RateLimit} and
 * {@code RateLimit-Policy} fields. In round 2 it enforces the fixed window only and says so with
 * legacy {@code X-RateLimit-Limit}, {@code -Remaining} and {@code -Reset} (epoch seconds), plus
 * {@code Retry-After} on 429. Each round has three clients, each with 8 workers and the same 125
 * requests to get done (two and a half windows, so that finishing early at a window boundary
 * cannot flatter anyone):
 *
 * <ol>
 *   <li>plain OkHttp: no throttling; on a 429 a worker tries again after 100 ms;
 *   <li>OkHttp with {@code RateLimitInterceptor};
 *   <li>{@code java.net.http.HttpClient} wrapped by {@code RateLimitedHttpClient}.
 * </ol>
 *
 * <p>It prints a live progress line (rewritten in place on a terminal, one line a second
 * otherwise), then a table of what the servers counted, then the quota each Headway client's
 * {@link Pacer} reports when its round ends. It fails (exception, non-zero exit) if a Headway
 * client got a 429 or reached less than 90% of the allowed rate, or if the plain client got none:
 * the numbers it prints are measured, never assumed.
 */
public final class Demo {
  static final int WORKERS = 8;
  static final int WORK = 125;
  static final Duration PLAIN_RETRY_PAUSE = Duration.ofMillis(100);
  static final double REQUIRED_SHARE = 0.90;

  private static final Ticker TICKER = Ticker.system();
  private static final Scheduler SCHEDULER = Scheduler.system();

  private Demo() {}

  /** Runs the demo; takes no arguments. */
  public static void main(String[] args) throws Exception {
    PrintStream out = System.out;
    boolean tty = System.console() != null;
    out.println("Headway demo: 2 rounds x 3 clients x 8 workers x " + WORK + " requests, each"
        + " client against its own local server that enforces its quota.");
    // Start on a whole second, so that the servers' windows end on whole epoch seconds (what
    // X-RateLimit-Reset can express exactly) and every client starts at a window's start.
    Instant origin = Instant.now().truncatedTo(ChronoUnit.SECONDS).plusSeconds(2);
    List<Round> rounds = List.of(
        new Round(1, "RateLimit + RateLimit-Policy (IETF draft)",
            new QuotaServer.Config(QuotaServer.Style.IETF, 50, Duration.ofSeconds(5), 40, 20,
                origin)),
        new Round(2, "X-RateLimit-* + Retry-After (legacy)",
            new QuotaServer.Config(QuotaServer.Style.LEGACY, 50, Duration.ofSeconds(5), 0, 0,
                origin)));
    List<Row> rows = new ArrayList<>();
    try {
      for (Round round : rounds) {
        round.open();
        out.println(round.describe());
      }
      out.println();
      out.println("Progress, both rounds together (requests done / to do, and 429s received):");
      SCHEDULER.sleep(Duration.between(Instant.now(), origin));
      long start = TICKER.read();
      for (Round round : rounds) {
        round.runs.forEach(Run::start);
      }
      long lastPrint = 0;
      while (!rounds.stream().allMatch(Round::finished)) {
        SCHEDULER.sleep(Duration.ofMillis(200));
        long elapsed = TICKER.read() - start;
        if (tty) {
          out.print("\r" + progress(rounds, elapsed) + "  ");
          out.flush();
        } else if (elapsed - lastPrint >= 1_000_000_000L) {
          lastPrint = elapsed;
          out.println(progress(rounds, elapsed));
        }
      }
      String last = progress(rounds, TICKER.read() - start);
      out.println(tty ? "\r" + last + "  " : last);
      for (Round round : rounds) {
        rows.addAll(round.rows());
      }
    } finally {
      rounds.forEach(Round::close);
    }
    out.println();
    printTable(out, rows);
    out.println();
    printQuota(out, rows);
    out.println();
    List<String> failures = verdict(rows);
    if (!failures.isEmpty()) {
      out.println("DEMO FAILED:");
      failures.forEach(f -> out.println("  - " + f));
      out.flush();
      throw new IllegalStateException("demo failed: " + String.join("; ", failures));
    }
    out.println("OK: both Headway clients got zero 429s and at least "
        + Math.round(REQUIRED_SHARE * 100) + "% of the allowed rate; the plain client got "
        + rows.stream().filter(r -> r.pacer.isEmpty()).mapToLong(r -> r.throttled).sum()
        + " 429s.");
  }

  /** One round: a server style and three clients, each with its own server. */
  static final class Round implements AutoCloseable {
    final int number;
    final String title;
    final QuotaServer.Config config;
    final List<Run> runs = new ArrayList<>();

    Round(int number, String title, QuotaServer.Config config) {
      this.number = number;
      this.title = title;
      this.config = config;
    }

    void open() throws IOException {
      runs.add(new Run(QuotaServer.start(config), plainOkHttp()));
      runs.add(new Run(QuotaServer.start(config), headwayOkHttp(Pacer.create())));
      runs.add(new Run(QuotaServer.start(config), headwayJdk(Pacer.create())));
    }

    String describe() {
      return "Round " + number + ": " + title + ", fixed window " + config.windowQuota()
          + " requests / " + config.window().toSeconds() + " s"
          + (config.bucketCapacity() > 0 ? ", token bucket " + config.bucketCapacity() + " (+"
              + config.bucketRefillPerSecond() + "/s)" : "");
    }

    boolean finished() {
      return runs.stream().allMatch(Run::finished);
    }

    List<Row> rows() throws Exception {
      List<Row> rows = new ArrayList<>();
      for (Run run : runs) {
        run.await();
        rows.add(new Row(number, run.client.name(), run.server.received(),
            run.server.succeeded(), run.server.throttled(), run.server.throttledByBucket(),
            run.errors.get(), Duration.ofNanos(run.endNanos - run.startNanos),
            config.allowedPerSecond(), earliest(run), run.server.uri(),
            run.client.pacer(), Optional.ofNullable(run.quotaAtEnd)));
      }
      return rows;
    }

    /**
     * How soon after its start the quota lets a run finish its work. On a loaded machine, opening
     * the rounds can take longer than the 2 s allowed for it: a client then starts into the first
     * window, and may finish that much sooner.
     */
    Duration earliest(Run run) {
      return config.earliestFinish(WORK, Duration.between(config.origin(), run.startedAt));
    }

    @Override
    public void close() {
      runs.forEach(Run::close);
    }
  }

  /** One client's result in one round. */
  record Row(int round, String client, long sent, long ok, long throttled, long byBucket,
      long errors,
      Duration wall, double allowedPerSecond, Duration earliest, URI uri, Optional<Pacer> pacer,
      Optional<QuotaSnapshot> quota) {
    double achievedPerSecond() {
      double seconds = wall.toNanos() / 1e9;
      return seconds == 0 ? 0 : ok / seconds;
    }

    double share() {
      return achievedPerSecond() / allowedPerSecond;
    }

    /** Requests sent per request that succeeded: 1.0 when nothing was sent twice. */
    double sentPerOk() {
      return ok == 0 ? 0 : (double) sent / ok;
    }
  }

  /** A client under test: sends one GET and returns the final status code. */
  interface DemoClient extends AutoCloseable {
    String name();

    default String label() {
      return name().replace(" + ", "+").replace("JDK HttpClient", "JDK")
          .replace("plain OkHttp", "plain");
    }

    int get(URI uri) throws IOException, InterruptedException;

    Optional<Pacer> pacer();

    boolean retriesItself();

    @Override
    void close();
  }

  /** Returns the progress line: per kind of client, both rounds together. */
  private static String progress(List<Round> rounds, long elapsedNanos) {
    StringBuilder line =
        new StringBuilder(String.format(Locale.ROOT, "%5.1fs", elapsedNanos / 1e9));
    int clients = rounds.get(0).runs.size();
    for (int i = 0; i < clients; i++) {
      long done = 0;
      long throttled = 0;
      for (Round round : rounds) {
        done += round.runs.get(i).done.get();
        throttled += round.runs.get(i).server.throttled();
      }
      line.append(String.format(Locale.ROOT, "  %s %3d/%d (429s: %d)",
          rounds.get(0).runs.get(i).client.label(), done, WORK * rounds.size(), throttled));
    }
    return line.toString();
  }

  /** One client's workers against its own server. */
  static final class Run implements AutoCloseable {
    final QuotaServer server;
    final DemoClient client;
    final AtomicInteger next = new AtomicInteger();
    final AtomicInteger done = new AtomicInteger();
    final AtomicLong errors = new AtomicLong();
    final ExecutorService workers = Executors.newFixedThreadPool(WORKERS);
    final List<Future<?>> futures = new ArrayList<>();
    volatile long startNanos;
    volatile Instant startedAt = Instant.EPOCH;
    volatile long endNanos;
    volatile QuotaSnapshot quotaAtEnd;

    Run(QuotaServer server, DemoClient client) {
      this.server = server;
      this.client = client;
    }

    void start() {
      startedAt = Instant.now();
      startNanos = TICKER.read();
      for (int i = 0; i < WORKERS; i++) {
        futures.add(workers.submit(() -> {
          work();
          return null;
        }));
      }
    }

    private void work() throws InterruptedException {
      int item;
      while ((item = next.getAndIncrement()) < WORK) {
        URI uri = server.uri().resolve("items/" + item);
        while (true) {
          try {
            int status = client.get(uri);
            if (status == 200) {
              break;
            }
          } catch (IOException e) {
            // A Headway client that would wait past maxWait fails fast; count it and try again.
            errors.incrementAndGet();
          }
          if (!client.retriesItself()) {
            SCHEDULER.sleep(PLAIN_RETRY_PAUSE);
          }
        }
        if (done.incrementAndGet() == WORK) {
          endNanos = TICKER.read();
          quotaAtEnd = client.pacer().map(p -> p.quota(server.uri())).orElse(null);
        }
      }
    }

    boolean finished() {
      return futures.stream().allMatch(Future::isDone);
    }

    void await() throws Exception {
      for (Future<?> future : futures) {
        future.get();
      }
      if (endNanos == 0) {
        endNanos = TICKER.read();
      }
    }

    @Override
    public void close() {
      workers.shutdownNow();
      client.close();
      server.close();
    }
  }

  static DemoClient plainOkHttp() {
    OkHttpClient ok = new OkHttpClient();
    return new OkHttpDemoClient("plain OkHttp", ok, Optional.empty());
  }

  static DemoClient headwayOkHttp(Pacer pacer) {
    OkHttpClient ok = new OkHttpClient.Builder()
        .addInterceptor(RateLimitInterceptor.create(pacer))
        .build();
    return new OkHttpDemoClient("OkHttp + Headway", ok, Optional.of(pacer));
  }

  static DemoClient headwayJdk(Pacer pacer) {
    HttpClient jdk = RateLimitedHttpClient.wrap(HttpClient.newHttpClient(), pacer);
    return new DemoClient() {
      @Override
      public String name() {
        return "JDK HttpClient + Headway";
      }

      @Override
      public int get(URI uri) throws IOException, InterruptedException {
        HttpResponse<String> response =
            jdk.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString());
        return response.statusCode();
      }

      @Override
      public Optional<Pacer> pacer() {
        return Optional.of(pacer);
      }

      @Override
      public boolean retriesItself() {
        return true;
      }

      @Override
      public void close() {}
    };
  }

  private record OkHttpDemoClient(String name, OkHttpClient ok, Optional<Pacer> pacer)
      implements DemoClient {
    @Override
    public int get(URI uri) throws IOException {
      try (Response response = ok.newCall(new Request.Builder().url(uri.toString()).build())
          .execute()) {
        response.body().string();
        return response.code();
      }
    }

    @Override
    public boolean retriesItself() {
      return pacer.isPresent();
    }

    @Override
    public void close() {
      ok.dispatcher().executorService().shutdown();
      ok.connectionPool().evictAll();
    }
  }

  static void printTable(PrintStream out, List<Row> rows) {
    String format = "%-5s  %-24s  %5s  %5s  %5s  %6s  %7s  %8s%n";
    out.printf(Locale.ROOT, format, "round", "client", "sent", "ok", "429", "errors", "took",
        "sent/ok");
    for (Row row : rows) {
      out.printf(Locale.ROOT, format, row.round, row.client, row.sent, row.ok, row.throttled,
          row.errors, String.format(Locale.ROOT, "%.1f s", row.wall.toNanos() / 1e9),
          String.format(Locale.ROOT, "%.1f", row.sentPerOk()));
    }
    out.println("sent, ok and 429 as the servers counted them; sent/ok: requests sent per"
        + " request done (1.0: none sent twice).");
    for (String line : conclusion(rows)) {
      out.println(line);
    }
  }

  /**
   * What the table means for a user: how close each client came to the earliest time the quota
   * allows the work to finish, and what the plain client paid for the same result.
   */
  static List<String> conclusion(List<Row> rows) {
    List<String> lines = new ArrayList<>();
    double latest = rows.stream()
        .mapToDouble(r -> (r.wall.toNanos() - r.earliest.toNanos()) / 1e9).max().orElse(0);
    lines.add(String.format(Locale.ROOT, "Every client finished within %.1f s of the earliest"
        + " instant the quota allows for %d requests.", Math.max(0, latest), WORK));
    rows.stream().filter(r -> r.pacer.isEmpty()).mapToDouble(Row::sentPerOk).max().ifPresent(
        plain -> lines.add(String.format(Locale.ROOT, "Plain OkHttp sent %.1f requests per"
            + " success (the rest were answered 429); Headway's clients sent each request once.",
            plain)));
    return lines;
  }

  static void printQuota(PrintStream out, List<Row> rows) {
    out.println("Quota as each Headway client reports it at the end of its round"
        + " (pacer.quota(uri)):");
    for (Row row : rows) {
      if (row.quota.isEmpty()) {
        continue;
      }
      QuotaSnapshot snapshot = row.quota.get();
      out.println("  round " + row.round + ", " + row.client + " (" + snapshot.partition() + "):");
      if (snapshot.policies().isEmpty()) {
        out.println("    (no policy known)");
      }
      for (PolicySnapshot policy : snapshot.policies()) {
        out.println("    " + policy); // PolicySnapshot prints itself as one tidy line.
      }
    }
  }

  static List<String> verdict(List<Row> rows) {
    List<String> failures = new ArrayList<>();
    for (Row row : rows) {
      String who = "round " + row.round + " " + row.client;
      if (row.ok < WORK) {
        failures.add(who + " finished only " + row.ok + " of " + WORK + " requests");
      }
      if (row.pacer.isPresent()) {
        if (row.throttled > 0) {
          failures.add(who + " was answered 429 " + row.throttled + " times (" + row.byBucket
              + " by the token bucket)");
        }
        if (row.share() < REQUIRED_SHARE) {
          failures.add(String.format(Locale.ROOT,
              "%s reached %.0f%% of the allowed rate (< %.0f%%)", who, row.share() * 100,
              REQUIRED_SHARE * 100));
        }
      } else if (row.throttled == 0) {
        failures.add(who + " was never answered 429: the server did not enforce its quota");
      }
    }
    return failures;
  }
}
