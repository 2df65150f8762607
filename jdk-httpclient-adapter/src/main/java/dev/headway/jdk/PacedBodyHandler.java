package dev.headway.jdk;

import dev.headway.HttpFields;
import dev.headway.Permit;
import dev.headway.RateLimitSignal;
import dev.headway.SignalParser;
import java.net.http.HttpResponse.BodyHandler;
import java.net.http.HttpResponse.BodySubscriber;
import java.net.http.HttpResponse.ResponseInfo;
import java.time.Duration;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The body handler of one attempt. It sees the status and headers before any body byte, hands
 * them to the attempt's {@link Permit}, and decides whether the response goes to the caller or is
 * retried.
 *
 * <p>How the body is treated, and why:
 *
 * <ul>
 *   <li>Not a JSON 429/503: the permit is completed from status and headers at once. If the pacer
 *       advises a retry, the caller's handler is never asked (so a file or stream handler sees
 *       nothing of the throttled response) and the body is drained, bounded, and dropped.
 *       Otherwise the caller's own subscriber receives the body untouched.
 *   <li>A JSON 429/503 that may be retried: its retry delay may come from the body
 *       ({@code retry_after}, {@code retryDelay}), so the body is held — at most
 *       {@link SignalParser#MAX_BODY_BYTES} plus one buffer — until it completes or outgrows the
 *       bound; then the permit is completed with that prefix and the pacer decides. A retried
 *       response's body is dropped; a delivered one is replayed to the caller's subscriber buffer
 *       by buffer, followed by the rest of the stream, at the caller's demand.
 *   <li>A JSON 429/503 that will not be retried (last attempt, one-shot body, budget spent): the
 *       body flows straight to the caller's subscriber and a bounded copy is taken on the way
 *       (a tee); the permit is completed when the body completes, fails or is cancelled.
 * </ul>
 *
 * In every case the caller receives exactly the bytes the server sent. A failure of the pacer or
 * parser is swallowed (the permit is released): a signal never breaks a request.
 */
final class PacedBodyHandler<T> implements BodyHandler<T> {
  private final BodyHandler<T> caller;
  private final Permit permit;
  private final CallBudget call;
  private final int attempt;
  private volatile Optional<Duration> retryDelay = Optional.empty();

  /**
   * @param attempt the number of this attempt, the first being 1: the responses the call will
   *     have received once this one arrives
   */
  PacedBodyHandler(BodyHandler<T> caller, Permit permit, CallBudget call, int attempt) {
    this.caller = caller;
    this.permit = permit;
    this.call = call;
    this.attempt = attempt;
  }

  @Override
  public BodySubscriber<T> apply(ResponseInfo info) {
    int status = info.statusCode();
    HttpFields headers = HttpFields.of(info.headers().map());
    if ((status == 429 || status == 503) && ContentTypes.isJson(headers)) {
      if (mayRetry()) {
        return new HoldingSubscriber<>(this, info, headers);
      }
      return new TeeSubscriber<>(caller.apply(info),
          prefix -> complete(status, headers, prefix));
    }
    Optional<Duration> delay = retryDelayFor(complete(status, headers, null));
    if (delay.isPresent()) {
      retryDelay = delay;
      return new DrainingSubscriber<>();
    }
    return caller.apply(info);
  }

  /** Returns the delay before the retry this attempt's response asked for, if any. */
  Optional<Duration> retryDelay() {
    return retryDelay;
  }

  BodyHandler<T> caller() {
    return caller;
  }

  void retryAfter(Duration delay) {
    retryDelay = Optional.of(delay);
  }

  RateLimitSignal complete(int status, HttpFields headers, byte @Nullable [] body) {
    try {
      return permit.complete(status, headers, body);
    } catch (RuntimeException e) {
      permit.release();
      return RateLimitSignal.none(status);
    }
  }

  Optional<Duration> retryDelayFor(RateLimitSignal signal) {
    if (!mayRetry() || !signal.throttled()) {
      return Optional.empty();
    }
    try {
      return call.pacer.retryDelay(call.info, signal, attempt).filter(call::fits);
    } catch (RuntimeException e) {
      return Optional.empty();
    }
  }

  private boolean mayRetry() {
    return call.replayable && attempt < call.pacer.maxAttempts();
  }
}
