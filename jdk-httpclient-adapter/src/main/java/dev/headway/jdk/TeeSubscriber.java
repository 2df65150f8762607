package dev.headway.jdk;

import dev.headway.SignalParser;
import java.net.http.HttpResponse.BodySubscriber;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * Passes a body to the caller's subscriber unchanged while copying its first
 * {@link SignalParser#MAX_BODY_BYTES} bytes; hands the copy on once, when the body completes,
 * fails or is cancelled by the caller.
 */
final class TeeSubscriber<T> implements BodySubscriber<T> {
  private final BodySubscriber<T> downstream;
  private final Consumer<byte[]> onDone;
  private final BodyPrefix prefix = new BodyPrefix(SignalParser.MAX_BODY_BYTES);
  private final AtomicBoolean done = new AtomicBoolean();

  TeeSubscriber(BodySubscriber<T> downstream, Consumer<byte[]> onDone) {
    this.downstream = downstream;
    this.onDone = onDone;
  }

  @Override
  public CompletionStage<T> getBody() {
    return downstream.getBody();
  }

  @Override
  public void onSubscribe(Flow.Subscription subscription) {
    downstream.onSubscribe(new Flow.Subscription() {
      @Override
      public void request(long n) {
        subscription.request(n);
      }

      @Override
      public void cancel() {
        finish();
        subscription.cancel();
      }
    });
  }

  @Override
  public void onNext(List<ByteBuffer> item) {
    synchronized (prefix) {
      prefix.append(item);
    }
    downstream.onNext(item);
  }

  @Override
  public void onError(Throwable throwable) {
    finish();
    downstream.onError(throwable);
  }

  @Override
  public void onComplete() {
    finish();
    downstream.onComplete();
  }

  private void finish() {
    if (done.compareAndSet(false, true)) {
      byte[] bytes;
      synchronized (prefix) {
        bytes = prefix.bytes();
      }
      onDone.accept(bytes);
    }
  }
}
