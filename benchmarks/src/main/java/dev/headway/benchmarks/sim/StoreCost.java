package dev.headway.benchmarks.sim;

import dev.headway.PacingStrategy;
import dev.headway.store.InMemoryQuotaStore;
import dev.headway.store.Lease;
import dev.headway.store.QuotaKey;
import dev.headway.store.QuotaStore;
import dev.headway.store.RefillRate;
import dev.headway.store.ServerCount;
import dev.headway.store.SharedQuota;
import dev.headway.testing.store.ForwardingQuotaStore;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts the shared store's round trips when the quota binds: {@code StoreCost [--sizes 1,50]
 * [--callers 4] [--styles STRUCTURED,RETRY_AFTER,NONE] [--models ...] [--duration 600]
 * [--grid-seed S] [--trace N]}. Runs the fixed grid's servers (100 per 60 s, 50 ms away; with
 * {@code --grid-seed} each cell's round trip, phase and run seed drawn as {@code SimulatorMain}
 * draws them) as fleets of every size, with the default client and a store 1 ms away (the
 * simulator's shared-store client), and prints one line per cell, {@code |} separated: model,
 * style, instances, admitted, 429 %, goodput %, the store calls per admitted request, then the
 * same per call kind ({@code lease}, {@code observe}, {@code spent}, {@code release}, {@code
 * hold}, {@code lift}, {@code learnRate}, {@code read}). Every cell's demand exceeds its quota
 * (callers send their next call as soon as the last one ends), so this is the binding case.
 */
public final class StoreCost {
  private StoreCost() {}

  /** The call kinds counted, in the order printed. */
  static final String[] KINDS = {"lease", "observe", "spent", "release", "hold", "lift",
      "learnRate", "read"};

  /** Runs the cells; see the class comment for arguments. */
  public static void main(String[] args) {
    int[] sizes = {1, 50};
    int callers = 4;
    HeaderStyle[] styles = {HeaderStyle.STRUCTURED, HeaderStyle.RETRY_AFTER, HeaderStyle.NONE};
    ModelKind[] models = ModelKind.values();
    Duration duration = Duration.ofSeconds(600);
    Long gridSeed = null;
    int trace = -1;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--sizes" -> sizes = Arrays.stream(args[++i].split(","))
            .mapToInt(Integer::parseInt).toArray();
        case "--callers" -> callers = Integer.parseInt(args[++i]);
        case "--styles" -> styles = Arrays.stream(args[++i].split(","))
            .map(HeaderStyle::valueOf).toArray(HeaderStyle[]::new);
        case "--models" -> models = Arrays.stream(args[++i].split(","))
            .map(ModelKind::valueOf).toArray(ModelKind[]::new);
        case "--duration" -> duration = Duration.ofSeconds(Long.parseLong(args[++i]));
        case "--grid-seed" -> gridSeed = Long.parseLong(args[++i]);
        case "--trace" -> trace = Integer.parseInt(args[++i]);
        default -> throw new IllegalArgumentException(usage());
      }
    }
    System.out.println("model|style|instances|admitted|429 %|goodput %|store calls per admitted|"
        + String.join("|", KINDS));
    int cell = 0;
    long[] total = new long[KINDS.length];
    long totalAdmitted = 0;
    for (HeaderStyle style : styles) {
      for (ModelKind model : models) {
        for (int n : sizes) {
          if (trace >= 0 && cell++ != trace) {
            continue;
          }
          Scenario scenario = Scenario.of(model, style, n, callers).withDuration(duration);
          if (gridSeed != null) {
            scenario = FleetGrid.draw(scenario, gridSeed);
          }
          Counts counts = new Counts();
          HeadwayClient client = new HeadwayClient(HeadwayVariants.SHARED,
              (sim, builder) -> {
                InMemoryQuotaStore store = sim.shared(InMemoryQuotaStore.class,
                    () -> InMemoryQuotaStore.builder().clock(sim.clock())
                        .roundTrip(Duration.ofMillis(1), sim.clock()).build());
                AtomicInteger instances = sim.shared(AtomicInteger.class, AtomicInteger::new);
                return builder.strategy(PacingStrategy.burstThenSpread(0.2))
                    .store(counts.wrap(sim, store.instance("instance-"
                        + instances.incrementAndGet())));
              });
          Result r = Simulation.run(scenario, client, trace >= 0 ? System.out : null,
              Reference.of(scenario));
          long sum = Arrays.stream(counts.calls).sum();
          StringBuilder line = new StringBuilder(String.format(Locale.ROOT,
              "%s|%s|%d|%d|%.2f|%.1f|%.3f", model, style, n, r.admitted(), r.throttledPct(),
              r.goodputPct(), perAdmitted(sum, r.admitted())));
          for (int k = 0; k < KINDS.length; k++) {
            line.append(String.format(Locale.ROOT, "|%.3f",
                perAdmitted(counts.calls[k], r.admitted())));
            total[k] += counts.calls[k];
          }
          totalAdmitted += r.admitted();
          System.out.println(line);
        }
      }
    }
    StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "all|||%d|||%.3f",
        totalAdmitted, perAdmitted(Arrays.stream(total).sum(), totalAdmitted)));
    for (long t : total) {
      line.append(String.format(Locale.ROOT, "|%.3f", perAdmitted(t, totalAdmitted)));
    }
    System.out.println(line);
  }

  private static double perAdmitted(long calls, long admitted) {
    return admitted == 0 ? 0 : (double) calls / admitted;
  }

  private static String usage() {
    return "usage: StoreCost [--sizes 1,50] [--callers 4] [--styles STRUCTURED,RETRY_AFTER,NONE]"
        + " [--models FIXED_WINDOW,...] [--duration SECONDS] [--grid-seed S] [--trace N]";
  }

  /** The calls of one run's stores, by kind (the simulation runs on one thread). */
  private static final class Counts {
    final long[] calls = new long[KINDS.length];

    QuotaStore wrap(Simulation sim, QuotaStore store) {
      return new ForwardingQuotaStore(store) {
        @Override
        public CompletionStage<SharedQuota> observe(QuotaKey key, ServerCount count) {
          calls[1]++;
          return super.observe(key, count);
        }

        @Override
        public CompletionStage<SharedQuota> observe(QuotaKey key, ServerCount count,
            Lease lease, long units, Instant sentAt) {
          calls[1]++;
          return super.observe(key, count, lease, units, sentAt);
        }

        @Override
        public CompletionStage<Lease> lease(QuotaKey key, long minUnits, long maxUnits) {
          calls[0]++;
          CompletionStage<Lease> answer = super.lease(key, minUnits, maxUnits);
          if (sim.tracing()) {
            String name = store.toString();
            answer.thenAccept(l -> sim.trace("store " + name + " lease(" + key.policy() + ", "
                + minUnits + ", " + maxUnits + ") -> " + l.granted() + " " + l.state()));
          }
          return answer;
        }

        @Override
        public CompletionStage<SharedQuota> spent(Lease lease, long units, Instant lastSentAt) {
          calls[2]++;
          return super.spent(lease, units, lastSentAt);
        }

        @Override
        public CompletionStage<SharedQuota> release(Lease lease, long unusedUnits) {
          calls[3]++;
          return super.release(lease, unusedUnits);
        }

        @Override
        public CompletionStage<SharedQuota> hold(QuotaKey key, Instant until) {
          calls[4]++;
          return super.hold(key, until);
        }

        @Override
        public CompletionStage<SharedQuota> lift(QuotaKey key, Instant until) {
          calls[5]++;
          return super.lift(key, until);
        }

        @Override
        public CompletionStage<SharedQuota> learnRate(QuotaKey key, RefillRate rate) {
          calls[6]++;
          return super.learnRate(key, rate);
        }

        @Override
        public CompletionStage<SharedQuota> read(QuotaKey key) {
          calls[7]++;
          return super.read(key);
        }
      };
    }
  }
}
