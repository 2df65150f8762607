package dev.headway.benchmarks.sim;

/**
 * No throttling at all: every call is sent at once and a 429 is retried at once, up to
 * {@code retries} times; then the call is given up.
 */
public final class NoThrottleClient extends RetryingClient {
  /** Creates the client; {@code retries} immediate retries after a 429. */
  public NoThrottleClient(int retries) {
    super(retries);
  }

  @Override
  public String name() {
    return "no throttling";
  }

  @Override
  long retryDelayNanos(Simulation sim, Response response, int attempt) {
    return 0;
  }
}
