package dev.headway.benchmarks.sim;

import dev.headway.ClientPolicy;
import dev.headway.PacingStrategy;
import java.time.Duration;
import java.util.List;

/**
 * The Headway configurations the simulator compares: one per pacing strategy, and the default
 * strategy plus a declared client policy at the documented rate (what a user who read the API's
 * documentation would add; the same rate the static limiter is given).
 */
final class HeadwayVariants {
  /** Every Headway client's name starts with this. */
  static final String PREFIX = "Headway";

  private HeadwayVariants() {}

  /** Returns one client per pacing strategy (the pacer's default first), then the declared one. */
  static List<ClientKind> all() {
    return List.of(
        new HeadwayClient(PREFIX + " burstThenSpread(0.2) (default)",
            b -> b.strategy(PacingStrategy.burstThenSpread(0.2))),
        new HeadwayClient(PREFIX + " spread", b -> b.strategy(PacingStrategy.spread())),
        new HeadwayClient(PREFIX + " useAllThenWait",
            b -> b.strategy(PacingStrategy.useAllThenWait())),
        new HeadwayClient(PREFIX + " default + declared 100/min",
            b -> b.declare(ClientPolicy.tokenBucket("documented", 100, Duration.ofMinutes(1)))));
  }
}
