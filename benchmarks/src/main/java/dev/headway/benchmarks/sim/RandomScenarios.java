package dev.headway.benchmarks.sim;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Held-out scenarios drawn at random from a seed: the same seed always gives the same scenarios
 * (and, the simulation being deterministic, the same results).
 *
 * <p>Each scenario draws, in this order: the server model and the header style (uniformly among
 * all); the quota, 5 to 5,000 requests per window, log-uniform (as many scenarios from 5 to 50 as
 * from 500 to 5,000); the window, 1 s to 1 h in whole seconds, log-uniform; the round trip, 1 to
 * 500 ms in whole milliseconds, log-uniform; the callers of the one client instance, 1 to 64,
 * log-uniform; the start phase, uniform within the first window (in milliseconds); and the seed
 * of the run.
 *
 * <p>Bounds, so that {@code --random 300} runs in minutes: each run simulates
 * {@link #windows(long)} windows: enough for about 20,000 admitted requests, at least 3 and at
 * most 10. Independently, a run that has sent {@link Simulation#MAX_REQUESTS_RANDOM} requests ends
 * there (only flooding clients get there, and their figures then cover the time simulated).
 */
public final class RandomScenarios {
  private RandomScenarios() {}

  /** Returns {@code count} scenarios drawn from {@code seed}. */
  public static List<Scenario> draw(int count, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    List<Scenario> scenarios = new ArrayList<>(count);
    ModelKind[] models = ModelKind.values();
    HeaderStyle[] styles = HeaderStyle.values();
    for (int i = 0; i < count; i++) {
      ModelKind model = models[random.nextInt(models.length)];
      HeaderStyle style = styles[random.nextInt(styles.length)];
      long quota = logUniform(random, 5, 5000);
      long windowSeconds = logUniform(random, 1, 3600);
      long rttMillis = logUniform(random, 1, 500);
      int callers = (int) logUniform(random, 1, 64);
      long phaseMillis = random.nextLong(windowSeconds * 1000);
      long runSeed = random.nextLong();
      Duration window = Duration.ofSeconds(windowSeconds);
      scenarios.add(new Scenario(model, style, 1, callers, quota, window,
          window.multipliedBy(windows(quota)), Duration.ofMillis(rttMillis),
          Duration.ofMillis(phaseMillis), runSeed));
    }
    return scenarios;
  }

  /** Returns the windows simulated for {@code quota}: ceil(20,000 / quota), within [3, 10]. */
  static long windows(long quota) {
    return Math.max(3, Math.min(10, (20_000 + quota - 1) / quota));
  }

  /** Returns a whole number drawn log-uniformly from [min, max]. */
  static long logUniform(SplittableRandom random, long min, long max) {
    double lo = Math.log(min);
    double hi = Math.log(max + 1);
    long v = (long) Math.floor(Math.exp(lo + random.nextDouble() * (hi - lo)));
    return Math.max(min, Math.min(max, v));
  }
}
