package dev.headway;

/**
 * How many retries a partition may send when its server keeps answering with throttled or
 * unavailable responses: a bucket of {@link #retries()} tokens per partition, one spent by each
 * retry of a throttled response (a 429, a 503 with {@code Retry-After}, or an error the server
 * said to retry), {@link #refillPerSuccess()} of one given back by each response that was not
 * one (a status below 500 that is not throttled), never more than {@code retries}. A retry that
 * finds less than one token left is not sent: the call returns, at once, the response it got.
 *
 * <p>Per-call {@code maxAttempts} bounds what one caller adds; the budget bounds what all of
 * them add together. Without it, 64 callers that each may try 3 times send 192 requests to a
 * server that answers every one with a 503; with the recommended budget they send 64 + 20. The idea
 * is gRPC's {@code retryThrottling} and the AWS SDKs' retry quota: retries are a small share of
 * the traffic, and stop when a server is failing rather than multiplying its load.
 *
 * <p>A {@link Pacer} has no budget unless given one ({@link #off()}: each call retries up to
 * {@code maxAttempts} whatever the others do). {@link #recommended()}: 20 retries, and a fifth
 * of a retry back per successful response, so that over time at most one request in six is a
 * retry.
 *
 * <p>Immutable and thread-safe.
 *
 * @param retries the most retries a partition may send in a row, with no success in between; at
 *     least 1; {@link Integer#MAX_VALUE} for no limit ({@link #off()})
 * @param refillPerSuccess the share of a retry a successful response gives back, in (0, 1]
 */
public record RetryBudget(int retries, double refillPerSuccess) {
  /** The number of retries the {@link #recommended()} budget holds: 20. */
  public static final int DEFAULT_RETRIES = 20;

  /** The share of a retry a successful response gives back in the {@link #recommended()} budget: 0.2. */
  public static final double DEFAULT_REFILL_PER_SUCCESS = 0.2;

  /**
   * Validates the components.
   *
   * @param retries the most retries a partition may send in a row; at least 1
   * @param refillPerSuccess the share of a retry a successful response gives back, in (0, 1]
   * @throws IllegalArgumentException if a component is out of range
   */
  public RetryBudget {
    if (retries < 1) {
      throw new IllegalArgumentException("retries must be at least 1 but was " + retries);
    }
    if (!(refillPerSuccess > 0 && refillPerSuccess <= 1)) {
      throw new IllegalArgumentException(
          "refillPerSuccess must be in (0, 1] but was " + refillPerSuccess);
    }
  }

  /**
   * Returns no budget at all: {@link Integer#MAX_VALUE} retries, never spent.
   *
   * @return the budget that is off
   */
  public static RetryBudget off() {
    return new RetryBudget(Integer.MAX_VALUE, 1);
  }

  /**
   * Returns whether this budget is {@link #off()}: it never refuses a retry.
   *
   * @return true if {@link #retries()} is {@link Integer#MAX_VALUE}
   */
  public boolean isOff() {
    return retries == Integer.MAX_VALUE;
  }

  /**
   * Returns the recommended budget for a client that wants one: {@value #DEFAULT_RETRIES}
   * retries, {@value #DEFAULT_REFILL_PER_SUCCESS} of a retry back per success. A pacer has no
   * budget unless given one ({@link #off()} is the default).
   *
   * @return the recommended budget
   */
  public static RetryBudget recommended() {
    return new RetryBudget(DEFAULT_RETRIES, DEFAULT_REFILL_PER_SUCCESS);
  }
}
