package dev.headway.httpclient5;

import java.util.concurrent.Future;
import org.apache.hc.core5.concurrent.Cancellable;
import org.apache.hc.core5.concurrent.CancellableDependency;
import org.jspecify.annotations.Nullable;

/**
 * What cancelling one asynchronous call cancels: the paced call itself (a wait for a permit or for
 * a retry ends and sends nothing, a permit held goes back) and the exchange in flight, which the
 * elements below the handler register here. The handler puts it in the caller's
 * {@code Future}'s place for the whole call, so that cancelling that future also works while no
 * exchange is in flight. Thread-safe.
 */
final class CallCancellable implements CancellableDependency {
  private volatile @Nullable Cancellable dependency;
  private volatile @Nullable Future<?> call;
  private volatile boolean cancelled;

  /** Makes {@code call} the paced call this cancels; cancels it at once if already cancelled. */
  void call(Future<?> paced) {
    call = paced;
    if (cancelled) {
      paced.cancel(false);
    }
  }

  @Override
  public void setDependency(Cancellable cancellable) {
    dependency = cancellable;
    if (cancelled) {
      cancellable.cancel();
    }
  }

  @Override
  public boolean isCancelled() {
    return cancelled;
  }

  @Override
  public boolean cancel() {
    if (cancelled) {
      return false;
    }
    cancelled = true;
    Future<?> paced = call;
    if (paced != null) {
      paced.cancel(false);
    }
    Cancellable exchange = dependency;
    if (exchange != null) {
      exchange.cancel();
    }
    return true;
  }
}
