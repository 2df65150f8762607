package dev.headway.benchmarks.sim;

import java.util.function.Supplier;

/**
 * The yardstick, not a real client: it knows the server's state. Each caller's request arrives
 * at the first instant the server would admit it (never a 429), callers served in the order they
 * asked. It travels the same network as every client, jitter included: where the quota never
 * binds, a client that adds no delay of its own gets exactly what it gets. Its admissions are what the scenario's callers could get at best, and
 * its longest wait is the wait the quota itself imposes.
 */
final class PerfectClient implements ClientKind {
  @Override
  public String name() {
    return "perfect (knows the server's state)";
  }

  @Override
  public void start(Simulation sim, int instance) {
    for (int c = 0; c < sim.scenario().callers(); c++) {
      Supplier<SimRequest> calls = sim.workload(instance, c);
      newCall(sim, calls);
    }
  }

  private void newCall(Simulation sim, Supplier<SimRequest> calls) {
    long issued = sim.clock().nanos();
    SimRequest request = calls.get();
    long leg = sim.latency();
    sim.after(leg, () -> tryArrive(sim, calls, request, issued, leg));
  }

  private void tryArrive(Simulation sim, Supplier<SimRequest> calls, SimRequest request,
      long issued, long leg) {
    long now = sim.clock().nanos();
    long next = sim.server().nextAdmission(request, now);
    if (next > now) {
      sim.after(next - now, () -> tryArrive(sim, calls, request, issued, leg));
      return;
    }
    Response response = sim.arrive(request, now - leg);
    if (response.status() != 200) {
      throw new IllegalStateException("server refused at " + now + " what it said it would admit: "
          + request);
    }
    sim.after(sim.latency(), () -> {
      sim.callSucceeded(issued, response.sentNanos());
      newCall(sim, calls);
    });
  }
}
