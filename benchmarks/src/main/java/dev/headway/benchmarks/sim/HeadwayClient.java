package dev.headway.benchmarks.sim;

import dev.headway.Pacer;
import dev.headway.Permit;
import dev.headway.RateLimitSignal;
import dev.headway.RateLimitedException;
import dev.headway.RequestInfo;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import java.util.function.BiFunction;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * Headway: each client instance has its own real {@link Pacer}, driven by the simulation's
 * clock (ticker, wall clock and scheduler). A caller asks {@code acquireAsync} for a permit,
 * sends, hands the response to {@code Permit.complete} (so the real parser reads the real
 * headers), and on a 429 waits what {@code retryDelay} advises, up to the pacer's attempt budget.
 * A call refused locally ({@code RateLimitedException}, the wait exceeding {@code maxWait}) is
 * counted as failed and the caller starts its next call at the exception's {@code retryAt}.
 */
public final class HeadwayClient implements ClientKind {
  private static final long MILLI = 1_000_000L;

  private final String name;
  private final BiFunction<Simulation, Pacer.Builder, Pacer.Builder> configuration;

  /**
   * Creates the client.
   *
   * @param name the name shown in tables
   * @param configuration applied to each instance's builder after the clock is set (the pacing
   *     strategy, for instance)
   */
  public HeadwayClient(String name, UnaryOperator<Pacer.Builder> configuration) {
    this(name, (sim, builder) -> configuration.apply(builder));
  }

  /**
   * Creates a client whose configuration depends on the run: the scenario (a policy declared at
   * its documented rate), or state the instances share through {@link Simulation#shared} (the
   * hook for a client variant whose instances share quota state through a store: its
   * virtual-time store would live there, one per run, and be handed to each instance's builder).
   *
   * @param name the name shown in tables
   * @param configuration applied to each instance's builder after the clock is set
   */
  public HeadwayClient(String name,
      BiFunction<Simulation, Pacer.Builder, Pacer.Builder> configuration) {
    this.name = name;
    this.configuration = configuration;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public void start(Simulation sim, int instance) {
    SimClock clock = sim.clock();
    Pacer.Builder builder = Pacer.builder();
    if (sim.scenario().scoped() != null) {
      builder.cost(sim.scenario().scoped().cost());
      // As a user of a per-model API would: the model selects the policies' scope.
      builder.scopeAttribute(request -> request.headers().firstValue(SimRequest.MODEL_HEADER)
          .orElse(null));
    }
    Pacer pacer = configuration.apply(sim, builder
        .ticker(clock)
        .wallClock(clock)
        .scheduler(clock)
        .maxAttempts(4)
        .jitterSeed(sim.scenario().seed() * 31 + instance)
        .listener(event -> {
          if (sim.tracing()) {
            sim.trace(tag(instance) + "event " + event);
          }
        }))
        .build();
    for (int c = 0; c < sim.scenario().callers(); c++) {
      Supplier<SimRequest> calls = sim.workload(instance, c);
      sim.guard(() -> newCall(sim, pacer, calls, instance));
    }
  }

  /** The trace's mark of an instance's lines, when the run has several. */
  private static String tag(int instance) {
    return "i" + instance + " ";
  }

  private void newCall(Simulation sim, Pacer pacer, Supplier<SimRequest> calls, int instance) {
    SimRequest request = calls.get();
    attempt(sim, pacer, calls, request, request.toRequestInfo(), sim.clock().nanos(), 1,
        instance);
  }

  private void attempt(Simulation sim, Pacer pacer, Supplier<SimRequest> calls,
      SimRequest request, RequestInfo info, long issued, int attempt, int instance) {
    if (sim.tracing()) {
      sim.trace(tag(instance) + "acquire attempt " + attempt + " " + info.method() + " "
          + info.uri() + " " + pacer.quota(info.uri()));
    }
    pacer.acquireAsync(info).whenComplete((permit, error) -> sim.guard(() -> {
      if (sim.tracing()) {
        sim.trace(tag(instance) + (error == null ? "granted" : "refused " + error));
      }
      if (error != null) {
        refused(sim, pacer, calls, error, instance);
        return;
      }
      send(sim, pacer, calls, permit, request, info, issued, attempt, instance);
    }));
  }

  private void send(Simulation sim, Pacer pacer, Supplier<SimRequest> calls, Permit permit,
      SimRequest request, RequestInfo info, long issued, int attempt, int instance) {
    sim.send(request, response -> {
      if (sim.tracing()) {
        sim.trace(tag(instance) + "response " + response.status());
      }
      RateLimitSignal signal = permit.complete(response.status(), response.headers(), null);
      if (response.status() == 200) {
        sim.callSucceeded(issued, response.sentNanos());
        newCall(sim, pacer, calls, instance);
        return;
      }
      Optional<Duration> delay = pacer.retryDelay(info, signal, attempt);
      if (delay.isPresent()) {
        sim.after(delay.get().toNanos(),
            () -> attempt(sim, pacer, calls, request, info, issued, attempt + 1, instance));
      } else {
        sim.callFailed();
        newCall(sim, pacer, calls, instance);
      }
    });
  }

  private void refused(Simulation sim, Pacer pacer, Supplier<SimRequest> calls,
      Throwable error, int instance) {
    Throwable cause = error instanceof CompletionException && error.getCause() != null
        ? error.getCause() : error;
    if (!(cause instanceof RateLimitedException refusal)) {
      sim.fail(cause);
      return;
    }
    sim.callRefused();
    long wait = Duration.between(sim.clock().instant(), refusal.retryAt()).toNanos();
    // At least a millisecond: a pacer that keeps refusing "until now" must not stall the run.
    sim.after(Math.max(MILLI, wait), () -> newCall(sim, pacer, calls, instance));
  }
}
