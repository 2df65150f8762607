package dev.headway.testing;

import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;

/** Runs a blocking call on a daemon thread of its own (never a shared pool's), as a caller does. */
public final class CallerThread {
  /** Starts {@code call} on a new daemon thread: the future completes as it returns or throws. */
  public static <T> CompletableFuture<T> start(Callable<T> call) {
    CompletableFuture<T> outcome = new CompletableFuture<>();
    Thread caller = new Thread(() -> {
      try {
        outcome.complete(call.call());
      } catch (Throwable t) {
        outcome.completeExceptionally(t);
      }
    }, "test-caller");
    caller.setDaemon(true);
    caller.start();
    return outcome;
  }

  private CallerThread() {}
}
