package dev.headway.jdk;

import dev.failsafe.Failsafe;
import dev.failsafe.FailsafeExecutor;
import dev.failsafe.RetryPolicy;
import dev.headway.Pacer;
import dev.headway.Permit;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandler;
import java.net.http.HttpResponse.PushPromiseHandler;
import java.time.Duration;
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
 * a permit — while it waits, a task sits in the pacer's scheduler and no thread is blocked — then
 * sends with {@link HttpClient#sendAsync} through a {@link PacedBodyHandler}, which decides from
 * the response whether to retry. The retry policy does not judge anything itself: it retries
 * exactly the attempts the handler marked, after the delay the handler computed from
 * {@link Pacer#retryDelay}, so that the body the caller receives and the retry decision can never
 * disagree. The attempt budget is the pacer's ({@code maxAttempts}), checked by the handler.
 * Exceptions (a refused permit, an I/O failure) are never retried.
 *
 * <p>Cancellation: cancelling the caller's future cancels Failsafe's, which cancels a pending
 * retry delay and the current attempt; the attempt cancels its acquire (the pacer then releases
 * the reservation: nothing is sent) or its in-flight send, and releases a permit it holds.
 * Thread-safe.
 */
final class AsyncSender {
  private final HttpClient delegate;
  private final Pacer pacer;
  private final FailsafeExecutor<Attempt<?>> failsafe;

  AsyncSender(HttpClient delegate, Pacer pacer) {
    this.delegate = delegate;
    this.pacer = pacer;
    RetryPolicy<Attempt<?>> retries = RetryPolicy.<Attempt<?>>builder()
        .handleIf((attempt, failure) -> failure == null && attempt != null && attempt.retry())
        .withDelayFn(ctx -> ctx.getLastResult().retryDelay().orElse(Duration.ZERO))
        .withMaxRetries(-1)
        .build();
    this.failsafe = Failsafe.with(retries)
        .with(new PacerScheduling(pacer.scheduler(), pacer.ticker()));
  }

  <T> CompletableFuture<HttpResponse<T>> send(HttpRequest request, BodyHandler<T> handler,
      @Nullable PushPromiseHandler<T> pushPromiseHandler) {
    CallBudget call = new CallBudget(pacer, request);
    CompletableFuture<HttpResponse<T>> result = new CompletableFuture<>();
    CompletableFuture<Attempt<T>> execution = failsafe.getStageAsync(
        ctx -> attempt(call, handler, pushPromiseHandler, ctx.getAttemptCount() + 1));
    execution.whenComplete((attempt, failure) -> {
      if (failure != null) {
        result.completeExceptionally(unwrap(failure));
      } else {
        result.complete(attempt.response());
      }
    });
    result.whenComplete((response, failure) -> {
      if (result.isCancelled()) {
        execution.cancel(true);
      }
    });
    return result;
  }

  private <T> CompletableFuture<Attempt<T>> attempt(CallBudget call, BodyHandler<T> handler,
      @Nullable PushPromiseHandler<T> pushPromiseHandler, int number) {
    CompletableFuture<Attempt<T>> stage = new CompletableFuture<>();
    AtomicReference<CompletableFuture<?>> current = new AtomicReference<>();
    CompletableFuture<Permit> acquiring;
    try {
      acquiring = pacer.acquireAsync(call.info, call.remaining());
    } catch (RuntimeException e) {
      stage.completeExceptionally(e);
      return stage;
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
        stage.completeExceptionally(unwrap(failure));
        return;
      }
      if (stage.isDone()) {
        permit.release();
        return;
      }
      PacedBodyHandler<T> paced = new PacedBodyHandler<>(handler, permit, call, number);
      CompletableFuture<HttpResponse<T>> sending;
      try {
        sending = pushPromiseHandler == null
            ? delegate.sendAsync(call.request, paced)
            : delegate.sendAsync(call.request, paced, pushPromiseHandler);
      } catch (RuntimeException | Error e) {
        permit.release();
        stage.completeExceptionally(e);
        return;
      }
      current.set(sending);
      if (stage.isCancelled()) {
        sending.cancel(true);
      }
      sending.whenComplete((response, sendFailure) -> {
        if (sendFailure != null) {
          permit.release();
          stage.completeExceptionally(unwrap(sendFailure));
        } else {
          stage.complete(new Attempt<>(response, paced.retryDelay()));
        }
      });
    });
    return stage;
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
