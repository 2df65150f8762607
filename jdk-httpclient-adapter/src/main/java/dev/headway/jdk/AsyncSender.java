package dev.headway.jdk;

import dev.failsafe.Failsafe;
import dev.failsafe.FailsafeExecutor;
import dev.failsafe.RetryPolicy;
import dev.headway.Pacer;
import dev.headway.Permit;
import dev.headway.RateLimitedException;
import dev.headway.internal.adapter.PacedExchange;
import dev.headway.internal.adapter.Permits;
import dev.headway.internal.adapter.RetryAdvice;
import dev.headway.internal.adapter.Swallowed;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandler;
import java.net.http.HttpResponse.PushPromiseHandler;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * The {@code sendAsync} path: acquire a permit asynchronously, send asynchronously, and retry
 * through Failsafe's async execution, every delay passing through the pacer's scheduler.
 *
 * <p>How one call runs: Failsafe runs an attempt; the attempt asks {@link Pacer#acquireAsync} for
 * a permit within what is left of the call's budget — while it waits, a task sits in the pacer's
 * scheduler and no thread is blocked — then sends with {@link HttpClient#sendAsync} through a
 * {@link PacedBodyHandler}, which decides from the response whether to retry. The retry policy
 * ({@link RetryAdvice#policy}) does not judge anything itself: it retries exactly the attempts the
 * handler marked, after the delay the handler computed, so that the body the caller receives and
 * the retry decision can never disagree. The previous attempt's throttled response is kept until
 * the next attempt has its permit: if the permit is refused ({@link RateLimitedException}), that
 * response is delivered to the caller instead. Other exceptions (an I/O failure) are never
 * retried.
 *
 * <p>Cancellation: cancelling the caller's future cancels Failsafe's, which cancels a pending
 * retry delay and the current attempt; the attempt cancels its acquire (the pacer then releases
 * the reservation: nothing is sent) or its in-flight send, and releases a permit it holds; a kept
 * response is discarded. Thread-safe.
 */
final class AsyncSender {
  private final HttpClient delegate;
  private final Pacer pacer;
  private final RetryPolicy<Outcome<?>> retryPolicy;

  AsyncSender(HttpClient delegate, Pacer pacer) {
    this.delegate = delegate;
    this.pacer = pacer;
    this.retryPolicy = RetryAdvice.<Outcome<?>>policy(Outcome::retryDelay);
  }

  <T> CompletableFuture<HttpResponse<T>> send(HttpRequest request, BodyHandler<T> handler,
      @Nullable PushPromiseHandler<T> pushPromiseHandler) {
    PacedExchange call = PacedExchange.start(pacer, PacedSend.describe(request),
        Replay.isReplayable(request), pacer.maxWait(), pacer.maxAttempts());
    CompletableFuture<HttpResponse<T>> result = new CompletableFuture<>();
    AtomicReference<Outcome<T>> lastKept = new AtomicReference<>();
    // A scheduling of its own per call: see PacerScheduling on why the first task is special.
    FailsafeExecutor<Outcome<?>> failsafe = Failsafe.with(retryPolicy)
        .with(new PacerScheduling(pacer.scheduler(), pacer.ticker()));
    CompletableFuture<Outcome<T>> execution = failsafe.getStageAsync(ctx -> {
      Outcome<T> previous = ctx.getLastResult();
      return attempt(call, request, handler, pushPromiseHandler, ctx.getAttemptCount() + 1,
          previous, lastKept);
    });
    execution.whenComplete((attempt, failure) -> {
      if (failure != null) {
        result.completeExceptionally(unwrap(failure));
      } else {
        result.complete(attempt.response());
      }
    });
    result.whenComplete((response, failure) -> {
      if (!execution.isDone()) {
        execution.cancel(true);
      }
      Outcome<T> kept = lastKept.get();
      if (kept != null) {
        kept.discard(); // nothing if it was delivered
      }
    });
    return result;
  }

  private <T> CompletableFuture<Outcome<T>> attempt(PacedExchange call, HttpRequest request,
      BodyHandler<T> handler,
      @Nullable PushPromiseHandler<T> pushPromiseHandler, int number,
      @Nullable Outcome<T> previous, AtomicReference<Outcome<T>> lastKept) {
    CompletableFuture<Outcome<T>> stage = new CompletableFuture<>();
    AtomicReference<CompletableFuture<?>> current = new AtomicReference<>();
    CompletableFuture<Permit> acquiring;
    try {
      acquiring = pacer.acquireAsync(call.info(), call.budget().remaining());
    } catch (RuntimeException | LinkageError e) {
      Swallowed.log(RateLimitedHttpClient.LOGGER, "acquiring a permit", e);
      acquiring = CompletableFuture.failedFuture(e);
    }
    current.set(acquiring);
    stage.whenComplete((attempt, failure) -> {
      if (stage.isCancelled()) {
        CompletableFuture<?> inFlight = current.get();
        if (inFlight != null) {
          inFlight.cancel(true);
        }
      }
    });
    acquiring.whenComplete((permit, failure) -> {
      if (failure != null) {
        Throwable cause = unwrap(failure);
        if (stage.isDone()) {
          return; // Cancelled meanwhile.
        }
        // Headway itself failed (user code it calls, a dependency of another version): the call
        // goes on as it would without Headway.
        boolean headwayFailed = Permits.contained(cause)
            && !(cause instanceof java.util.concurrent.CancellationException);
        IOException closed = previous == null ? Permits.closed(pacer, cause) : null;
        if (closed != null) {
          stage.completeExceptionally(closed); // a closed pacer sends nothing unpaced
          return;
        }
        if (previous == null && headwayFailed) {
          sendUnpaced(request, handler, pushPromiseHandler, stage, current);
          return;
        }
        if (previous != null && previous.retry()
            && (cause instanceof RateLimitedException || headwayFailed)) {
          // The retry cannot go within the budget: the throttled response is the answer.
          previous.deliver().whenComplete((response, deliveryFailure) -> {
            if (deliveryFailure != null) {
              stage.completeExceptionally(unwrap(deliveryFailure));
            } else {
              stage.complete(Outcome.last(response));
            }
          });
        } else {
          stage.completeExceptionally(cause);
        }
        return;
      }
      if (stage.isDone()) {
        Permits.release(permit);
        return;
      }
      if (previous != null) {
        previous.discard(); // The retry has its permit: the throttled response goes.
      }
      PacedBodyHandler<T> paced = new PacedBodyHandler<>(handler, call.attempt(permit, number));
      CompletableFuture<HttpResponse<T>> sending;
      try {
        sending = pushPromiseHandler == null
            ? delegate.sendAsync(request, paced)
            : delegate.sendAsync(request, paced, pushPromiseHandler);
      } catch (RuntimeException | Error e) {
        Permits.release(permit);
        stage.completeExceptionally(e);
        return;
      }
      current.set(sending);
      if (stage.isCancelled()) {
        sending.cancel(true);
      }
      sending.whenComplete((response, sendFailure) -> {
        if (sendFailure != null) {
          Permits.release(permit);
          stage.completeExceptionally(unwrap(sendFailure));
          return;
        }
        Outcome<T> attempt = paced.outcome(response);
        if (attempt.retry()) {
          lastKept.set(attempt);
        }
        if (!stage.complete(attempt)) {
          attempt.discard();
        }
      });
    });
    return stage;
  }

  private <T> void sendUnpaced(HttpRequest request, BodyHandler<T> handler,
      @Nullable PushPromiseHandler<T> pushPromiseHandler, CompletableFuture<Outcome<T>> stage,
      AtomicReference<CompletableFuture<?>> current) {
    CompletableFuture<HttpResponse<T>> sending;
    try {
      sending = pushPromiseHandler == null
          ? delegate.sendAsync(request, handler)
          : delegate.sendAsync(request, handler, pushPromiseHandler);
    } catch (RuntimeException | Error e) {
      stage.completeExceptionally(e);
      return;
    }
    current.set(sending);
    if (stage.isCancelled()) {
      sending.cancel(true);
    }
    sending.whenComplete((response, failure) -> {
      if (failure != null) {
        stage.completeExceptionally(unwrap(failure));
      } else {
        stage.complete(Outcome.last(response));
      }
    });
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
