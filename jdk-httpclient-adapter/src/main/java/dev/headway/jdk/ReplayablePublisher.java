package dev.headway.jdk;

import java.net.http.HttpRequest.BodyPublisher;
import java.nio.ByteBuffer;
import java.util.concurrent.Flow;

/**
 * A body publisher its application vouched for: it publishes the same bytes on every
 * subscription. From {@link RateLimitedHttpClient#replayable}. Thread-safe if the publisher it
 * wraps is.
 */
final class ReplayablePublisher implements BodyPublisher {
  private final BodyPublisher publisher;

  ReplayablePublisher(BodyPublisher publisher) {
    this.publisher = publisher;
  }

  @Override
  public long contentLength() {
    return publisher.contentLength();
  }

  @Override
  public void subscribe(Flow.Subscriber<? super ByteBuffer> subscriber) {
    publisher.subscribe(subscriber);
  }
}
