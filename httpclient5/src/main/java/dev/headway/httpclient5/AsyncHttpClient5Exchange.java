package dev.headway.httpclient5;

import dev.headway.RequestInfo;
import dev.headway.internal.adapter.Attempt;
import dev.headway.internal.adapter.BodyHints;
import dev.headway.internal.adapter.PacedExchange;
import dev.headway.internal.adapter.RequestDescriptions;
import java.io.IOException;
import java.net.URISyntaxException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import org.apache.hc.client5.http.async.AsyncExecCallback;
import org.apache.hc.client5.http.async.AsyncExecChain;
import org.apache.hc.core5.http.HttpException;
import org.apache.hc.core5.http.HttpRequest;
import org.apache.hc.core5.http.nio.AsyncEntityProducer;
import org.jspecify.annotations.Nullable;

/**
 * One request of an HttpClient 5 asynchronous execution chain as the core's
 * {@link PacedExchange} sees it: an attempt is a {@code chain.proceed} reporting to an
 * {@link AttemptCallback}, which decides from the response's head (and a bounded body hint) and
 * holds a response to retry. A request whose entity producer is not repeatable is sent once; a
 * repeatable one is rewound ({@code releaseResources}) before it is sent again, as HttpClient's own
 * retries do. Each attempt sends a fresh copy of the request as it reached the handler, since the
 * elements below it add to the request they are given. The caller's callback hears only the
 * response it gets. Thread-safe for the exchange's use: one step after another.
 */
final class AsyncHttpClient5Exchange implements PacedExchange.AsyncClient<AttemptCallback> {
  private final HttpRequest request;
  private final @Nullable AsyncEntityProducer entity;
  private final AsyncExecChain.Scope scope;
  private final AsyncExecChain chain;
  private final AsyncExecCallback caller;
  private volatile @Nullable RequestSnapshot pristine;
  private volatile @Nullable AttemptCallback previous;

  AsyncHttpClient5Exchange(HttpRequest request, @Nullable AsyncEntityProducer entity,
      AsyncExecChain.Scope scope, AsyncExecChain chain, AsyncExecCallback caller) {
    this.request = request;
    this.entity = entity;
    this.scope = scope;
    this.chain = chain;
    this.caller = caller;
  }

  @Override
  public RequestInfo describe() {
    try {
      return RequestDescriptions.describe(request.getMethod(), request.getUri(),
          HttpClient5Exchange.fields(request.getHeaders()), entity != null,
          entity == null ? 0 : entity.getContentLength());
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("request URI", e); // sent unpaced, as without Headway
    }
  }

  @Override
  public boolean replayable() {
    return entity == null || entity.isRepeatable();
  }

  @Override
  public CompletableFuture<AttemptCallback> send(Attempt attempt) {
    AttemptCallback last = previous;
    if (last == null || last.finished().isDone()) {
      return proceed(attempt);
    }
    // The held response's exchange ends at once (its body is in, or its connection was closed):
    // the retry goes out on the connection after it. Bounded all the same, by Headway's timer.
    CompletableFuture<@Nullable Void> finished = last.finished();
    Future<?> bound = BodyHints.afterWait(() -> finished.complete(null));
    finished.whenComplete((done, failure) -> bound.cancel(false));
    return finished.thenCompose(done -> proceed(attempt));
  }

  private CompletableFuture<AttemptCallback> proceed(Attempt attempt) {
    HttpRequest sent = request;
    if (attempt.number() == 1) {
      if (attempt.mayRetry()) {
        pristine = RequestSnapshot.of(request);
      }
    } else {
      RequestSnapshot original = pristine;
      if (original != null) {
        sent = original.async();
      }
      if (entity != null) {
        entity.releaseResources(); // rewinds a repeatable producer
      }
    }
    AttemptCallback callback = new AttemptCallback(attempt, caller, scope.execRuntime,
        scope.clientContext);
    previous = callback;
    // Put back once the exchange is over: the runtime reads it when its connection is leased.
    Runnable restore = HeldResponseTimeout.apply(scope.clientContext, attempt);
    try {
      chain.proceed(sent, entity, scope, callback);
    } catch (HttpException | IOException | RuntimeException e) {
      restore.run();
      return CompletableFuture.failedFuture(e);
    }
    callback.finished().whenComplete((done, failure) -> restore.run());
    return callback.decided();
  }

  @Override
  public CompletableFuture<AttemptCallback> sendUnpaced() {
    try {
      chain.proceed(request, entity, scope, caller);
    } catch (HttpException | IOException | RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    return CompletableFuture.completedFuture(null);
  }

  @Override
  public AttemptCallback keep(AttemptCallback response) {
    return response; // held by the callback since it decided
  }

  @Override
  public void discard(AttemptCallback kept) {
    kept.discard();
  }

  @Override
  public CompletableFuture<AttemptCallback> deliver(AttemptCallback kept) {
    return kept.deliver();
  }
}
