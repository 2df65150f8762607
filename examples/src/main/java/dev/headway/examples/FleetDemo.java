package dev.headway.examples;

import dev.headway.testing.LocalRedisCluster;
import dev.headway.testing.LocalRedisSentinel;
import dev.headway.testing.LocalRedisServer;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.file.Path;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * The fleet demo: several processes share one quota. Starts a real Redis and the demo's quota
 * server (both on 127.0.0.1), then runs {@value #INSTANCES} separate JVMs ({@link FleetWorker})
 * against one key twice: first each pacing alone, then sharing the quota through a {@code
 * RedisQuotaStore}. Prints the server's counts side by side and exits with status 1 if the shared
 * run drew more than 1% of 429s. Everything it starts is stopped before it ends; each run is
 * bounded in time.
 *
 * <p>{@code --redis single} (the default) shares through one Redis node; {@code --redis cluster}
 * through a three-primary Redis Cluster (each instance on a cluster client of its own); {@code
 * --redis sentinel} through a primary, its replica and a Sentinel, the primary killed halfway
 * through the run so that the Sentinel promotes the replica while the instances call.
 *
 * <pre>mvn -B -q -pl examples -am verify -DskipTests -Pdemo-fleet [-Ddemo.redis=cluster]</pre>
 */
public final class FleetDemo {
  static final int INSTANCES = 4;
  static final int THREADS = 4;
  static final Duration RUN = Duration.ofSeconds(20);
  /** From the instances being ready to the common start instant. */
  static final Duration WARM_UP = Duration.ofSeconds(1);
  /** How long the instances may take to start. */
  static final Duration READY_TIMEOUT = Duration.ofSeconds(120);
  static final long WINDOW_QUOTA = 30;
  static final Duration WINDOW = Duration.ofSeconds(2);

  private FleetDemo() {}

  /** Counts of one run, as the server saw them and as the instances reported them. */
  record Outcome(String name, long received, long ok, long throttled, long refused,
      long failed, double allowedPerSecond, String log, String midRun) {
    double throttledPercent() {
      return received == 0 ? 0 : 100.0 * throttled / received;
    }

    double achievedPerSecond() {
      return ok / (double) RUN.toSeconds();
    }
  }

  /**
   * Runs the demo; exits 1 if the shared run drew more than 1% 429s, 2 if it could not run or a
   * run got less than half the quota (the machine, not the fleet, was measured).
   */
  public static void main(String[] args) throws Exception {
    String mode = "single";
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--redis") && i + 1 < args.length) {
        mode = args[++i];
      } else if (args[i].startsWith("--redis=")) {
        mode = args[i].substring("--redis=".length());
      } else {
        System.out.println("usage: FleetDemo [--redis single|cluster|sentinel]");
        System.exit(2);
      }
    }
    Outcome alone = run("4 JVMs, each pacing alone", null, null);
    Outcome shared;
    switch (mode) {
      case "single" -> {
        try (LocalRedisServer redis = LocalRedisServer.start()) {
          shared = run("4 JVMs sharing Redis", redis.uri().toString(), null);
        }
      }
      case "cluster" -> {
        try (LocalRedisCluster cluster = LocalRedisCluster.start()) {
          shared = run("4 JVMs sharing a Cluster", "cluster:" + cluster.uris().stream()
              .map(URI::toString).collect(Collectors.joining(",")), null);
        }
      }
      case "sentinel" -> {
        try (LocalRedisSentinel sentinel = LocalRedisSentinel.start()) {
          shared = run("4 JVMs, Sentinel, failover", sentinel.uri().toString(), () -> {
            LocalRedisServer old = sentinel.killPrimary();
            long killed = System.nanoTime();
            LocalRedisServer now = sentinel.awaitFailover(old, Duration.ofSeconds(15));
            return String.format(Locale.ROOT, "primary on port %d killed; the Sentinel promoted"
                + " port %d %d ms later", old.port(), now.port(),
                (System.nanoTime() - killed) / 1_000_000);
          });
        }
      }
      default -> {
        System.out.println("--redis must be single, cluster or sentinel but was " + mode);
        System.exit(2);
        return;
      }
    }
    System.out.println();
    System.out.printf(Locale.ROOT, "Quota server: fixed window, %d requests per %d s (%.1f/s);"
        + " %d JVMs x %d threads, %d s per run.%n", WINDOW_QUOTA, WINDOW.toSeconds(),
        alone.allowedPerSecond, INSTANCES, THREADS, RUN.toSeconds());
    if (shared.midRun != null) {
      System.out.println("Halfway through the shared run: " + shared.midRun);
    }
    System.out.printf(Locale.ROOT, "%-28s %8s %8s %8s %8s %16s %10s%n", "", "received", "ok",
        "429", "429 %", "achieved/allowed", "refused*");
    for (Outcome o : List.of(alone, shared)) {
      System.out.printf(Locale.ROOT, "%-28s %8d %8d %8d %7.2f%% %7.1f/s %5.1f/s %10d%n", o.name,
          o.received, o.ok, o.throttled, o.throttledPercent(), o.achievedPerSecond(),
          o.allowedPerSecond, o.refused);
    }
    System.out.println("* calls Headway refused locally (they would have waited past maxWait "
        + FleetWorker.MAX_WAIT.toSeconds() + " s; demand is far above the quota), never sent.");
    for (Outcome o : List.of(alone, shared)) {
      // What the instances said beyond their counts: a late start, a failure, a stuck call.
      o.log.lines().filter(l -> !l.startsWith("ok=") && !l.startsWith("  at "))
          .forEach(l -> System.out.println(o.name + ": " + l));
    }
    if (shared.ok == 0 || alone.ok == 0) {
      System.out.println("FAILED: a run sent nothing; its instances' output:\n" + shared.log);
      System.exit(1);
    }
    for (Outcome o : List.of(alone, shared)) {
      if (o.achievedPerSecond() < o.allowedPerSecond / 2) {
        // Demand is far above the quota: a run that did not get half of it measured the machine.
        System.out.printf(Locale.ROOT, "NOT MEASURED: the %s run got %.1f/s of %.1f/s allowed;"
            + " its JVMs did not get the CPU to ask for the quota. Rerun on a quieter machine.%n",
            o.name.strip(), o.achievedPerSecond(), o.allowedPerSecond);
        System.exit(2);
      }
    }
    if (shared.throttledPercent() > 1.0) {
      System.out.printf(Locale.ROOT, "FAILED: the shared run drew %.2f%% 429s (more than 1%%)%n",
          shared.throttledPercent());
      System.exit(1);
    }
    System.exit(0);
  }

  /** What happens halfway through a run (a failover); returns what it did. */
  interface MidRun {
    String run() throws Exception;
  }

  /**
   * One run: the instances with no store ({@code redis} null), a Redis URI, or {@code
   * cluster:<node URI>,<node URI>...}; {@code midRun}, if any, halfway through.
   */
  private static Outcome run(String name, String redis, MidRun midRun) throws Exception {
    QuotaServer.Config config = new QuotaServer.Config(QuotaServer.Style.IETF, WINDOW_QUOTA,
        WINDOW, 0, 0, Instant.now());
    try (QuotaServer server = QuotaServer.start(config)) {
      String java = ProcessHandle.current().info().command()
          .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
      List<Process> processes = new ArrayList<>();
      List<StringBuilder> outputs = new ArrayList<>();
      try {
        for (int i = 0; i < INSTANCES; i++) {
          Process p = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
              FleetWorker.class.getName(), server.uri().toString(),
              redis == null ? "-" : redis, Integer.toString(THREADS))
              .redirectErrorStream(true).start();
          processes.add(p);
          StringBuilder out = new StringBuilder();
          outputs.add(out);
          drain(p, out);
        }
        // The run starts once every instance is ready (JVM start-ups on a busy machine vary).
        long readyBy = System.nanoTime() + READY_TIMEOUT.toNanos();
        for (int i = 0; i < processes.size(); i++) {
          while (!text(outputs.get(i)).contains("ready\n")) {
            if (System.nanoTime() > readyBy || !processes.get(i).isAlive()) {
              throw new IllegalStateException("instance " + i + " was not ready within "
                  + READY_TIMEOUT.toSeconds() + " s:\n" + text(outputs.get(i)));
            }
            TimeUnit.MILLISECONDS.sleep(20); // waiting for a process to start, not pacing
          }
        }
        Instant start = Instant.now().plus(WARM_UP);
        Instant end = start.plus(RUN);
        for (Process p : processes) {
          try (var in = p.getOutputStream()) {
            in.write((start.toEpochMilli() + " " + end.toEpochMilli() + "\n")
                .getBytes(StandardCharsets.UTF_8));
          }
        }
        String[] midRunOutcome = new String[1];
        Thread half = null;
        if (midRun != null) {
          half = new Thread(() -> {
            try {
              long until = Duration.between(Instant.now(), start.plus(RUN.dividedBy(2)))
                  .toMillis();
              if (until > 0) {
                TimeUnit.MILLISECONDS.sleep(until); // a real-time demo: halfway through the run
              }
              midRunOutcome[0] = midRun.run();
            } catch (Exception e) {
              midRunOutcome[0] = "failed: " + e;
            }
          }, "fleet-demo-mid-run");
          half.start();
        }
        long deadline = System.nanoTime()
            + Duration.between(Instant.now(), end).plus(FleetWorker.MAX_WAIT).plusSeconds(30)
                .toNanos();
        long refused = 0;
        long failed = 0;
        StringBuilder log = new StringBuilder();
        for (int i = 0; i < processes.size(); i++) {
          Process p = processes.get(i);
          long left = Math.max(1, deadline - System.nanoTime());
          if (!p.waitFor(left, TimeUnit.NANOSECONDS) || p.exitValue() != 0) {
            throw new IllegalStateException("instance " + i + " did not end well ("
                + (p.isAlive() ? "still running" : "exit " + p.exitValue()) + "):\n"
                + text(outputs.get(i)));
          }
          String line = lastLine(outputs.get(i));
          log.append("instance ").append(i).append(":\n").append(text(outputs.get(i)));
          refused += field(line, "refused");
          failed += field(line, "failed");
        }
        if (half != null) {
          half.join(Duration.ofSeconds(30).toMillis());
        }
        return new Outcome(name, server.received(), server.succeeded(), server.throttled(),
            refused, failed, config.allowedPerSecond(), log.toString(), midRunOutcome[0]);
      } finally {
        for (Process p : processes) {
          p.destroyForcibly();
        }
      }
    }
  }

  private static void drain(Process p, StringBuilder out) {
    Thread t = new Thread(() -> {
      try (BufferedReader in = new BufferedReader(
          new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
        for (String line; (line = in.readLine()) != null; ) {
          synchronized (out) {
            if (out.length() < 50_000) {
              out.append(line).append('\n');
            }
          }
        }
      } catch (IOException e) {
        // the process ended
      }
    }, "fleet-demo-output");
    t.setDaemon(true);
    t.start();
  }

  private static String text(StringBuilder out) {
    synchronized (out) {
      return out.toString();
    }
  }

  private static String lastLine(StringBuilder out) throws InterruptedException {
    // The output thread may still be copying the last line of an ended process.
    for (int i = 0; i < 100; i++) {
      String s = text(out);
      int at = s.lastIndexOf("ok=");
      if (at >= 0 && s.indexOf('\n', at) > 0) {
        return s.substring(at, s.indexOf('\n', at));
      }
      TimeUnit.MILLISECONDS.sleep(20);
    }
    throw new IllegalStateException("an instance printed no counts:\n" + text(out));
  }

  private static long field(String line, String name) {
    for (String part : line.split(" ")) {
      if (part.startsWith(name + "=")) {
        return Long.parseLong(part.substring(name.length() + 1));
      }
    }
    return 0;
  }
}
