package dev.headway.jdk;

import dev.headway.HttpFields;
import dev.headway.internal.adapter.Attempt;
import dev.headway.internal.adapter.Swallowed;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandler;
import java.net.http.HttpResponse.BodySubscriber;
import java.net.http.HttpResponse.ResponseInfo;
import java.time.Duration;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The body handler of one attempt. It sees the status and headers before any body byte, hands
 * them to the attempt's permit, and decides whether the response goes to the caller or may
 * be retried.
 *
 * <p>How the body is treated, and why:
 *
 * <ul>
 *   <li>The attempt cannot be retried (last attempt, one-shot body): the permit is completed from
 *       status and headers at once and the caller's own subscriber receives the body untouched.
 *       Body hints of such a final response are not read: the caller already has the response,
 *       and a permit must not wait on a body the caller may never read.
 *   <li>Otherwise a response whose body the parser reads ({@link Attempt#readsBody}: a JSON
 *       403/429/503) is held (see {@link HoldingSubscriber}) until the body completes or passes
 *       {@link HoldingSubscriber#HOLD_LIMIT}; then the permit is completed with the first
 *       {@link Attempt#hintBytes} and the pacer decides. Any other response is decided
 *       from its headers at once: if it is not retried, the caller's subscriber gets its body
 *       untouched; if it is, its body is held the same way.
 *   <li>A response to retry is kept (its body held, or paused on its connection past the hold
 *       limit) until the retry's permit is in hand, then dropped; if the permit cannot be had
 *       within the call's budget, it goes to the caller after all, byte for byte.
 * </ul>
 *
 * A failure of the pacer or parser is swallowed (the permit is released): a signal never breaks a
 * request.
 */
final class PacedBodyHandler<T> implements BodyHandler<T> {
  private final BodyHandler<T> caller;
  private final Attempt attempt;
  private volatile Optional<Duration> retryDelay = Optional.empty();
  private volatile @Nullable HoldingSubscriber<T> kept;

  PacedBodyHandler(BodyHandler<T> caller, Attempt attempt) {
    this.caller = caller;
    this.attempt = attempt;
  }

  @Override
  public BodySubscriber<T> apply(ResponseInfo info) {
    HoldingSubscriber<T> holding;
    try {
      holding = hold(info);
    } catch (RuntimeException | LinkageError e) {
      Swallowed.log(RateLimitedHttpClient.LOGGER, "reading a response's rate-limit signals", e);
      // Headway itself failed: the caller gets the response as it would without Headway.
      attempt.release();
      holding = null;
    }
    return holding != null ? holding : caller.apply(info);
  }

  /** Decides how to treat the body: held by the returned subscriber, or the caller's. */
  private @Nullable HoldingSubscriber<T> hold(ResponseInfo info) {
    int status = info.statusCode();
    HttpFields headers = JdkFields.of(info.headers());
    if (!attempt.mayRetry()) {
      attempt.complete(status, headers, null);
      return null;
    }
    if (attempt.readsBody(status, headers)) {
      return new HoldingSubscriber<>(this, info, headers, null);
    }
    Optional<Duration> delay = attempt.complete(status, headers, null);
    if (delay.isEmpty()) {
      return null;
    }
    return new HoldingSubscriber<>(this, info, headers, delay.get());
  }

  /** Returns this attempt's outcome, once the client returned {@code response}. */
  Outcome<T> outcome(HttpResponse<T> response) {
    return new Outcome<>(response, retryDelay, kept);
  }

  BodyHandler<T> caller() {
    return caller;
  }

  /** Records that the response {@code held} keeps is to be retried after {@code delay}. */
  void retryAfter(Duration delay, HoldingSubscriber<T> held) {
    kept = held;
    retryDelay = Optional.of(delay);
  }

  /**
   * Completes the attempt's permit with the response and returns the delay before retrying it,
   * or empty if it goes to the caller.
   */
  Optional<Duration> decide(int status, HttpFields headers, byte @Nullable [] body) {
    return attempt.complete(status, headers, body);
  }
}
