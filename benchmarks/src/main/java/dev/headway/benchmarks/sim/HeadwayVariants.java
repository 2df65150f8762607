package dev.headway.benchmarks.sim;

import dev.headway.ClientPolicy;
import dev.headway.PacingStrategy;
import java.util.List;

/**
 * The Headway configurations the simulator compares: one per pacing strategy, and the default
 * strategy plus a declared client policy at the documented rate (what a user who read the API's
 * documentation would add; the same rate the static limiter is given: the scenario's quota per
 * window, 100 per minute in the fixed grid).
 */
final class HeadwayVariants {
  /** Every Headway client's name starts with this. */
  static final String PREFIX = "Headway";

  /** The name of the pacer's default configuration. */
  static final String DEFAULT = PREFIX + " burstThenSpread(0.2) (default)";

  private HeadwayVariants() {}

  /** Returns one client per pacing strategy (the pacer's default first), then the declared one. */
  static List<ClientKind> all() {
    return List.of(
        new HeadwayClient(DEFAULT,
            b -> b.strategy(PacingStrategy.burstThenSpread(0.2))),
        new HeadwayClient(PREFIX + " spread", b -> b.strategy(PacingStrategy.spread())),
        new HeadwayClient(PREFIX + " useAllThenWait",
            b -> b.strategy(PacingStrategy.useAllThenWait())),
        new HeadwayClient(PREFIX + " default + declared rate",
            (sim, b) -> b.declare(ClientPolicy.tokenBucket("documented",
                sim.scenario().quota(), sim.scenario().window()))));
  }
}
