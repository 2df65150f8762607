package dev.headway.benchmarks.sim;

import dev.headway.PacingStrategy;
import java.util.List;

/** The Headway configurations the simulator compares: one per pacing strategy. */
final class HeadwayVariants {
  /** Every Headway client's name starts with this. */
  static final String PREFIX = "Headway";

  private HeadwayVariants() {}

  /** Returns one client per pacing strategy, the pacer's default first. */
  static List<ClientKind> all() {
    return List.of(
        new HeadwayClient(PREFIX + " burstThenSpread(0.2) (default)",
            b -> b.strategy(PacingStrategy.burstThenSpread(0.2))),
        new HeadwayClient(PREFIX + " spread", b -> b.strategy(PacingStrategy.spread())),
        new HeadwayClient(PREFIX + " useAllThenWait",
            b -> b.strategy(PacingStrategy.useAllThenWait())));
  }
}
