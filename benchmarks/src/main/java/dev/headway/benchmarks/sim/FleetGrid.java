package dev.headway.benchmarks.sim;

import java.time.Duration;
import java.util.SplittableRandom;

/**
 * The fixed grid with its free parameters drawn from a seed ({@code SimulatorMain --grid-seed
 * S}): the grid's server models, header styles, loads and quota (100 per 60 s) stay; each cell
 * draws its round trip (1 to 500 ms in whole milliseconds, log-uniform), its start phase
 * (uniform within the first window, in milliseconds) and the seed of its run. A cell's draw
 * depends only on the seed and the cell (model, style, instances, callers), not on which cells
 * are run or in what order: a filtered run or another fleet size sees the same draw for a cell.
 *
 * <p>The random sets ({@link RandomScenarios}) run one instance each; this is where fleets meet
 * a round trip and a phase nobody tuned on.
 */
final class FleetGrid {
  private FleetGrid() {}

  /** Returns {@code cell} (a fixed-grid scenario) with its free parameters drawn from {@code seed}. */
  static Scenario draw(Scenario cell, long seed) {
    long key = seed;
    key = key * 1_000_003L + cell.model().ordinal();
    key = key * 1_000_003L + cell.style().ordinal();
    key = key * 1_000_003L + cell.instances();
    key = key * 1_000_003L + cell.callers();
    SplittableRandom random = new SplittableRandom(key);
    long rttMillis = RandomScenarios.logUniform(random, 1, 500);
    long phaseMillis = random.nextLong(cell.window().toMillis());
    long runSeed = random.nextLong();
    return new Scenario(cell.model(), cell.style(), cell.instances(), cell.callers(),
        cell.quota(), cell.window(), cell.duration(), Duration.ofMillis(rttMillis),
        Duration.ofMillis(phaseMillis), runSeed);
  }
}
