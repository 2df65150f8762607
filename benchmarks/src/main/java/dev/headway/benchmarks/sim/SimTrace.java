package dev.headway.benchmarks.sim;

/**
 * Prints every request of one simulated scenario (a debugging aid): {@code SimTrace MODEL STYLE
 * INSTANCES CALLERS CLIENT-SUBSTRING [SECONDS]}.
 */
public final class SimTrace {
  private SimTrace() {}

  /** Runs one scenario with tracing; see the class comment for arguments. */
  public static void main(String[] args) {
    Scenario scenario = Scenario.of(ModelKind.valueOf(args[0]), HeaderStyle.valueOf(args[1]),
        Integer.parseInt(args[2]), Integer.parseInt(args[3]));
    if (args.length > 5) {
      scenario = scenario.withDuration(java.time.Duration.ofSeconds(Long.parseLong(args[5])));
    }
    ClientKind client = SimulatorMain.clients().stream()
        .filter(c -> c.name().contains(args[4])).findFirst().orElseThrow();
    Result r = Simulation.run(scenario, client, System.out);
    System.out.println(r);
  }
}
