package dev.headway.httpclient5;

import dev.headway.internal.adapter.Swallowed;
import java.io.Closeable;
import java.lang.reflect.Method;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hc.client5.http.impl.async.HttpAsyncClientBuilder;
import org.jspecify.annotations.Nullable;

/**
 * The paced calls of one asynchronous client, which end when the client is closed. A call still
 * waiting (for a permit or before a retry) when its client closes fails at once with the
 * {@link CancellationException} HttpClient 5 gives a call it drops on closing ("Request execution
 * cancelled"), and its permit goes back; once closed, a call that reaches the handler anyway goes
 * down the chain unpaced, to fail there as it would without Headway.
 *
 * <p>HttpClient 5 closes what was registered with its builder's {@code addCloseable} when the
 * client it built is closed; that method is {@code protected} (it is meant for subclasses of the
 * builder), and {@link #closeWith} reaches it by reflection, which HttpClient's packages allow
 * (its jars are automatic modules, open to all). Where that fails, the client's calls wait as
 * before: up to their {@code maxWait}. Thread-safe.
 */
final class ClientCalls implements Closeable {
  private static final @Nullable Method ADD_CLOSEABLE = addCloseable();

  private final Set<CompletableFuture<?>> calls = ConcurrentHashMap.newKeySet();
  private volatile boolean closed;

  /**
   * Returns the calls of the client {@code builder} builds, closed with it; null if HttpClient
   * does not let them be registered.
   */
  static @Nullable ClientCalls closeWith(HttpAsyncClientBuilder builder) {
    if (ADD_CLOSEABLE == null) {
      return null;
    }
    ClientCalls calls = new ClientCalls();
    try {
      ADD_CLOSEABLE.invoke(builder, calls);
      return calls;
    } catch (ReflectiveOperationException | RuntimeException e) {
      Swallowed.log(RateLimitAsyncExecChainHandler.LOGGER, "ending calls when the client closes",
          e);
      return null;
    }
  }

  private static @Nullable Method addCloseable() {
    try {
      Method method = HttpAsyncClientBuilder.class.getDeclaredMethod("addCloseable",
          Closeable.class);
      method.setAccessible(true);
      return method;
    } catch (ReflectiveOperationException | RuntimeException e) {
      Swallowed.log(RateLimitAsyncExecChainHandler.LOGGER, "ending calls when the client closes",
          e);
      return null;
    }
  }

  /** Returns whether the client was closed. */
  boolean closed() {
    return closed;
  }

  /** Tracks {@code call} until it completes; ends it at once if the client is closed. */
  void add(CompletableFuture<?> call) {
    calls.add(call);
    call.whenComplete((result, failure) -> calls.remove(call));
    if (closed) {
      end(call);
    }
  }

  /** Ends every call not yet completed; HttpClient calls this when it closes the client. */
  @Override
  public void close() {
    closed = true;
    for (CompletableFuture<?> call : calls) {
      end(call);
    }
  }

  private static void end(CompletableFuture<?> call) {
    call.completeExceptionally(new CancellationException("Request execution cancelled"));
  }
}
