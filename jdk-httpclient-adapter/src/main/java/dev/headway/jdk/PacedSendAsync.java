package dev.headway.jdk;

import dev.headway.RequestInfo;
import dev.headway.internal.adapter.Attempt;
import dev.headway.internal.adapter.PacedExchange;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandler;
import java.net.http.HttpResponse.PushPromiseHandler;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * {@code HttpClient.sendAsync} as the core's {@link PacedExchange} sees it: one attempt is a
 * {@code sendAsync} through a {@link PacedBodyHandler}, and a throttled response is kept by its
 * handler ({@link Outcome}) until the retry's permit is in hand. Pushed responses reach the
 * caller's push promise handler unpaced. Thread-safe (immutable).
 */
final class PacedSendAsync<T> implements PacedExchange.AsyncClient<Outcome<T>> {
  private final HttpClient delegate;
  private final HttpRequest request;
  private final BodyHandler<T> handler;
  private final @Nullable PushPromiseHandler<T> pushPromiseHandler;

  PacedSendAsync(HttpClient delegate, HttpRequest request, BodyHandler<T> handler,
      @Nullable PushPromiseHandler<T> pushPromiseHandler) {
    this.delegate = delegate;
    this.request = request;
    this.handler = handler;
    this.pushPromiseHandler = pushPromiseHandler;
  }

  @Override
  public RequestInfo describe() {
    return PacedSend.describe(request);
  }

  @Override
  public boolean replayable() {
    return Replay.isReplayable(request);
  }

  @Override
  public CompletableFuture<Outcome<T>> send(Attempt attempt) {
    PacedBodyHandler<T> paced = new PacedBodyHandler<>(handler, attempt);
    return sendAsync(paced).thenApply(paced::outcome);
  }

  @Override
  public CompletableFuture<Outcome<T>> sendUnpaced() {
    return sendAsync(handler).thenApply(Outcome::last);
  }

  private CompletableFuture<java.net.http.HttpResponse<T>> sendAsync(BodyHandler<T> with) {
    return pushPromiseHandler == null ? delegate.sendAsync(request, with)
        : delegate.sendAsync(request, with, pushPromiseHandler);
  }

  @Override
  public Outcome<T> keep(Outcome<T> outcome) {
    return outcome; // its handler holds the body already
  }

  @Override
  public boolean stillReading(Outcome<T> kept) {
    return !kept.retry();
  }

  @Override
  public void discard(Outcome<T> kept) {
    kept.discard();
  }

  @Override
  public CompletableFuture<Outcome<T>> deliver(Outcome<T> kept) {
    return kept.deliver().thenApply(Outcome::last);
  }
}
