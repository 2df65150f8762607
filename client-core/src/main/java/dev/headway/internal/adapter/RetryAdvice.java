package dev.headway.internal.adapter;

import dev.headway.Pacer;
import dev.headway.RateLimitSignal;
import dev.headway.RequestInfo;
import java.time.Duration;
import java.util.Optional;

/**
 * Whether and when an adapter retries a throttled response.
 *
 * <p>An adapter must decide before it lets go of a throttled response (a JDK body handler
 * decides before the caller's handler ever sees the body; OkHttp keeps the response until the
 * retry's permit is in hand); the decision depends on the call's remaining {@link CallBudget},
 * on whether the request body can be sent again and on the adapter's own attempt limit; and the
 * delay waited must be exactly the one checked against the budget. So {@link Attempt} decides
 * with {@link #delay} and {@link PacedExchange} waits exactly what was decided.
 */
public final class RetryAdvice {
  private RetryAdvice() {}

  /**
   * Returns the delay before retrying after a response that said {@code signal}, or empty if it
   * must not be retried: not throttled (nor an error the server said to retry), vetoed by the
   * server ({@link RateLimitSignal#shouldRetry()} false), no advice from the pacer (its retry
   * budget spent, say), or a delay past what is left of {@code budget}. A failure of the pacer ({@link Permits#contained}) counts as "no advice": the
   * throttled response is then returned as is. Call it after the response's permit was completed.
   *
   * <p>The delay is {@link Pacer#retryDelay(RequestInfo, RateLimitSignal, int, Duration)}'s: the
   * later of the server's advice and the partition's own wait as the pacer expects it then, within
   * the remaining budget. That is a forecast (other callers may take the last units meanwhile),
   * so the adapter must still take the retry's permit within what is left of the budget after
   * the delay, and return the throttled response if it cannot.
   *
   * @param attempts the responses received so far in this call, this one included
   */
  public static Optional<Duration> delay(Pacer pacer, RequestInfo request, RateLimitSignal signal,
      int attempts, CallBudget budget) {
    if (!mayRetry(signal)) {
      return Optional.empty();
    }
    try {
      return pacer.retryDelay(request, signal, attempts, budget.remaining())
          .filter(budget::allows);
    } catch (RuntimeException | LinkageError e) {
      Swallowed.log(Permits.LOGGER, "asking the pacer for a retry's delay", e);
      return Optional.empty();
    }
  }

  /**
   * Returns whether a response that said {@code signal} is one to retry at all, before the
   * pacer's rules: throttled, or an error the server said to retry ({@code x-should-retry: true}
   * and its kin), and not vetoed by the server.
   */
  static boolean mayRetry(RateLimitSignal signal) {
    if (signal.shouldRetry().isPresent()) {
      return signal.shouldRetry().get() && signal.status() >= 400;
    }
    return signal.throttled();
  }
}
