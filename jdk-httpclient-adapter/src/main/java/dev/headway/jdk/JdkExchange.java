package dev.headway.jdk;

import dev.headway.RequestInfo;
import dev.headway.internal.adapter.Attempt;
import dev.headway.internal.adapter.PacedExchange;
import dev.headway.internal.adapter.RequestDescriptions;
import dev.headway.internal.adapter.Swallowed;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublisher;
import java.net.http.HttpResponse.BodyHandler;
import java.time.Duration;
import java.util.Optional;

/**
 * What {@code send} and {@code sendAsync} tell the core's {@link PacedExchange} alike: how the
 * request is described and replayed, and that a throttled response is kept by its
 * {@link PacedBodyHandler} ({@link Outcome}) until the retry's permit is in hand.
 */
abstract class JdkExchange<T> implements PacedExchange.Messages<Outcome<T>> {
  final HttpClient delegate;
  final HttpRequest request;
  final BodyHandler<T> handler;

  JdkExchange(HttpClient delegate, HttpRequest request, BodyHandler<T> handler) {
    this.delegate = delegate;
    this.request = request;
    this.handler = handler;
  }

  /**
   * Returns the request {@code attempt} sends: the caller's, or, for a call held before the
   * server answered anything, a copy whose {@link HttpRequest#timeout() timeout} is shortened by
   * the time it was held ({@link Attempt#timeout}). A request with no timeout goes as it is.
   */
  HttpRequest request(Attempt attempt) {
    Optional<Duration> timeout = request.timeout();
    if (timeout.isEmpty()) {
      return request;
    }
    Duration shortened = attempt.timeout(timeout.get());
    if (shortened.equals(timeout.get())) {
      return request;
    }
    try {
      return HttpRequest.newBuilder(request, (name, value) -> true).timeout(shortened).build();
    } catch (RuntimeException e) {
      Swallowed.log(RateLimitedHttpClient.LOGGER, "shortening a held request's timeout", e);
      return request; // as without Headway: the whole timeout
    }
  }

  @Override
  public RequestInfo describe() {
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
}
