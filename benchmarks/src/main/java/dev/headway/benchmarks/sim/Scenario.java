package dev.headway.benchmarks.sim;

import java.time.Duration;

/**
 * One simulated situation: a server (algorithm, header style, quota) and the load on one
 * server-side key ({@code instances} independent clients of {@code callers} each).
 *
 * @param model the server's algorithm
 * @param style how the server tells its quota
 * @param instances independent client instances sharing the key (each its own Pacer)
 * @param callers concurrent callers per instance; each sends its next call as soon as the
 *     previous one ends (closed loop, no think time: demand always exceeds the quota)
 * @param quota requests per window
 * @param window the window
 * @param duration how long the simulation runs (virtual time)
 * @param rtt the network round trip (each way takes half, plus up to 10% jitter)
 * @param phase how far into a server window the clients start
 * @param seed seeds every random choice of the run
 */
public record Scenario(ModelKind model, HeaderStyle style, int instances, int callers,
    long quota, Duration window, Duration duration, Duration rtt, Duration phase, long seed) {

  /** Validates the components. */
  public Scenario {
    if (instances < 1 || callers < 1 || quota < 1) {
      throw new IllegalArgumentException("instances, callers and quota must be positive but were "
          + instances + ", " + callers + ", " + quota);
    }
  }

  /** The default quota (100 requests per minute), RTT (50 ms), duration and start phase. */
  public static Scenario of(ModelKind model, HeaderStyle style, int instances, int callers) {
    return new Scenario(model, style, instances, callers, 100, Duration.ofSeconds(60),
        Duration.ofSeconds(600), Duration.ofMillis(50), Duration.ofMillis(23_700), 42);
  }

  /** Returns a copy running for {@code duration}. */
  public Scenario withDuration(Duration duration) {
    return new Scenario(model, style, instances, callers, quota, window, duration, rtt, phase,
        seed);
  }

  /** Returns a copy with this quota and window. */
  public Scenario withQuota(long quota, Duration window) {
    return new Scenario(model, style, instances, callers, quota, window, duration, rtt, phase,
        seed);
  }

  /** Returns a copy with this round trip. */
  public Scenario withRtt(Duration rtt) {
    return new Scenario(model, style, instances, callers, quota, window, duration, rtt, phase,
        seed);
  }

  /** Returns whether one client instance alone uses the key. */
  public boolean singleInstance() {
    return instances == 1;
  }

  /** Returns a short label: "fixed window / structured RateLimit / 1x8". */
  public String label() {
    return model.label() + " / " + style.label() + " / " + loadLabel();
  }

  /** Returns the load as "8 callers" or "5 instances x 4". */
  public String loadLabel() {
    return instances == 1 ? callers + (callers == 1 ? " caller" : " callers")
        : instances + " instances x " + callers;
  }
}
