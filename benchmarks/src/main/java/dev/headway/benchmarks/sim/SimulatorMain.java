package dev.headway.benchmarks.sim;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.jspecify.annotations.Nullable;

/**
 * Runs the goodput simulator in virtual time. Three modes:
 *
 * <ul>
 *   <li>default: the fixed grid (4 server algorithms x 5 header styles x 7 loads x every compared
 *       client); writes {@code simulation.md}, {@code simulation.csv} and
 *       {@code simulation.svg};</li>
 *   <li>{@code --random N --seed S}: N scenarios drawn from the seed ({@link RandomScenarios});
 *       prints a summary per header style and server model and writes
 *       {@code random-S.md} and {@code random-S.csv};</li>
 *   <li>{@code --scoped}: the servers with several quotas on one host ({@link ScopedKind});
 *       writes {@code scoped.md} and {@code scoped.csv}.</li>
 * </ul>
 *
 * <p>Options: {@code [--out DIR] [--duration SECONDS] [--threads N] [--client TEXT]
 * [--scenario TEXT] [--grid-seed S] [--loads IxC,...]}; defaults {@code benchmarks/results},
 * 600 s (fixed grid only), 1 thread, every client and scenario (the filters keep those whose name
 * contains the text). For the fixed grid, {@code --grid-seed S} draws each cell's round trip,
 * start phase and run seed from S ({@link FleetGrid}; the random sets run one instance each, so
 * this is how fleets meet a seed nobody tuned on), and {@code --loads 3x4,20x4} replaces the
 * grid's loads (instances x callers per instance). Without them the grid is unchanged.
 */
public final class SimulatorMain {
  /** The loads: {instances, callers per instance}. */
  static final int[][] LOADS = {{1, 1}, {1, 8}, {1, 64}, {2, 4}, {5, 4}, {10, 4}, {50, 4}};

  private SimulatorMain() {}

  /** Runs the matrix; see the class comment for arguments. */
  public static void main(String[] args) throws Exception {
    Path out = Path.of("benchmarks/results");
    Duration duration = Duration.ofSeconds(600);
    int threads = 1;
    String clientFilter = "";
    String scenarioFilter = "";
    int random = 0;
    Long seed = null;
    boolean scoped = false;
    Long gridSeed = null;
    int[][] loads = LOADS;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--random" -> random = Integer.parseInt(args[++i]);
        case "--seed" -> seed = Long.parseLong(args[++i]);
        case "--scoped" -> scoped = true;
        case "--grid-seed" -> gridSeed = Long.parseLong(args[++i]);
        case "--loads" -> loads = parseLoads(args[++i]);
        case "--out" -> out = Path.of(args[++i]);
        case "--duration" -> duration = Duration.ofSeconds(Long.parseLong(args[++i]));
        case "--threads" -> threads = Integer.parseInt(args[++i]);
        case "--client" -> clientFilter = args[++i];
        case "--scenario" -> scenarioFilter = args[++i];
        default -> throw new IllegalArgumentException("unknown argument " + args[i]);
      }
    }
    String onlyClients = clientFilter;
    List<ClientKind> clients = clients().stream()
        .filter(c -> c.name().contains(onlyClients)).toList();
    if (random > 0) {
      if (seed == null) {
        throw new IllegalArgumentException("--random needs --seed");
      }
      runRandom(out, random, seed, clients, threads, scenarioFilter);
      return;
    }
    if (scoped) {
      runScoped(out, clients, threads, scenarioFilter);
      return;
    }
    List<Scenario> scenarios = new ArrayList<>();
    for (ModelKind model : ModelKind.values()) {
      for (HeaderStyle style : HeaderStyle.values()) {
        for (int[] load : loads) {
          Scenario scenario = Scenario.of(model, style, load[0], load[1]).withDuration(duration);
          if (gridSeed != null) {
            scenario = FleetGrid.draw(scenario, gridSeed);
          }
          if (scenario.label().contains(scenarioFilter)) {
            scenarios.add(scenario);
          }
        }
      }
    }
    long started = System.nanoTime();
    List<Result> results = runAll(scenarios, clients, threads);
    double seconds = (System.nanoTime() - started) / 1e9;
    write(out, results, clients, duration, seconds, gridSeed);
    System.out.printf(Locale.ROOT, "%d runs in %.1f s; wrote %s%n", results.size(), seconds,
        out.resolve("simulation.md"));
  }

  /** Parses {@code "2x4,5x4"} (instances x callers per instance). */
  static int[][] parseLoads(String text) {
    String[] parts = text.split(",");
    int[][] loads = new int[parts.length][];
    for (int i = 0; i < parts.length; i++) {
      String[] ic = parts[i].trim().split("x");
      if (ic.length != 2) {
        throw new IllegalArgumentException("--loads wants INSTANCESxCALLERS,... but got " + text);
      }
      loads[i] = new int[] {Integer.parseInt(ic[0]), Integer.parseInt(ic[1])};
    }
    return loads;
  }

  /** Returns the compared clients: the three baselines, then Headway per pacing strategy. */
  static List<ClientKind> clients() {
    List<ClientKind> clients = new ArrayList<>();
    clients.add(new NoThrottleClient(3));
    clients.add(new BackoffClient(3));
    clients.add(new StaticLimiterClient(3));
    clients.addAll(HeadwayVariants.all());
    return clients;
  }

  /**
   * Runs every client in every scenario (the perfect client once per scenario first, as the
   * yardstick), {@code threads} scenarios at a time; results in scenario order.
   */
  static List<Result> runAll(List<Scenario> scenarios, List<ClientKind> clients, int threads)
      throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<List<Result>>> futures = new ArrayList<>();
      for (Scenario scenario : scenarios) {
        futures.add(pool.submit(() -> {
          Reference reference = Reference.of(scenario);
          List<Result> results = new ArrayList<>();
          for (ClientKind client : clients) {
            results.add(Simulation.run(scenario, client, null, reference));
          }
          return results;
        }));
      }
      List<Result> results = new ArrayList<>();
      int done = 0;
      for (Future<List<Result>> f : futures) {
        results.addAll(f.get());
        if (++done % 25 == 0 && scenarios.size() > 50) {
          System.err.printf(Locale.ROOT, "%d of %d scenarios%n", done, scenarios.size());
        }
      }
      return results;
    } finally {
      pool.shutdown();
    }
  }

  static void runRandom(Path out, int count, long seed, List<ClientKind> clients, int threads,
      String scenarioFilter) throws Exception {
    List<Scenario> scenarios = RandomScenarios.draw(count, seed).stream()
        .filter(s -> s.label().contains(scenarioFilter)).toList();
    long started = System.nanoTime();
    List<Result> results = runAll(scenarios, clients, threads);
    double seconds = (System.nanoTime() - started) / 1e9;
    List<String> names = clients.stream().map(ClientKind::name).toList();
    String setup = String.format(Locale.ROOT, "%d scenarios drawn from seed %d (`SimulatorMain "
        + "--random %d --seed %d`): server model and header style uniform; quota 5-5,000 per "
        + "window, window 1 s - 1 h, round trip 1-500 ms, 1-64 callers in one client instance, "
        + "all log-uniform; start phase uniform in the first window. Each run simulates "
        + "ceil(20,000 / quota) windows, at least 3 and at most 10, and ends early after %,d "
        + "requests (flooding clients only; their figures cover the time simulated). Up to 3 "
        + "retries per call for every client; the static limiter and the declared Headway "
        + "variant are given the scenario's quota. %d runs took %.0f s on %s.", count, seed,
        count, seed, Simulation.MAX_REQUESTS_RANDOM, results.size(), seconds, Machine.describe());
    Files.createDirectories(out);
    Path md = out.resolve("random-" + seed + ".md");
    Files.writeString(md, HeldOutReport.randomMarkdown(results, names, HeadwayVariants.PREFIX,
        HeadwayVariants.DEFAULT, setup));
    Files.writeString(out.resolve("random-" + seed + ".csv"), Report.csv(results));
    if (names.contains(HeadwayVariants.DEFAULT)) {
      System.out.print(HeldOutReport.text(
          HeldOutReport.groups(results, HeadwayVariants.DEFAULT, HeadwayVariants.PREFIX),
          HeadwayVariants.DEFAULT));
    }
    System.out.printf(Locale.ROOT, "%d runs in %.1f s; wrote %s%n", results.size(), seconds, md);
  }

  static void runScoped(Path out, List<ClientKind> clients, int threads, String scenarioFilter)
      throws Exception {
    List<Scenario> scenarios = new ArrayList<>();
    for (ScopedKind kind : ScopedKind.values()) {
      Scenario scenario = Scenario.of(kind);
      if (scenario.label().contains(scenarioFilter)) {
        scenarios.add(scenario);
      }
    }
    long started = System.nanoTime();
    List<Result> results = runAll(scenarios, clients, threads);
    double seconds = (System.nanoTime() - started) / 1e9;
    String setup = String.format(Locale.ROOT, "Virtual time; 50 ms round trip (+ up to 10%% "
        + "jitter each way); one client instance of closed-loop callers; up to 3 retries per "
        + "call for every client. GitHub-like: 16 callers, 2 h; Discord-like and LLM-like: 8 "
        + "callers, 600 s. The static limiter and the declared Headway variant are given the "
        + "headline quota (GitHub core 5,000/h; Discord global 3/s; LLM model-a 100 "
        + "requests/min); the Headway clients price the LLM's token quotas by the request's "
        + "tokens. %d runs took %.0f s on %s. Generated by `SimulatorMain --scoped`.",
        results.size(), seconds, Machine.describe());
    Files.createDirectories(out);
    Files.writeString(out.resolve("scoped.md"), HeldOutReport.scopedMarkdown(results, setup));
    Files.writeString(out.resolve("scoped.csv"), HeldOutReport.scopedCsv(results));
    for (Result r : results) {
      StringBuilder line = new StringBuilder(String.format(Locale.ROOT,
          "%-48s %-40s score %6.1f 429 %6.2f%%", r.scenario().label(), r.client(), r.score(),
          r.throttledPct()));
      for (SimServer.QuotaUse q : r.quotas()) {
        line.append(String.format(Locale.ROOT, " | %s %.1f%%", q.name(), q.goodputPct()));
      }
      System.out.println(line);
    }
    System.out.printf(Locale.ROOT, "%d runs in %.1f s; wrote %s%n", results.size(), seconds,
        out.resolve("scoped.md"));
  }

  static void write(Path out, List<Result> results, List<ClientKind> clients, Duration duration,
      double seconds, @Nullable Long gridSeed) throws IOException {
    List<String> names = clients.stream().map(ClientKind::name).toList();
    String setup = String.format(Locale.ROOT, "Virtual time, %d s per run; server quota 100 "
        + "requests per 60 s on one key (token bucket: capacity 100; GCRA: burst 10); 50 ms "
        + "round trip (+ up to 10%% jitter each way); callers closed-loop (demand always exceeds "
        + "the quota); clients start 23.7 s into a server window; up to 3 retries per call for "
        + "every client; a run ends early after %,d requests (flooding clients with 50 "
        + "instances only). %d runs took %.0f s of CPU on %s. Generated by "
        + "`benchmarks/run-sim.sh`.", duration.toSeconds(), Simulation.MAX_REQUESTS,
        results.size(), seconds, Machine.describe());
    if (gridSeed != null) {
      setup += String.format(Locale.ROOT, " Round trip, start phase and run seed of every cell "
          + "drawn from seed %d (`--grid-seed %d`: round trip 1-500 ms log-uniform, phase "
          + "uniform in the first window), not the 50 ms and 23.7 s above.", gridSeed, gridSeed);
    }
    Files.createDirectories(out);
    Files.writeString(out.resolve("simulation.md"),
        Report.markdown(results, names, HeadwayVariants.PREFIX, setup));
    Files.writeString(out.resolve("simulation.csv"), Report.csv(results));
    Files.writeString(out.resolve("simulation.svg"), Report.svg(results, names));
  }
}
