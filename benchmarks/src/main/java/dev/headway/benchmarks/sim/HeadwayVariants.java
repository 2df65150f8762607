package dev.headway.benchmarks.sim;

import dev.headway.ClientPolicy;
import dev.headway.Pacer;
import dev.headway.PacingStrategy;
import dev.headway.store.InMemoryQuotaStore;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

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
                sim.scenario().quota(), sim.scenario().window()))),
        new HeadwayClient(SHARED, HeadwayVariants::sharedStore));
  }

  /** The name of the default configuration whose instances share a store. */
  static final String SHARED = DEFAULT + " + shared store (1 ms)";

  /**
   * The default configuration, its instances sharing one virtual-time {@link
   * InMemoryQuotaStore} per run, each call to it taking a 1 ms round trip.
   */
  static Pacer.Builder sharedStore(Simulation sim, Pacer.Builder builder) {
    InMemoryQuotaStore store = sim.shared(InMemoryQuotaStore.class,
        () -> InMemoryQuotaStore.builder().clock(sim.clock())
            .roundTrip(Duration.ofMillis(1), sim.clock()).build());
    AtomicInteger instances = sim.shared(AtomicInteger.class, AtomicInteger::new);
    return builder.strategy(PacingStrategy.burstThenSpread(0.2))
        .store(store.instance("instance-" + instances.incrementAndGet()));
  }
}
