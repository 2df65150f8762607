package dev.headway.feign;

import dev.headway.Pacer;
import dev.headway.RateLimitedException;
import feign.FeignException;
import feign.RetryableException;
import feign.Retryer;
import java.util.Collection;
import java.util.Map;

/**
 * Feign's {@link Retryer} minus what Headway has already decided: it propagates at once, without
 * waiting, a failure whose retry was Headway's to make, and hands every other one to the
 * application's retryer as before. Headway's are:
 *
 * <ul>
 *   <li>a throttled response (a 429, or a 503 with {@code Retry-After}): the paced client retried
 *       it already as far as {@code maxWait} and {@code maxAttempts} allow, after the delay the
 *       server asked for; another retry after Feign's capped delay is what Headway prevents;
 *   <li>a call Headway refused to wait for ({@link RateLimitedException}), an interrupted wait,
 *       or a closed pacer: a retry would be refused again, and would only add Feign's own wait.
 * </ul>
 *
 * <p>Not thread-safe, as Feign's retryers: Feign clones one per call.
 */
final class ThrottleAwareRetryer implements Retryer {
  private final Retryer delegate;
  private final Pacer pacer;

  ThrottleAwareRetryer(Retryer delegate, Pacer pacer) {
    this.delegate = delegate;
    this.pacer = pacer;
  }

  @Override
  public void continueOrPropagate(RetryableException e) {
    if (decidedByHeadway(e)) {
      throw e;
    }
    delegate.continueOrPropagate(e);
  }

  @Override
  public Retryer clone() {
    return new ThrottleAwareRetryer(delegate.clone(), pacer);
  }

  private boolean decidedByHeadway(RetryableException e) {
    return throttled(e) || e.getCause() instanceof RateLimitedException
        || e.getCause() instanceof InterruptedWait || pacer.isClosed();
  }

  /** Returns whether {@code e} came from a response the paced client owns the retry of. */
  private static boolean throttled(RetryableException e) {
    if (e.status() == 429) {
      return true;
    }
    return e.status() == 503 && (e.retryAfter() != null || hasRetryAfter(e.responseHeaders())
        || e.getCause() instanceof FeignException cause
            && hasRetryAfter(cause.responseHeaders()));
  }

  private static boolean hasRetryAfter(Map<String, Collection<String>> headers) {
    for (String name : headers.keySet()) {
      if ("Retry-After".equalsIgnoreCase(name)) {
        return true;
      }
    }
    return false;
  }
}
