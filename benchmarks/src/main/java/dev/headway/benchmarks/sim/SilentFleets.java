package dev.headway.benchmarks.sim;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Runs silent servers of a random set as fleets, with and without the shared store: {@code
 * SilentFleets --seed S [--first K] [--sizes 10,50] [--callers 4] [--only store|plain]
 * [--trace N]}. Takes
 * the first {@code K} (default 4) scenarios of each silent header style ({@code Retry-After}
 * only, none) of {@code RandomScenarios.draw(300, S)}, runs each as a fleet of every size in
 * {@code --sizes} (instances of {@code --callers} callers each) with the default client and with
 * the default client and a shared store 1 ms away, and prints one line per cell, {@code |}
 * separated: model, style, quota and round trip, instances, then 429 % and goodput % of each
 * client run. With {@code --trace N} only the N-th cell (from 0, in that order) runs, every
 * request of it printed.
 */
public final class SilentFleets {
  private SilentFleets() {}

  /** Runs the cells; see the class comment for arguments. */
  public static void main(String[] args) {
    Long seed = null;
    int first = 4;
    int callers = 4;
    int[] sizes = {10, 50};
    String only = "";
    int trace = -1;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--seed" -> seed = Long.parseLong(args[++i]);
        case "--first" -> first = Integer.parseInt(args[++i]);
        case "--callers" -> callers = Integer.parseInt(args[++i]);
        case "--sizes" -> sizes = Arrays.stream(args[++i].split(","))
            .mapToInt(Integer::parseInt).toArray();
        case "--only" -> only = args[++i];
        case "--trace" -> trace = Integer.parseInt(args[++i]);
        default -> throw new IllegalArgumentException(usage());
      }
    }
    if (seed == null) {
      throw new IllegalArgumentException(usage());
    }
    List<ClientKind> clients = new ArrayList<>();
    for (ClientKind c : SimulatorMain.clients()) {
      boolean plain = c.name().equals(HeadwayVariants.DEFAULT);
      boolean store = c.name().equals(HeadwayVariants.SHARED);
      if ((plain && !only.equals("store")) || (store && !only.equals("plain"))) {
        clients.add(c);
      }
    }
    List<Scenario> all = RandomScenarios.draw(300, seed);
    int cell = 0;
    System.out.println("model|style|quota, rtt|instances|"
        + String.join("|", clients.stream().map(c -> c.name().equals(HeadwayVariants.SHARED)
            ? "store 429 %|store goodput %" : "plain 429 %|plain goodput %").toList()));
    for (HeaderStyle style : new HeaderStyle[] {HeaderStyle.RETRY_AFTER, HeaderStyle.NONE}) {
      List<Scenario> picked = all.stream().filter(s -> s.style() == style).limit(first).toList();
      for (Scenario s : picked) {
        for (int n : sizes) {
          Scenario fleet = s.withLoad(n, callers);
          if (trace >= 0 && cell++ != trace) {
            continue;
          }
          Reference reference = Reference.of(fleet);
          StringBuilder line = new StringBuilder(String.format(Locale.ROOT,
              "%s|%s|%d per %d s, %d ms|%d", s.model(), style, s.quota(),
              s.window().toSeconds(), s.rtt().toMillis(), n));
          for (ClientKind c : clients) {
            Result r = Simulation.run(fleet, c, trace >= 0 ? System.out : null, reference);
            line.append(String.format(Locale.ROOT, "|%.2f|%.1f", r.throttledPct(),
                r.goodputPct()));
          }
          System.out.println(line);
        }
      }
    }
  }

  private static String usage() {
    return "usage: SilentFleets --seed S [--first K] [--sizes 10,50] [--callers 4]"
        + " [--only store|plain] [--trace N]";
  }
}
