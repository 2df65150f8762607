package dev.headway.benchmarks.sim;

/**
 * No throttling at all: every call is sent at once and a 429 is retried at once, up to
 * {@code retries} times; then the call is given up.
 */
public final class NoThrottleClient implements ClientKind {
  private final int retries;

  /** Creates the client; {@code retries} immediate retries after a 429. */
  public NoThrottleClient(int retries) {
    this.retries = retries;
  }

  @Override
  public String name() {
    return "no throttling";
  }

  @Override
  public void start(Simulation sim, int instance) {
    for (int c = 0; c < sim.scenario().callers(); c++) {
      newCall(sim);
    }
  }

  private void newCall(Simulation sim) {
    attempt(sim, sim.clock().nanos(), 1);
  }

  private void attempt(Simulation sim, long issued, int attempt) {
    sim.send(response -> {
      if (response.status() == 200) {
        sim.callSucceeded(issued, response.sentNanos());
        newCall(sim);
      } else if (attempt <= retries) {
        attempt(sim, issued, attempt + 1);
      } else {
        sim.callFailed();
        newCall(sim);
      }
    });
  }
}
