package dev.headway.benchmarks.sim;

/**
 * What one client achieved in one scenario.
 *
 * @param scenario the scenario
 * @param client the compared client's name
 * @param allowed what a perfect client could have had admitted in the same time
 * @param admitted requests the server admitted (200)
 * @param throttled requests the server answered 429
 * @param callsFailed calls given up (retry budget spent, or refused locally past maxWait)
 * @param meanDelayMs mean added delay of successful calls: from the call's start until its
 *     successful request left the client (pacing, backoff and earlier attempts), milliseconds
 * @param p99DelayMs the 99th percentile of the same
 * @param herd arrivals at the server in the second after each window boundary, divided by the
 *     mean arrivals per second over the run (1 = smooth; 60 = a minute's traffic in one second)
 * @param events simulation events run
 */
public record Result(Scenario scenario, String client, long allowed, long admitted,
    long throttled, long callsFailed, double meanDelayMs, double p99DelayMs, double herd,
    long events) {

  /** Returns the requests that reached the server. */
  public long requests() {
    return admitted + throttled;
  }

  /** Returns admitted requests as a percentage of what the server allows. */
  public double goodputPct() {
    return allowed == 0 ? 0 : 100.0 * admitted / allowed;
  }

  /** Returns 429 answers as a percentage of requests sent. */
  public double throttledPct() {
    return requests() == 0 ? 0 : 100.0 * throttled / requests();
  }

  /** Returns goodput minus 429 share, the single figure clients are ranked by. */
  public double score() {
    return goodputPct() - throttledPct();
  }
}
