package dev.headway.jdk;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandler;
import java.util.concurrent.CompletableFuture;

/** How a test sends: every adapter behaviour is tested through {@code send} and {@code sendAsync}. */
enum Mode {
  /** {@link HttpClient#send} on a thread of its own. */
  SYNC {
    @Override
    <T> Call<T> start(HttpClient client, HttpRequest request, BodyHandler<T> handler) {
      CompletableFuture<HttpResponse<T>> future = new CompletableFuture<>();
      boolean[] interruptedAfter = new boolean[1];
      Thread thread = new Thread(() -> {
        try {
          future.complete(client.send(request, handler));
        } catch (Throwable t) {
          interruptedAfter[0] = Thread.currentThread().isInterrupted();
          future.completeExceptionally(t);
        }
      }, "sync-caller");
      thread.setDaemon(true);
      thread.start();
      return new Call<>(future, () -> thread.interrupt(), () -> interruptedAfter[0]);
    }
  },
  /** {@link HttpClient#sendAsync}. */
  ASYNC {
    @Override
    <T> Call<T> start(HttpClient client, HttpRequest request, BodyHandler<T> handler) {
      CompletableFuture<HttpResponse<T>> future = client.sendAsync(request, handler);
      return new Call<>(future, () -> future.cancel(true), () -> false);
    }
  };

  abstract <T> Call<T> start(HttpClient client, HttpRequest request, BodyHandler<T> handler);

  /** A call in progress. */
  record Call<T>(CompletableFuture<HttpResponse<T>> future, Runnable abortAction,
      java.util.function.BooleanSupplier interruptFlagAfterFailure) {
    /** Interrupts the caller (sync) or cancels the future (async). */
    void abort() {
      abortAction.run();
    }
  }
}
