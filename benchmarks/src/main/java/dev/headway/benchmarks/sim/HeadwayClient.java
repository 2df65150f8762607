package dev.headway.benchmarks.sim;

import dev.headway.Pacer;
import dev.headway.Permit;
import dev.headway.RateLimitSignal;
import dev.headway.RateLimitedException;
import dev.headway.RequestInfo;
import java.net.URI;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionException;
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
  /** Every simulated request goes to this URI: one partition. */
  static final RequestInfo REQUEST =
      RequestInfo.get(URI.create("https://api.example.com/v1/items"));

  private static final long MILLI = 1_000_000L;

  private final String name;
  private final UnaryOperator<Pacer.Builder> configuration;

  /**
   * Creates the client.
   *
   * @param name the name shown in tables
   * @param configuration applied to each instance's builder after the clock is set (the pacing
   *     strategy, for instance)
   */
  public HeadwayClient(String name, UnaryOperator<Pacer.Builder> configuration) {
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
    Pacer pacer = configuration.apply(Pacer.builder()
        .ticker(clock)
        .wallClock(clock)
        .scheduler(clock)
        .maxAttempts(4)
        .jitterSeed(sim.scenario().seed() * 31 + instance)
        .listener(event -> {
          if (sim.tracing()) {
            sim.trace("event " + event);
          }
        }))
        .build();
    for (int c = 0; c < sim.scenario().callers(); c++) {
      sim.guard(() -> newCall(sim, pacer));
    }
  }

  private void newCall(Simulation sim, Pacer pacer) {
    attempt(sim, pacer, sim.clock().nanos(), 1);
  }

  private void attempt(Simulation sim, Pacer pacer, long issued, int attempt) {
    if (sim.tracing()) {
      sim.trace("acquire attempt " + attempt + " " + pacer.quota(REQUEST.uri()));
    }
    pacer.acquireAsync(REQUEST).whenComplete((permit, error) -> sim.guard(() -> {
      if (sim.tracing()) {
        sim.trace(error == null ? "granted" : "refused " + error);
      }
      if (error != null) {
        refused(sim, pacer, error);
        return;
      }
      send(sim, pacer, permit, issued, attempt);
    }));
  }

  private void send(Simulation sim, Pacer pacer, Permit permit, long issued, int attempt) {
    sim.send(response -> {
      RateLimitSignal signal = permit.complete(response.status(), response.headers(), null);
      if (response.status() == 200) {
        sim.callSucceeded(issued, response.sentNanos());
        newCall(sim, pacer);
        return;
      }
      Optional<Duration> delay = pacer.retryDelay(REQUEST, signal, attempt);
      if (delay.isPresent()) {
        sim.after(delay.get().toNanos(), () -> attempt(sim, pacer, issued, attempt + 1));
      } else {
        sim.callFailed();
        newCall(sim, pacer);
      }
    });
  }

  private void refused(Simulation sim, Pacer pacer, Throwable error) {
    Throwable cause = error instanceof CompletionException && error.getCause() != null
        ? error.getCause() : error;
    if (!(cause instanceof RateLimitedException refusal)) {
      sim.fail(cause);
      return;
    }
    sim.callFailed();
    long wait = Duration.between(sim.clock().instant(), refusal.retryAt()).toNanos();
    // At least a millisecond: a pacer that keeps refusing "until now" must not stall the run.
    sim.after(Math.max(MILLI, wait), () -> newCall(sim, pacer));
  }
}
