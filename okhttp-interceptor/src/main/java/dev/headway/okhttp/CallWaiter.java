package dev.headway.okhttp;

import dev.headway.Scheduler;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * Waits for a future on behalf of one OkHttp call, ending the wait promptly when the call is
 * cancelled, times out or the thread is interrupted.
 *
 * <p>OkHttp's {@code Call.cancel()} (which its call timeout also uses) sets a flag and closes
 * sockets; it does not interrupt the thread that runs the interceptor chain. A wait inside an
 * interceptor therefore polls the flag: it blocks on the future for at most
 * {@link #POLL_MILLIS} at a time, so that a cancelled call stops waiting within that interval.
 * The future itself is completed by the pacer's {@link Scheduler}, so the waited time is the
 * scheduler's (virtual in tests); only the polling interval is real time. The issue promises that
 * a cancelled call stops waiting within 50 ms: the interval is 20 ms, and {@code CallWaiterTest}
 * checks through the {@link Blocking} seam that no single block is longer and that the flag is
 * looked at before and after every block.
 *
 * <p>Not thread-safe: one per call, used by the thread running the call.
 */
final class CallWaiter {
  /** The longest a cancelled call keeps waiting, in real milliseconds. */
  static final long POLL_MILLIS = 20;

  private final BooleanSupplier canceled;
  private final Blocking blocking;

  /** Waits for a call whose cancellation {@code canceled} reports ({@code Call::isCanceled}). */
  CallWaiter(BooleanSupplier canceled) {
    this(canceled, Blocking.REAL);
  }

  CallWaiter(BooleanSupplier canceled, Blocking blocking) {
    this.canceled = canceled;
    this.blocking = blocking;
  }

  /** How one poll blocks: a seam for tests, which count polls instead of measuring time. */
  interface Blocking {
    /** Blocks on {@link Future#get(long, TimeUnit)}. */
    Blocking REAL = new Blocking() {
      @Override
      public <T> T get(CompletableFuture<T> future, long millis)
          throws InterruptedException, ExecutionException, TimeoutException {
        return future.get(millis, TimeUnit.MILLISECONDS);
      }
    };

    /** Returns the future's value, waiting at most {@code millis}. */
    <T> T get(CompletableFuture<T> future, long millis)
        throws InterruptedException, ExecutionException, TimeoutException;
  }

  /**
   * Returns the future's value once it completes.
   *
   * @param discard what to do with a value that arrives after the wait was abandoned
   * @throws IOException "Canceled" if the call was cancelled (OkHttp reports a call timeout as
   *     {@link InterruptedIOException} "timeout" on its own); the future's own {@link IOException}
   *     (such as {@link dev.headway.RateLimitedException}) if it failed
   * @throws InterruptedIOException if the thread was interrupted; the flag is restored
   */
  <T> T await(CompletableFuture<T> future, Consumer<? super T> discard) throws IOException {
    while (true) {
      if (canceled.getAsBoolean()) {
        abandon(future, discard);
        throw new IOException("Canceled");
      }
      try {
        return blocking.get(future, POLL_MILLIS);
      } catch (TimeoutException e) {
        // Still waiting: look at the call's flag again.
      } catch (InterruptedException e) {
        abandon(future, discard);
        Thread.currentThread().interrupt();
        InterruptedIOException interrupted =
            new InterruptedIOException("interrupted while waiting for the rate limit");
        interrupted.initCause(e);
        throw interrupted;
      } catch (CancellationException e) {
        throw new IOException("Canceled", e);
      } catch (ExecutionException e) {
        throw rethrow(e.getCause());
      }
    }
  }

  /**
   * Returns the value of a future that is already done, as {@link #await} would (the caller
   * checked that the call is not cancelled): no waiter, no poll. Most permits are granted at
   * once, and for them a waiter would be garbage.
   *
   * @throws IOException "Canceled" if the future was cancelled; the future's own
   *     {@link IOException} if it failed
   */
  static <T> T done(CompletableFuture<T> future) throws IOException {
    try {
      return future.join();
    } catch (CancellationException e) {
      throw new IOException("Canceled", e);
    } catch (CompletionException e) {
      throw rethrow(e.getCause());
    }
  }

  /** Waits {@code delay} on {@code scheduler}, as {@link #await} does. */
  void sleep(Scheduler scheduler, Duration delay) throws IOException {
    if (delay.isZero() || delay.isNegative()) {
      if (canceled.getAsBoolean()) {
        throw new IOException("Canceled");
      }
      return;
    }
    CompletableFuture<Void> timer = new CompletableFuture<>();
    Future<?> task = scheduler.schedule(() -> timer.complete(null), delay);
    try {
      await(timer, ignored -> { });
    } finally {
      task.cancel(false);
    }
  }

  private static <T> void abandon(CompletableFuture<T> future, Consumer<? super T> discard) {
    if (future.cancel(false)) {
      return;
    }
    // It completed meanwhile: whatever it holds must be given back.
    T value;
    try {
      value = future.join();
    } catch (CompletionException | CancellationException e) {
      return;
    }
    if (value != null) {
      discard.accept(value);
    }
  }

  private static IOException rethrow(Throwable cause) {
    if (cause instanceof IOException io) {
      return io;
    }
    if (cause instanceof RuntimeException runtime) {
      throw runtime;
    }
    if (cause instanceof Error error) {
      throw error;
    }
    return new IOException(cause);
  }
}
