package dev.headway.benchmarks.sim;

import java.util.function.Supplier;

/**
 * A client with no pacing of its own: every caller sends at once and, after a 429, retries after
 * {@link #retryDelayNanos} up to {@code retries} times, then gives the call up. The baselines
 * differ only in that delay.
 */
abstract class RetryingClient implements ClientKind {
  private final int retries;

  RetryingClient(int retries) {
    this.retries = retries;
  }

  /** Returns how long to wait before retry number {@code attempt} after {@code response}. */
  abstract long retryDelayNanos(Simulation sim, Response response, int attempt);

  @Override
  public final void start(Simulation sim, int instance) {
    for (int c = 0; c < sim.scenario().callers(); c++) {
      newCall(sim, sim.workload(instance, c));
    }
  }

  private void newCall(Simulation sim, Supplier<SimRequest> calls) {
    attempt(sim, calls, calls.get(), sim.clock().nanos(), 1);
  }

  private void attempt(Simulation sim, Supplier<SimRequest> calls, SimRequest request,
      long issued, int attempt) {
    sim.send(request, response -> {
      if (response.status() == 200) {
        sim.callSucceeded(issued, response.sentNanos());
        newCall(sim, calls);
      } else if (attempt <= retries) {
        long delay = retryDelayNanos(sim, response, attempt);
        if (delay == 0) {
          attempt(sim, calls, request, issued, attempt + 1);
        } else {
          sim.after(delay, () -> attempt(sim, calls, request, issued, attempt + 1));
        }
      } else {
        sim.callFailed();
        newCall(sim, calls);
      }
    });
  }
}
