package dev.headway.cli;

import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;

/**
 * A body subscriber that keeps at most {@code limit} bytes of a response body and completes as
 * soon as it has them (cancelling the rest of the body), or when the body ends. A body that
 * never ends is therefore read only up to the limit; a body that stalls before the limit is
 * bounded by the caller's deadline ({@link UrlFetcher}).
 *
 * <p>Used by one exchange; the HTTP client calls it from one thread at a time.
 */
final class BoundedBodySubscriber implements HttpResponse.BodySubscriber<byte[]> {
  private final CompletableFuture<byte[]> result = new CompletableFuture<>();
  private final byte[] buffer;
  private int size;
  private Flow.Subscription subscription;

  BoundedBodySubscriber(int limit) {
    this.buffer = new byte[limit];
  }

  @Override
  public CompletionStage<byte[]> getBody() {
    return result;
  }

  @Override
  public void onSubscribe(Flow.Subscription subscription) {
    this.subscription = subscription;
    if (buffer.length == 0) {
      subscription.cancel();
      result.complete(new byte[0]);
    } else {
      subscription.request(1);
    }
  }

  @Override
  public void onNext(List<ByteBuffer> items) {
    if (result.isDone()) {
      return;
    }
    for (ByteBuffer item : items) {
      int n = Math.min(item.remaining(), buffer.length - size);
      item.get(buffer, size, n);
      size += n;
    }
    if (size == buffer.length) {
      subscription.cancel();
      result.complete(buffer.clone());
    } else {
      subscription.request(1);
    }
  }

  @Override
  public void onError(Throwable throwable) {
    result.completeExceptionally(throwable);
  }

  @Override
  public void onComplete() {
    result.complete(Arrays.copyOf(buffer, size));
  }
}
