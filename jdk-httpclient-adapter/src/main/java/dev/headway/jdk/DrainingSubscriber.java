package dev.headway.jdk;

import java.net.http.HttpResponse.BodySubscriber;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;

/**
 * Reads and drops the body of a response that will be retried, so that its connection can be
 * reused; a body longer than {@link #LIMIT} is cancelled instead (the connection is then closed).
 * Completes with {@code null} in every case, even on a read error: nobody will see this body.
 */
final class DrainingSubscriber<T> implements BodySubscriber<T> {
  /** Bytes read before the rest of a discarded body is cancelled. */
  static final long LIMIT = 64 * 1024;

  private final CompletableFuture<T> body = new CompletableFuture<>();
  private Flow.Subscription subscription;
  private long read;

  @Override
  public CompletionStage<T> getBody() {
    return body;
  }

  @Override
  public void onSubscribe(Flow.Subscription subscription) {
    this.subscription = subscription;
    subscription.request(Long.MAX_VALUE);
  }

  @Override
  public void onNext(List<ByteBuffer> item) {
    read += BodyPrefix.remaining(item);
    if (read > LIMIT && body.complete(null)) {
      subscription.cancel();
    }
  }

  @Override
  public void onError(Throwable throwable) {
    body.complete(null);
  }

  @Override
  public void onComplete() {
    body.complete(null);
  }
}
