package dev.headway.benchmarks.sim;

import java.time.Duration;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

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
 * @param scoped a server with several quotas (then {@code model} and {@code style} are unused,
 *     and {@code quota} / {@code window} are its headline quota), or null for one quota
 */
public record Scenario(ModelKind model, HeaderStyle style, int instances, int callers,
    long quota, Duration window, Duration duration, Duration rtt, Duration phase, long seed,
    @Nullable ScopedKind scoped) {

  private static final Duration DEFAULT_WINDOW = Duration.ofSeconds(60);
  private static final Duration DEFAULT_RTT = Duration.ofMillis(50);
  private static final Duration DEFAULT_PHASE = Duration.ofMillis(23_700);

  /** Validates the components. */
  public Scenario {
    if (instances < 1 || callers < 1 || quota < 1) {
      throw new IllegalArgumentException("instances, callers and quota must be positive but were "
          + instances + ", " + callers + ", " + quota);
    }
  }

  /** A scenario with one quota. */
  public Scenario(ModelKind model, HeaderStyle style, int instances, int callers, long quota,
      Duration window, Duration duration, Duration rtt, Duration phase, long seed) {
    this(model, style, instances, callers, quota, window, duration, rtt, phase, seed, null);
  }

  /** The default quota (100 requests per minute), RTT (50 ms), duration and start phase. */
  public static Scenario of(ModelKind model, HeaderStyle style, int instances, int callers) {
    return new Scenario(model, style, instances, callers, 100, DEFAULT_WINDOW,
        Duration.ofSeconds(600), DEFAULT_RTT, DEFAULT_PHASE, 42);
  }

  /** A server with several quotas, its default callers and duration, 50 ms round trip. */
  public static Scenario of(ScopedKind scoped) {
    return new Scenario(ModelKind.FIXED_WINDOW, HeaderStyle.NONE, 1, scoped.callers(),
        scoped.quota(), scoped.window(), scoped.duration(), DEFAULT_RTT, DEFAULT_PHASE, 42,
        scoped);
  }

  /** Returns a copy running for {@code duration}. */
  public Scenario withDuration(Duration duration) {
    return new Scenario(model, style, instances, callers, quota, window, duration, rtt, phase,
        seed, scoped);
  }

  /** Returns a copy with this quota and window. */
  public Scenario withQuota(long quota, Duration window) {
    return new Scenario(model, style, instances, callers, quota, window, duration, rtt, phase,
        seed, scoped);
  }

  /** Returns a copy with this round trip. */
  public Scenario withRtt(Duration rtt) {
    return new Scenario(model, style, instances, callers, quota, window, duration, rtt, phase,
        seed, scoped);
  }

  /** Returns a copy with this load. */
  public Scenario withLoad(int instances, int callers) {
    return new Scenario(model, style, instances, callers, quota, window, duration, rtt, phase,
        seed, scoped);
  }

  /** Returns whether one client instance alone uses the key. */
  public boolean singleInstance() {
    return instances == 1;
  }

  /** Returns whether the quota, window, round trip and phase are the fixed grid's. */
  public boolean gridShape() {
    return quota == 100 && window.equals(DEFAULT_WINDOW) && rtt.equals(DEFAULT_RTT)
        && phase.equals(DEFAULT_PHASE);
  }

  /**
   * Returns a short label: "fixed window / structured RateLimit / 8 callers", with the quota,
   * round trip and phase appended when they are not the fixed grid's.
   */
  public String label() {
    if (scoped != null) {
      return scoped.label() + " / " + loadLabel();
    }
    String label = model.label() + " / " + style.label() + " / " + loadLabel();
    if (!gridShape()) {
      label += String.format(Locale.ROOT, " / %d per %s, rtt %d ms, phase %.1f s", quota,
          human(window), rtt.toMillis(), phase.toMillis() / 1000.0);
    }
    return label;
  }

  /** Returns the load as "8 callers" or "5 instances x 4". */
  public String loadLabel() {
    return instances == 1 ? callers + (callers == 1 ? " caller" : " callers")
        : instances + " instances x " + callers;
  }

  static String human(Duration d) {
    long s = d.toSeconds();
    if (s % 3600 == 0) {
      return s / 3600 + " h";
    }
    if (s % 60 == 0) {
      return s / 60 + " min";
    }
    return s + " s";
  }
}
