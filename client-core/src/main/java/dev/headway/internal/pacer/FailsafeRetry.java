package dev.headway.internal.pacer;

import dev.failsafe.RetryPolicy;
import dev.headway.RateLimitSignal;
import dev.headway.RequestInfo;
import java.time.Duration;
import java.util.function.Function;

/**
 * Owns the Failsafe retry policy a pacer hands out ({@code Pacer.retryPolicy}): which results it
 * retries (throttled ones), when it gives up (no retry advised: the last result is returned), how
 * many attempts, and each delay (the engine's retry advice within the pacer's {@code maxWait}).
 * Stateless.
 */
public final class FailsafeRetry {
  private FailsafeRetry() {}

  /**
   * Returns a retry policy for {@code request}, reading each result's signal with
   * {@code signalOf}; exceptions are not retried by it.
   */
  public static <R> RetryPolicy<R> of(Engine engine, RequestInfo request,
      Function<? super R, RateLimitSignal> signalOf, int maxAttempts, Duration maxWait) {
    return RetryPolicy.<R>builder()
        .handleIf((R result, Throwable failure) -> failure == null && result != null
            && signalOf.apply(result).throttled())
        .abortIf((R result, Throwable failure) -> failure == null && result != null
            && !engine.retryable(request, signalOf.apply(result)))
        .withMaxAttempts(maxAttempts)
        .withDelayFn(context -> {
          R last = context.getLastResult();
          if (last == null) {
            return Duration.ZERO;
          }
          return engine.retryDelay(request, signalOf.apply(last), context.getAttemptCount(),
              maxWait).orElse(Duration.ZERO);
        })
        .build();
  }
}
