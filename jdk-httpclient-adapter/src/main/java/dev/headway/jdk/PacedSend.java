package dev.headway.jdk;

import dev.headway.RequestInfo;
import dev.headway.internal.adapter.Attempt;
import dev.headway.internal.adapter.PacedExchange;
import dev.headway.internal.adapter.RequestDescriptions;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublisher;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandler;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * {@code HttpClient.send} as the core's {@link PacedExchange} sees it: one attempt is a
 * {@code send} through a {@link PacedBodyHandler}, which hands the response to the attempt before
 * the caller's handler sees its body; a throttled response is kept by its handler
 * ({@link Outcome}) until the retry's permit is in hand. Not thread-safe: one per call.
 */
final class PacedSend<T> implements PacedExchange.Client<Outcome<T>> {
  private final HttpClient delegate;
  private final HttpRequest request;
  private final BodyHandler<T> handler;

  PacedSend(HttpClient delegate, HttpRequest request, BodyHandler<T> handler) {
    this.delegate = delegate;
    this.request = request;
    this.handler = handler;
  }

  @Override
  public RequestInfo describe() {
    return describe(request);
  }

  /** Describes {@code request} by the adapters' shared rule. */
  static RequestInfo describe(HttpRequest request) {
    Optional<BodyPublisher> publisher = request.bodyPublisher();
    return RequestDescriptions.describe(request.method(), request.uri(),
        JdkFields.of(request.headers()), publisher.isPresent(),
        publisher.map(BodyPublisher::contentLength).orElse(0L));
  }

  @Override
  public boolean replayable() {
    return Replay.isReplayable(request);
  }

  @Override
  public Outcome<T> send(Attempt attempt) throws IOException, InterruptedException {
    PacedBodyHandler<T> paced = new PacedBodyHandler<>(handler, attempt);
    return paced.outcome(delegate.send(request, paced));
  }

  @Override
  public Outcome<T> sendUnpaced() throws IOException, InterruptedException {
    return Outcome.last(delegate.send(request, handler));
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
