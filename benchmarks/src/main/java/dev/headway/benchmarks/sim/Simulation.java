package dev.headway.benchmarks.sim;

import java.io.PrintStream;
import java.time.Instant;
import java.util.Arrays;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Runs one {@link Scenario} for one {@link ClientKind}: a server model on one key, a network
 * with latency, and closed-loop callers, all on one {@link SimClock}. Deterministic for a given
 * scenario (its seed) and client.
 *
 * <p>Not thread-safe; each run has its own instance.
 */
public final class Simulation {
  /** Wall time at the start of a server window; runs start {@link Scenario#phase()} later. */
  static final Instant ALIGNED_EPOCH = Instant.parse("2025-01-01T00:00:00Z");

  private static final long SECOND = 1_000_000_000L;

  private final Scenario scenario;
  private final SimClock clock;
  private final ServerModel model;
  private final SplittableRandom random;
  private final long originNanos;
  private final long durationNanos;
  private final long oneWayNanos;

  private long admitted;
  private long throttled;
  private long callsFailed;
  private long[] delays = new long[1024];
  private int delayCount;
  private final long[] afterBoundary;
  private RuntimeException failure;
  private @Nullable PrintStream trace;

  private Simulation(Scenario scenario) {
    this.scenario = scenario;
    this.clock = new SimClock(ALIGNED_EPOCH.plus(scenario.phase()));
    this.originNanos = -scenario.phase().toNanos();
    this.model = scenario.model().create(scenario.quota(), scenario.window().toNanos(),
        originNanos);
    this.random = new SplittableRandom(scenario.seed());
    this.durationNanos = scenario.duration().toNanos();
    this.oneWayNanos = scenario.rtt().toNanos() / 2;
    this.afterBoundary = new long[(int) (durationNanos / scenario.window().toNanos()) + 2];
  }

  /** Runs {@code scenario} with {@code client} and returns what it achieved. */
  public static Result run(Scenario scenario, ClientKind client) {
    return run(scenario, client, null);
  }

  /** As {@link #run(Scenario, ClientKind)}, printing every request to {@code trace} if given. */
  public static Result run(Scenario scenario, ClientKind client,
      @Nullable PrintStream trace) {
    Simulation sim = new Simulation(scenario);
    sim.trace = trace;
    for (int i = 0; i < scenario.instances(); i++) {
      client.start(sim, i);
    }
    sim.clock.runUntil(sim.durationNanos);
    if (sim.failure != null) {
      throw new IllegalStateException(
          "client " + client.name() + " failed in " + scenario.label(), sim.failure);
    }
    return sim.result(client.name());
  }

  /** Returns the clock (ticker, wall clock and scheduler) every party uses. */
  public SimClock clock() {
    return clock;
  }

  /** Returns the scenario being run. */
  public Scenario scenario() {
    return scenario;
  }

  /** Returns a random source for clients (seeded by the scenario). */
  public SplittableRandom random() {
    return random;
  }

  /**
   * Sends one request now; {@code onResponse} runs when the response arrives, unless the run
   * ends first.
   */
  public void send(Consumer<Response> onResponse) {
    long sent = clock.nanos();
    clock.after(latency(), () -> {
      long now = clock.nanos();
      Decision decision = model.admit(now);
      recordArrival(now, decision.allowed());
      if (trace != null) {
        trace.printf(Locale.ROOT, "%10.3f %s remaining=%d reset=%.3f retry=%.3f%n",
            now / 1e9, decision.allowed() ? "200" : "429", decision.remaining(),
            decision.resetNanos() / 1e9, decision.retryAfterNanos() / 1e9);
      }
      Response response = new Response(decision.allowed() ? 200 : 429,
          scenario.style().render(decision, model.quota(), model.windowNanos(), clock.instant()),
          sent);
      clock.after(latency(), () -> guard(() -> onResponse.accept(response)));
    });
  }

  /** Returns whether {@link #trace(String)} prints anything. */
  public boolean tracing() {
    return trace != null;
  }

  /** Prints {@code line}, stamped with the virtual time, when tracing. */
  public void trace(String line) {
    if (trace != null) {
      trace.printf(Locale.ROOT, "%10.3f   %s%n", clock.nanos() / 1e9, line);
    }
  }

  /** Runs {@code task} after {@code delayNanos}, failing the run if it throws. */
  public void after(long delayNanos, Runnable task) {
    clock.after(delayNanos, () -> guard(task));
  }

  /** Records a call whose successful request left the client at {@code sentNanos}. */
  public void callSucceeded(long issuedNanos, long sentNanos) {
    if (delayCount == delays.length) {
      delays = Arrays.copyOf(delays, delays.length * 2);
    }
    delays[delayCount++] = Math.max(0, sentNanos - issuedNanos);
  }

  /** Records a call given up. */
  public void callFailed() {
    callsFailed++;
  }

  /** Records an exception thrown by client code; the run fails at its end. */
  public void fail(Throwable t) {
    if (failure == null) {
      failure = t instanceof RuntimeException r ? r : new IllegalStateException(t);
    }
  }

  /** Runs {@code task}, recording anything it throws as the run's failure. */
  public void guard(Runnable task) {
    try {
      task.run();
    } catch (RuntimeException | Error e) {
      fail(e);
    }
  }

  private long latency() {
    return oneWayNanos + (oneWayNanos == 0 ? 0 : random.nextLong(oneWayNanos / 10 + 1));
  }

  private void recordArrival(long nowNanos, boolean allowed) {
    if (allowed) {
      admitted++;
    } else {
      throttled++;
    }
    long window = model.windowNanos();
    long k = Math.floorDiv(nowNanos - originNanos, window);
    long boundary = originNanos + k * window;
    if (boundary >= 0 && nowNanos - boundary < SECOND && k < afterBoundary.length) {
      afterBoundary[(int) k]++;
    }
  }

  private Result result(String client) {
    long[] sorted = Arrays.copyOf(delays, delayCount);
    Arrays.sort(sorted);
    double mean = 0;
    for (long d : sorted) {
      mean += d;
    }
    mean = delayCount == 0 ? 0 : mean / delayCount / 1e6;
    double p99 = delayCount == 0 ? 0
        : sorted[Math.min(delayCount - 1, (int) Math.ceil(0.99 * delayCount) - 1)] / 1e6;
    return new Result(scenario, client, allowed(), admitted, throttled, callsFailed, mean, p99,
        herd(), clock.eventsRun());
  }

  /** What a perfect client gets: each request arrives the first instant the server admits it. */
  private long allowed() {
    return allowed(scenario);
  }

  /**
   * Returns what a perfect client gets in {@code scenario}: each request arrives the first
   * instant the server admits it, over the scenario's duration.
   */
  public static long allowed(Scenario scenario) {
    ServerModel oracle = scenario.model().create(scenario.quota(), scenario.window().toNanos(),
        -scenario.phase().toNanos());
    long durationNanos = scenario.duration().toNanos();
    long count = 0;
    long t = 0;
    while ((t = oracle.nextAdmission(t)) < durationNanos) {
      if (!oracle.admit(t).allowed()) {
        throw new IllegalStateException("model " + scenario.model() + " refused at " + t);
      }
      count++;
    }
    return count;
  }

  private double herd() {
    long window = model.windowNanos();
    long requests = admitted + throttled;
    if (requests == 0) {
      return 0;
    }
    double meanPerSecond = requests / (durationNanos / (double) SECOND);
    double sum = 0;
    int boundaries = 0;
    for (int k = 0; k < afterBoundary.length; k++) {
      long boundary = originNanos + k * window;
      if (boundary >= 0 && boundary + SECOND <= durationNanos) {
        sum += afterBoundary[k];
        boundaries++;
      }
    }
    return boundaries == 0 ? 0 : sum / boundaries / meanPerSecond;
  }
}
