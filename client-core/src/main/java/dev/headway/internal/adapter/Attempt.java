package dev.headway.internal.adapter;

import dev.headway.HttpFields;
import dev.headway.Permit;
import dev.headway.RateLimitSignal;
import dev.headway.SignalParser;
import java.time.Duration;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * One attempt of a {@link PacedExchange}: the permit it was sent with, and what its response
 * decided. The adapter hands the response's status and fields (and a body hint, when
 * {@link #readsBody} asks for one) to {@link #complete} as soon as it has them; the exchange then
 * knows whether to retry and after how long.
 *
 * <p>Every failure of Headway's own code in here is contained: the permit goes back, the
 * response goes to the caller as it is, and the call never fails because of a rate-limit signal.
 *
 * <p>Thread-safe for hand-over: a client may call {@link #complete} on its own thread (a JDK
 * body handler) while the exchange's thread waits for the response.
 */
public final class Attempt {
  private final PacedExchange call;
  private final Permit permit;
  private final int number;
  private volatile boolean completed;
  private volatile Optional<Duration> retryDelay = Optional.empty();
  /** How long the call was held before any answer from its server; 0 if it was not so held. */
  private final long heldNanos;

  /** The shortest timeout {@link #timeout} returns: 1 ms (zero means "none" to most clients). */
  public static final Duration MIN_TIMEOUT = Duration.ofMillis(1);

  Attempt(PacedExchange call, Permit permit, int number, long heldNanos) {
    this.call = call;
    this.permit = permit;
    this.number = number;
    this.heldNanos = heldNanos;
  }

  /** Returns the number of this attempt, the first being 1. */
  public int number() {
    return number;
  }

  /**
   * Returns the timeout this attempt is sent with, for a client whose own is {@code timeout}:
   * that timeout less the time the call was held while the server had answered nothing yet on its
   * partition (see {@link PacedExchange}), never below {@link #MIN_TIMEOUT}; {@code timeout}
   * itself for any other attempt, and for a timeout that is zero or negative (none). Against a
   * server that never answers, the caller then fails as soon as it would without Headway.
   */
  public Duration timeout(Duration timeout) {
    if (heldNanos == 0 || timeout.isNegative() || timeout.isZero()) {
      return timeout;
    }
    Duration left = timeout.minusNanos(heldNanos);
    if (left.compareTo(MIN_TIMEOUT) >= 0) {
      return left;
    }
    return timeout.compareTo(MIN_TIMEOUT) < 0 ? timeout : MIN_TIMEOUT;
  }

  /**
   * Returns whether this attempt's response may be retried at all: the request can be sent again
   * and this is not the last attempt the call may make. An adapter that must choose how to treat
   * a body before it knows the decision (a JDK body handler) asks this first.
   */
  public boolean mayRetry() {
    return call.replayable() && number < call.maxAttempts();
  }

  /**
   * Returns whether the parser reads the body of a response with this status and these fields
   * (a JSON 429, 503 or 403): the adapter then reads at most {@link #hintBytes()} of it, within
   * {@link BodyHints#WAIT}, and passes them to {@link #complete}.
   */
  public boolean readsBody(int status, HttpFields fields) {
    try {
      return SignalParser.readsBody(status, fields);
    } catch (RuntimeException | LinkageError e) {
      Swallowed.log(Permits.LOGGER, "looking at a response's content type", e);
      return false;
    }
  }

  /** Returns the most bytes of a body the parser reads for hints. */
  public int hintBytes() {
    return SignalParser.MAX_BODY_BYTES;
  }

  /**
   * Hands the response to the permit and decides whether to retry: returns the delay before the
   * retry, or empty if the response goes to the caller. Call it once per attempt; later calls
   * return the first decision.
   *
   * @param hint a prefix of the body for the parser's body rule, or {@code null}
   */
  public Optional<Duration> complete(int status, HttpFields fields, byte @Nullable [] hint) {
    if (completed) {
      return retryDelay;
    }
    completed = true;
    RateLimitSignal signal = Permits.complete(permit, status, fields, hint);
    if (mayRetry()) {
      retryDelay = RetryAdvice.delay(call.pacer(), call.info(), signal, number, call.budget());
    }
    return retryDelay;
  }

  /**
   * Gives the permit back without a response: sending failed, or the adapter could not read the
   * response's status. Nothing if the attempt was already completed.
   */
  public void release() {
    if (!completed) {
      completed = true;
      Permits.release(permit);
    }
  }

  /** Returns the delay before retrying, as {@link #complete} decided; empty if none. */
  public Optional<Duration> retryDelay() {
    return retryDelay;
  }
}
