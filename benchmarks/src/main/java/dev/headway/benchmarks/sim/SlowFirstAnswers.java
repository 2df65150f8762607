package dev.headway.benchmarks.sim;

import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * What the first-contact patience decides when the server's answers take longer than it: the
 * scenarios {@link RandomScenarios#draw} gives for a seed, each with its round trip moved past
 * 550 ms (the round trip becomes {@code --base-ms} plus {@code --scale} times the drawn one), run
 * with the default Headway client. The simulator's own scenarios answer within 550 ms, so the
 * callers behind the probes of first contact never wait that long there; this is where they do.
 * Prints one line per scenario (score, 429s, failed and late calls) and the totals.
 *
 * <p>Usage: {@code SlowFirstAnswers --seed S [--count N] [--first K] [--base-ms MS] [--scale X]}
 * (defaults 300 scenarios, all of them, 550 ms, 3). Not thread-safe; a program.
 */
public final class SlowFirstAnswers {
  private SlowFirstAnswers() {}

  /** Runs the measurement; see the class comment for the options. */
  public static void main(String[] args) {
    long seed = -1;
    int count = 300;
    int first = Integer.MAX_VALUE;
    long baseMs = 550;
    double scale = 3;
    for (int i = 0; i + 1 < args.length; i += 2) {
      switch (args[i]) {
        case "--seed" -> seed = Long.parseLong(args[i + 1]);
        case "--count" -> count = Integer.parseInt(args[i + 1]);
        case "--first" -> first = Integer.parseInt(args[i + 1]);
        case "--base-ms" -> baseMs = Long.parseLong(args[i + 1]);
        case "--scale" -> scale = Double.parseDouble(args[i + 1]);
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    if (seed < 0) {
      throw new IllegalArgumentException("--seed is required");
    }
    ClientKind client = HeadwayVariants.all().get(0);
    List<Scenario> scenarios = RandomScenarios.draw(count, seed);
    double score = 0;
    long throttled = 0;
    long requests = 0;
    long failed = 0;
    long late = 0;
    int n = 0;
    for (Scenario drawn : scenarios) {
      if (n >= first) {
        break;
      }
      Scenario scenario = drawn.withRtt(Duration.ofMillis(
          baseMs + Math.round(drawn.rtt().toMillis() * scale)));
      Result r = Simulation.run(scenario, client, null, Reference.of(scenario));
      System.out.printf(Locale.ROOT, "%s | score %.2f | 429 %d of %d | failed %d | late %d%n",
          scenario.label(), r.score(), r.throttled(), r.requests(), r.callsFailed(),
          r.lateCalls());
      score += r.score();
      throttled += r.throttled();
      requests += r.requests();
      failed += r.callsFailed();
      late += r.lateCalls();
      n++;
    }
    System.out.printf(Locale.ROOT,
        "TOTAL %d scenarios | mean score %.3f | 429 %d of %d | failed %d | late %d%n", n,
        score / Math.max(1, n), throttled, requests, failed, late);
  }
}
