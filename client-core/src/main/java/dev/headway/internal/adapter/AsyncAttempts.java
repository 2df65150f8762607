package dev.headway.internal.adapter;

import dev.headway.Pacer;
import dev.headway.Permit;
import dev.headway.RateLimitedException;
import dev.headway.RequestInfo;
import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * The attempts of one asynchronous call ({@link PacedExchange#runAsync}): the same steps and
 * failure rules as the blocking loop, each wait a future instead of a parked thread.
 *
 * <p>How it runs: an attempt asks {@link Pacer#acquireAsync} for a permit within what is left of
 * the call's budget (a task of the pacer's scheduler completes it; no thread waits), then sends.
 * A response to retry is kept, and the next attempt starts from a task of the pacer's scheduler
 * after the advised delay, even a zero one (never inside the callback that decided it). The kept
 * response is dropped once the next attempt has its permit, or delivered if the permit is
 * refused.
 *
 * <p>Ending the call from outside (the caller cancels or completes {@link #result}): the step in
 * flight (a permit request, a send, a scheduled retry) is cancelled, a permit that arrives anyway
 * goes back, and a kept response is dropped. Thread-safe: callbacks run on the client's and the
 * scheduler's threads, one step after another.
 */
final class AsyncAttempts<R> {
  private final PacedExchange call;
  private final PacedExchange.AsyncClient<R> client;
  private final Pacer pacer;
  private final CompletableFuture<R> result = new CompletableFuture<>();
  /** The step in flight: a permit request, a send, or a scheduled retry. */
  private final AtomicReference<@Nullable Future<?>> current = new AtomicReference<>();
  /** The throttled response kept while the next attempt waits; null when none. */
  private final AtomicReference<@Nullable R> kept = new AtomicReference<>();

  AsyncAttempts(PacedExchange call, PacedExchange.AsyncClient<R> client) {
    this.call = call;
    this.client = client;
    this.pacer = call.pacer();
  }

  CompletableFuture<R> start() {
    result.whenComplete((response, failure) -> {
      Future<?> step = current.get();
      if (step != null && !step.isDone()) {
        step.cancel(true);
      }
      R unused = kept.getAndSet(null);
      if (unused != null) {
        client.discard(unused);
      }
    });
    attempt(1);
    return result;
  }

  private void attempt(int number) {
    CompletableFuture<Permit> acquiring;
    try {
      acquiring = pacer.acquireAsync(call.info(), call.budget().remaining());
    } catch (RuntimeException | LinkageError e) {
      acquiring = CompletableFuture.failedFuture(e);
    }
    step(acquiring);
    acquiring.whenComplete((permit, failure) -> {
      if (failure != null) {
        refused(number, unwrap(failure));
      } else if (result.isDone()) {
        Permits.release(permit); // ended meanwhile
      } else {
        send(call.attempt(permit, number));
      }
    });
  }

  /** No permit for attempt {@code number}: why decides what the caller gets. */
  private void refused(int number, Throwable cause) {
    if (result.isDone() || cause instanceof CancellationException) {
      return; // ended meanwhile
    }
    boolean headwayFailed = Permits.contained(cause);
    if (number == 1) {
      IOException closed = Permits.closed(pacer, cause);
      if (closed != null) {
        result.completeExceptionally(closed); // a closed pacer sends nothing unpaced
      } else if (headwayFailed) {
        Swallowed.log(Permits.LOGGER, "acquiring a permit", cause);
        follow(client.sendUnpaced()); // Headway itself failed: the call goes out without it
      } else {
        result.completeExceptionally(cause); // RateLimitedException: nothing was sent
      }
      return;
    }
    R previous = kept.getAndSet(null);
    if (previous != null && (cause instanceof RateLimitedException || headwayFailed)) {
      if (headwayFailed) {
        Swallowed.log(Permits.LOGGER, "acquiring a retry's permit", cause);
      }
      follow(client.deliver(previous)); // the throttled response is the answer
      return;
    }
    if (previous != null) {
      client.discard(previous);
    }
    result.completeExceptionally(cause);
  }

  private void send(Attempt attempt) {
    R previous = kept.getAndSet(null);
    if (previous != null) {
      client.discard(previous); // the retry has its permit: the throttled response goes
    }
    CompletableFuture<R> sending;
    RequestInfo outer = PacedOutside.mark(call.info()); // an adapter nested in the send
    try {
      sending = client.send(attempt);
    } catch (RuntimeException | Error e) {
      attempt.release();
      result.completeExceptionally(e);
      return;
    } finally {
      PacedOutside.restore(outer);
    }
    step(sending);
    sending.whenComplete((response, failure) -> {
      if (failure != null) {
        attempt.release();
        result.completeExceptionally(unwrap(failure));
      } else {
        received(attempt, response);
      }
    });
  }

  private void received(Attempt attempt, R sent) {
    R response = sent;
    Optional<Duration> delay;
    try {
      response = client.read(sent, attempt);
      delay = attempt.retryDelay();
    } catch (IOException | RuntimeException | LinkageError e) {
      Swallowed.log(Permits.LOGGER, "reading a response's rate-limit signals", e);
      delay = Optional.empty();
    }
    if (delay.isEmpty()) {
      attempt.release(); // a client that never completed it: the permit goes back
      answer(response);
      return;
    }
    R keeping;
    try {
      keeping = client.keep(response);
      if (client.stillReading(keeping)) {
        answer(keeping);
        return;
      }
    } catch (RuntimeException | LinkageError e) {
      Swallowed.log(Permits.LOGGER, "keeping a throttled response for a retry", e);
      answer(response);
      return;
    }
    kept.set(keeping);
    if (result.isDone()) {
      R unused = kept.getAndSet(null); // ended while deciding
      if (unused != null) {
        client.discard(unused);
      }
      return;
    }
    int next = attempt.number() + 1;
    try {
      step(pacer.scheduler().schedule(() -> attempt(next), delay.get()));
    } catch (RuntimeException | LinkageError e) {
      Swallowed.log(Permits.LOGGER, "scheduling a retry", e);
      refused(next, e);
    }
  }

  /** Makes {@code step} the one in flight; cancels it if the call ended meanwhile. */
  private void step(Future<?> step) {
    current.set(step);
    if (result.isDone()) {
      step.cancel(true);
    }
  }

  /** Completes the call with what {@code last} completes with. */
  private void follow(CompletableFuture<R> last) {
    step(last);
    last.whenComplete((response, failure) -> {
      if (failure != null) {
        result.completeExceptionally(unwrap(failure));
      } else {
        answer(response);
      }
    });
  }

  /**
   * Completes the call with {@code response}; if the call ended meanwhile (the caller cancelled
   * it as the response arrived), nobody will read it: it is dropped.
   */
  private void answer(R response) {
    if (!result.complete(response)) {
      client.discard(response);
    }
  }

  private static Throwable unwrap(Throwable failure) {
    Throwable t = failure;
    while ((t instanceof CompletionException || t instanceof ExecutionException)
        && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }
}
