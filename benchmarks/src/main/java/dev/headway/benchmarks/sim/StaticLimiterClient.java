package dev.headway.benchmarks.sim;

import io.github.bucket4j.Bucket;
import io.github.bucket4j.TimeMeter;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * A static limiter at the documented rate, as a user would configure Bucket4j for "100 requests
 * per minute" (capacity 100, greedy refill of 100 per minute), running in virtual time through
 * Bucket4j's own {@link TimeMeter} seam. Each attempt, retries included, takes a token first:
 * {@code consumeIgnoringRateLimits} reserves one and says how long to wait for it. A 429 is
 * retried (through the limiter) up to {@code retries} times. Each client instance has its own
 * bucket: it knows nothing of the others.
 */
public final class StaticLimiterClient implements ClientKind {
  private final int retries;

  /** Creates the client; {@code retries} retries after a 429. */
  public StaticLimiterClient(int retries) {
    this.retries = retries;
  }

  @Override
  public String name() {
    return "static limiter (Bucket4j)";
  }

  @Override
  public void start(Simulation sim, int instance) {
    SimClock clock = sim.clock();
    TimeMeter virtualTime = new TimeMeter() {
      @Override
      public long currentTimeNanos() {
        return clock.nanos();
      }

      @Override
      public boolean isWallClockBased() {
        return false;
      }
    };
    long quota = sim.scenario().quota();
    Duration window = sim.scenario().window();
    Bucket bucket = Bucket.builder()
        .addLimit(limit -> limit.capacity(quota).refillGreedy(quota, window))
        .withCustomTimePrecision(virtualTime)
        .build();
    for (int c = 0; c < sim.scenario().callers(); c++) {
      newCall(sim, bucket, sim.workload(instance, c));
    }
  }

  private void newCall(Simulation sim, Bucket bucket, Supplier<SimRequest> calls) {
    attempt(sim, bucket, calls, calls.get(), sim.clock().nanos(), 1);
  }

  private void attempt(Simulation sim, Bucket bucket, Supplier<SimRequest> calls,
      SimRequest request, long issued, int attempt) {
    long wait = bucket.consumeIgnoringRateLimits(1);
    sim.after(wait, () -> sim.send(request, response -> {
      if (response.status() == 200) {
        sim.callSucceeded(issued, response.sentNanos());
        newCall(sim, bucket, calls);
      } else if (attempt <= retries) {
        attempt(sim, bucket, calls, request, issued, attempt + 1);
      } else {
        sim.callFailed();
        newCall(sim, bucket, calls);
      }
    }));
  }
}
