package dev.headway.jdk;

import dev.headway.internal.adapter.Attempt;
import dev.headway.internal.adapter.PacedExchange;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandler;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * {@code HttpClient.send} as the core's {@link PacedExchange} sees it: one attempt is a
 * {@code send} through a {@link PacedBodyHandler}, which hands the response to the attempt before
 * the caller's handler sees its body; a throttled response is kept by its handler
 * ({@link Outcome}) until the retry's permit is in hand. One per call.
 */
final class PacedSend<T> extends JdkExchange<T> implements PacedExchange.Client<Outcome<T>> {
  PacedSend(HttpClient delegate, HttpRequest request, BodyHandler<T> handler) {
    super(delegate, request, handler);
  }

  @Override
  public Outcome<T> send(Attempt attempt) throws IOException, InterruptedException {
    PacedBodyHandler<T> paced = new PacedBodyHandler<>(handler, attempt);
    return paced.outcome(delegate.send(request(attempt), paced));
  }

  @Override
  public Outcome<T> sendUnpaced() throws IOException, InterruptedException {
    return Outcome.last(delegate.send(request, handler));
  }

  @Override
  public Outcome<T> deliver(Outcome<T> kept) throws IOException, InterruptedException {
    CompletableFuture<HttpResponse<T>> delivery = kept.deliver();
    try {
      return Outcome.last(delivery.get());
    } catch (InterruptedException e) {
      delivery.cancel(true);
      throw e;
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof IOException io) {
        throw io;
      }
      if (cause instanceof RuntimeException runtime) {
        throw runtime;
      }
      if (cause instanceof Error error) {
        throw error;
      }
      throw new IOException(cause);
    }
  }
}
