package dev.headway.jdk;

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
final class PacedSendAsync<T> extends JdkExchange<T>
    implements PacedExchange.AsyncClient<Outcome<T>> {
  private final @Nullable PushPromiseHandler<T> pushPromiseHandler;

  PacedSendAsync(HttpClient delegate, HttpRequest request, BodyHandler<T> handler,
      @Nullable PushPromiseHandler<T> pushPromiseHandler) {
    super(delegate, request, handler);
    this.pushPromiseHandler = pushPromiseHandler;
  }

  @Override
  public CompletableFuture<Outcome<T>> send(Attempt attempt) {
    PacedBodyHandler<T> paced = new PacedBodyHandler<>(handler, attempt);
    return sendAsync(request(attempt), paced).thenApply(paced::outcome);
  }

  @Override
  public CompletableFuture<Outcome<T>> sendUnpaced() {
    return sendAsync(request, handler).thenApply(Outcome::last);
  }

  private CompletableFuture<java.net.http.HttpResponse<T>> sendAsync(HttpRequest sent,
      BodyHandler<T> with) {
    return pushPromiseHandler == null ? delegate.sendAsync(sent, with)
        : delegate.sendAsync(sent, with, pushPromiseHandler);
  }

  @Override
  public CompletableFuture<Outcome<T>> deliver(Outcome<T> kept) {
    return kept.deliver().thenApply(Outcome::last);
  }
}
