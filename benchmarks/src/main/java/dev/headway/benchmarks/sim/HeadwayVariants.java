package dev.headway.benchmarks.sim;

import java.util.List;

/** The Headway configurations the simulator compares: one per pacing strategy. */
final class HeadwayVariants {
  /** Every Headway client's name starts with this. */
  static final String PREFIX = "Headway";

  private HeadwayVariants() {}

  /** Returns one client per pacing strategy, the pacer's default first. */
  static List<ClientKind> all() {
    return List.of(new HeadwayClient(PREFIX + " (default)", b -> b));
  }
}
