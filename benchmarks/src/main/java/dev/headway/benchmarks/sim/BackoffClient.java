package dev.headway.benchmarks.sim;

import java.util.Optional;

/**
 * What a careful hand-written client does: send at once; after a 429 wait {@code Retry-After}
 * when the response has one, else an exponential backoff (1 s, 2 s, 4 s ... capped at 32 s, each
 * with "equal jitter": half fixed, half random), up to {@code retries} retries.
 */
public final class BackoffClient extends RetryingClient {
  private static final long SECOND = 1_000_000_000L;

  /** Creates the client; {@code retries} retries after a 429. */
  public BackoffClient(int retries) {
    super(retries);
  }

  @Override
  public String name() {
    return "Retry-After + backoff";
  }

  @Override
  long retryDelayNanos(Simulation sim, Response response, int attempt) {
    return retryAfterSeconds(response).map(s -> s * SECOND).orElseGet(() -> {
      long backoff = Math.min(32, 1L << (attempt - 1)) * SECOND;
      return backoff / 2 + sim.random().nextLong(backoff / 2 + 1);
    });
  }

  private static Optional<Long> retryAfterSeconds(Response response) {
    return response.headers().firstValue("Retry-After").map(v -> {
      try {
        return Long.parseLong(v.trim());
      } catch (NumberFormatException e) {
        return null; // the simulated servers send delay-seconds only
      }
    });
  }
}
