package dev.headway.internal.adapter;

import dev.failsafe.RetryPolicy;
import dev.headway.Pacer;
import dev.headway.RateLimitSignal;
import dev.headway.RequestInfo;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Function;

/**
 * Whether and when an adapter retries a throttled response, and the Failsafe policy that carries
 * the decision out.
 *
 * <p>Why the adapters do not use {@link Pacer#retryPolicy}: an adapter must decide before it
 * lets go of a throttled response (a JDK body handler decides before the caller's handler ever
 * sees the body; OkHttp keeps the response until the retry's permit is in hand), the decision
 * depends on the call's remaining {@link CallBudget}, on whether the request body can be sent
 * again and on the adapter's own attempt limit, and the delay waited must be exactly the one
 * checked against the budget. {@code Pacer.retryPolicy} computes its delay again in Failsafe's
 * delay function (fresh jitter) and knows none of that; so the adapters decide with
 * {@link #delay} and run {@link #policy}, which retries exactly what was decided.
 */
public final class RetryAdvice {
  private RetryAdvice() {}

  /**
   * Returns the delay before retrying after a response that said {@code signal}, or empty if it
   * must not be retried: not throttled, no advice from the pacer, or a delay past what is left of
   * {@code budget}. A failure of the pacer ({@link Permits#contained}) counts as "no advice": the
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
    if (!signal.throttled()) {
      return Optional.empty();
    }
    try {
      return pacer.retryDelay(request, signal, attempts, budget.remaining())
          .filter(budget::allows);
    } catch (RuntimeException | LinkageError e) {
      return Optional.empty();
    }
  }

  /**
   * Returns a retry policy that retries a result exactly when {@code delayOf} gives a delay, after
   * that delay, without an attempt limit of its own (the decision already applied it).
   * Exceptions are never retried.
   */
  public static <R> RetryPolicy<R> policy(Function<? super R, Optional<Duration>> delayOf) {
    return RetryPolicy.<R>builder()
        .handleIf((R result, Throwable failure) -> failure == null && result != null
            && delayOf.apply(result).isPresent())
        .withDelayFn(context -> {
          R last = context.getLastResult();
          return last == null ? Duration.ZERO : delayOf.apply(last).orElse(Duration.ZERO);
        })
        .withMaxRetries(-1)
        .build();
  }
}
