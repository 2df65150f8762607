package dev.headway.benchmarks.sim;

/**
 * Prints every request of one simulated scenario (a debugging aid): {@code SimTrace MODEL STYLE
 * INSTANCES CALLERS CLIENT-SUBSTRING [SECONDS]}, or for a server with several quotas
 * {@code SimTrace GITHUB|DISCORD|LLM CLIENT-SUBSTRING [SECONDS]}. With
 * {@code -Dsim.gridSeed=S} the cell's round trip, phase and run seed are drawn from S, as
 * {@code SimulatorMain --grid-seed S} draws them. With {@code -Dsim.random=S} the arguments are
 * {@code TEXT CLIENT-SUBSTRING [SECONDS]}: the first of {@code SimulatorMain --random 300 --seed S}'s
 * scenarios whose label contains TEXT.
 */
public final class SimTrace {
  private SimTrace() {}

  /** Runs one scenario with tracing; see the class comment for arguments. */
  public static void main(String[] args) {
    String random = System.getProperty("sim.random");
    if (random != null) {
      Scenario drawn = RandomScenarios.draw(300, Long.parseLong(random)).stream()
          .filter(s -> s.label().contains(args[0])).findFirst().orElseThrow();
      if (args.length > 2) {
        drawn = drawn.withDuration(java.time.Duration.ofSeconds(Long.parseLong(args[2])));
      }
      ClientKind kind = SimulatorMain.clients().stream()
          .filter(c -> c.name().contains(args[1])).findFirst().orElseThrow();
      System.out.println(drawn.label());
      System.out.println(Simulation.run(drawn, kind, System.out));
      return;
    }
    boolean scoped = java.util.Arrays.stream(ScopedKind.values())
        .anyMatch(k -> k.name().equals(args[0]));
    Scenario scenario = scoped ? Scenario.of(ScopedKind.valueOf(args[0]))
        : Scenario.of(ModelKind.valueOf(args[0]), HeaderStyle.valueOf(args[1]),
            Integer.parseInt(args[2]), Integer.parseInt(args[3]));
    String gridSeed = System.getProperty("sim.gridSeed");
    if (!scoped && gridSeed != null) {
      scenario = FleetGrid.draw(scenario, Long.parseLong(gridSeed));
    }
    int clientArg = scoped ? 1 : 4;
    if (args.length > clientArg + 1) {
      scenario = scenario.withDuration(
          java.time.Duration.ofSeconds(Long.parseLong(args[clientArg + 1])));
    }
    String clientName = args[clientArg];
    ClientKind client = SimulatorMain.clients().stream()
        .filter(c -> c.name().contains(clientName)).findFirst().orElseThrow();
    Result r = Simulation.run(scenario, client, System.out);
    System.out.println(r);
  }
}
