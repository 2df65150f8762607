package dev.headway.benchmarks.sim;

import java.util.List;

/**
 * What one client achieved in one scenario.
 *
 * @param scenario the scenario
 * @param client the compared client's name
 * @param allowed what a perfect client could have had admitted in the same time
 * @param admitted requests the server admitted (200)
 * @param throttled requests the server answered 429
 * @param callsFailed calls that ended in an error for the user: given up after 429s (retry
 *     budget spent) or refused locally ({@code callsRefused})
 * @param meanDelayMs mean added delay of successful calls: from the call's start until its
 *     successful request left the client (pacing, backoff and earlier attempts), milliseconds
 * @param p99DelayMs the 99th percentile of the same
 * @param herd arrivals at the server in the second after each window boundary, divided by the
 *     mean arrivals per second over the run (1 = smooth; 60 = a minute's traffic in one second)
 * @param events simulation events run
 * @param callsRefused calls the client refused locally without a final request (Headway's
 *     {@code RateLimitedException}: the wait would exceed {@code maxWait})
 * @param callsSucceeded calls that ended with a 200
 * @param lateCalls successful calls that waited longer than
 *     {@link Reference#lateAfterNanos()} (twice the perfect client's longest wait, plus a round
 *     trip)
 * @param truncatedNanos 0, or the virtual time at which the run was cut short after
 *     {@link Simulation#MAX_REQUESTS} requests (the figures then cover that time)
 * @param quotas per quota, for a server with several (empty otherwise)
 */
public record Result(Scenario scenario, String client, long allowed, long admitted,
    long throttled, long callsFailed, double meanDelayMs, double p99DelayMs, double herd,
    long events, long callsRefused, long callsSucceeded, long lateCalls, long truncatedNanos,
    List<SimServer.QuotaUse> quotas) {

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

  /**
   * Returns goodput minus 429 share, the figure clients were ranked by before {@link #score()}
   * (kept so that runs can be compared with earlier ones).
   */
  public double goodputMinus429() {
    return goodputPct() - throttledPct();
  }

  /** Returns calls that ended in an error as a percentage of calls that ended. */
  public double failedPct() {
    long ended = callsSucceeded + callsFailed;
    return ended == 0 ? 0 : 100.0 * callsFailed / ended;
  }

  /** Returns late calls as a percentage of successful calls. */
  public double latePct() {
    return callsSucceeded == 0 ? 0 : 100.0 * lateCalls / callsSucceeded;
  }

  /**
   * Returns the score clients are ranked by: every way the client failed its user, each as a
   * share in percent, subtracted from 100 with equal weight:
   *
   * <pre>
   * score = 100 - shortfall - 429 share - failed-call share - late-call share
   * shortfall = 100 - min(100, goodput %)   (quota a perfect client would have used)
   * </pre>
   *
   * <p>The perfect client scores 100; a client that sends nothing scores 0 at most.
   */
  public double score() {
    double shortfall = 100 - Math.min(100, goodputPct());
    return 100 - shortfall - throttledPct() - failedPct() - latePct();
  }

  /** Returns whether the run was cut short after too many requests. */
  public boolean truncated() {
    return truncatedNanos > 0;
  }
}
