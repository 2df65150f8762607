package dev.headway.httpclient5;

import dev.headway.Pacer;
import dev.headway.RateLimitedException;
import dev.headway.internal.adapter.CallLimits;
import dev.headway.internal.adapter.PacedExchange;
import java.io.IOException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.apache.hc.client5.http.HttpRequestRetryStrategy;
import org.apache.hc.client5.http.async.AsyncExecCallback;
import org.apache.hc.client5.http.async.AsyncExecChain;
import org.apache.hc.client5.http.async.AsyncExecChainHandler;
import org.apache.hc.client5.http.impl.ChainElement;
import org.apache.hc.client5.http.impl.DefaultHttpRequestRetryStrategy;
import org.apache.hc.client5.http.impl.async.HttpAsyncClientBuilder;
import org.apache.hc.core5.http.HttpException;
import org.apache.hc.core5.http.HttpRequest;
import org.apache.hc.core5.http.nio.AsyncEntityProducer;
import org.jspecify.annotations.Nullable;

/**
 * An Apache HttpClient 5 {@link AsyncExecChainHandler} that paces every request of an
 * asynchronous {@code CloseableHttpAsyncClient} against the quota its servers advertise, and
 * retries requests the server throttled, without ever blocking a thread: every wait is a task of
 * the pacer's {@link dev.headway.Scheduler}. Works with HttpClient 5.6, HTTP/1.1 and HTTP/2.
 *
 * <pre>{@code
 * CloseableHttpAsyncClient client = RateLimitAsyncExecChainHandler.create(pacer)
 *     .addTo(HttpAsyncClients.custom())
 *     .build();
 * client.start();
 * }</pre>
 *
 * <p>For each request it does what {@link RateLimitExecChainHandler} does for the classic
 * client, asynchronously:
 *
 * <ol>
 *   <li>asks the {@link Pacer} for a permit; nothing is sent until it arrives. Every wait of a
 *       request comes out of one budget of {@link Builder#maxWait maxWait}. A first permit that
 *       needs a longer wait fails the request's future at once with {@link RateLimitedException},
 *       an {@link IOException}; nothing is sent;
 *   <li>sends the request down the chain and hands the response's status and headers (and, for a
 *       JSON 429, 503 or 403, the first bytes of its body that arrive within 100 ms, which the
 *       caller's consumer still receives) back to the pacer; a response that is not retried goes
 *       to the caller's consumer as it arrives;
 *   <li>if the server throttled the request (429, or 503 with {@code Retry-After}) and the pacer
 *       advises a retry whose delay fits the remaining budget, waits that delay, takes the retry's
 *       permit within what is left of the budget and sends again, up to
 *       {@link Builder#maxAttempts maxAttempts} attempts in all. If the retry's permit cannot be
 *       had in time, the throttled response goes to the caller after all. While it waits, a
 *       throttled body of at most 64 KiB is held in memory; the rest of a longer one stays on its
 *       connection, which is closed when the retry goes out. A request whose entity producer is
 *       not {@linkplain AsyncEntityProducer#isRepeatable() repeatable} is never sent twice; a
 *       repeatable one is rewound before it is sent again. A non-idempotent method is retried
 *       after a 429 but not after a 503, unless the pacer is built with
 *       {@link Pacer.Builder#retryNonIdempotentOn503}.
 * </ol>
 *
 * <p>Cancelling the request's future ends the call wherever it is: a wait for a permit or a
 * retry ends and sends nothing more, the permit held goes back, and an exchange in flight is
 * cancelled.
 *
 * <p>Closing a client built with {@link #addTo(HttpAsyncClientBuilder) addTo} ends its calls
 * still waiting for a permit or for a retry at once: their futures fail with the
 * {@link java.util.concurrent.CancellationException} ("Request execution cancelled") HttpClient 5
 * gives a call it drops on closing, nothing more is sent and their permits go back. A call
 * started on the closed client fails as it would without Headway. Other clients sharing the
 * handler are not affected. A handler added by hand ({@code addExecInterceptorBefore}) does not
 * know its client: its calls wait up to {@code maxWait} after the close.
 *
 * <p><b>Where it sits, and HttpClient's own retries.</b> As for the classic client,
 * {@link #addTo(HttpAsyncClientBuilder)} puts the handler just before HttpClient's protocol
 * element ({@link ChainElement#PROTOCOL}), inside its redirect and retry elements, so every
 * attempt HttpClient makes is paced; and it sets the builder's retry strategy to one that leaves
 * every 429 and 503 this handler returned, and every failure it raised itself, to Headway, and
 * asks HttpClient's {@link DefaultHttpRequestRetryStrategy} (or the strategy given to
 * {@link #addTo(HttpAsyncClientBuilder, HttpRequestRetryStrategy)}) about everything else. Call
 * {@code addTo} after any {@code setRetryStrategy} of your own, or pass your strategy to it.
 *
 * <p>A response Headway does not understand changes nothing: the request behaves as it would
 * without the handler.
 *
 * <p>Timeouts: a call held before the server answered anything on its partition (no response, no
 * error, no timeout: the probes of first contact hold the other callers back) goes out with
 * the response timeout of the call's {@code RequestConfig} less the time it was held (never below
 * 1 ms; the configuration is put back once the attempt is out): against a server that never
 * answers, it fails as soon as it would without Headway. Only a response timeout set in a
 * {@code RequestConfig} is shortened, not a connection manager's socket timeout. A wait after the
 * server answered (a spent window, a {@code Retry-After}) or for a declared limit leaves the
 * timeout whole: it is the wait {@code maxWait} allows.
 *
 * <p>Immutable and thread-safe; share one instance (and one pacer) across clients.
 */
public final class RateLimitAsyncExecChainHandler implements AsyncExecChainHandler {
  /** The name under which {@link #addTo(HttpAsyncClientBuilder)} adds the handler. */
  public static final String NAME = RateLimitExecChainHandler.NAME;

  /** The logger of Headway's own failures in this handler, which never fail a call. */
  static final String LOGGER = "dev.headway.httpclient5";

  private final Pacer pacer;
  private final Duration maxWait;
  private final int maxAttempts;

  private RateLimitAsyncExecChainHandler(Builder builder) {
    this.pacer = builder.pacer;
    this.maxWait = builder.limits.maxWait(pacer);
    this.maxAttempts = builder.limits.maxAttempts(pacer);
  }

  /**
   * Returns a handler with its own {@link Pacer#create() default pacer}.
   *
   * @return a new handler with a pacer of its own
   */
  public static RateLimitAsyncExecChainHandler create() {
    return create(Pacer.create());
  }

  /**
   * Returns a handler that paces with {@code pacer} and its defaults.
   *
   * @param pacer the pacer asked before every request; possibly shared with other clients
   * @return a new handler with the pacer's {@code maxWait} and {@code maxAttempts}
   */
  public static RateLimitAsyncExecChainHandler create(Pacer pacer) {
    return builder(pacer).build();
  }

  /**
   * Returns a builder for a handler that paces with {@code pacer}.
   *
   * @param pacer the pacer asked before every request; possibly shared with other clients
   * @return a new builder
   */
  public static Builder builder(Pacer pacer) {
    return new Builder(pacer);
  }

  /**
   * Adds this handler to {@code builder}, as the class describes, and sets its retry strategy to
   * HttpClient's {@link DefaultHttpRequestRetryStrategy#INSTANCE default} with what this handler
   * decided left out. Called twice on one builder, the handler added first paces each request and
   * the second lets it through: a request is paced once, with the first one's {@code maxWait} and
   * {@code maxAttempts}.
   *
   * <p>It also registers the built client's calls to end with it: when the client is closed, a
   * call waiting for a permit or for a retry fails at once, as the class describes.
   *
   * @param builder the builder of the client to pace
   * @return {@code builder}, for chaining
   */
  public HttpAsyncClientBuilder addTo(HttpAsyncClientBuilder builder) {
    return addTo(builder, DefaultHttpRequestRetryStrategy.INSTANCE);
  }

  /**
   * Adds this handler to {@code builder}, as the class describes, and sets its retry strategy to
   * {@code retryStrategy} with what this handler decided left out: it still decides failed sends
   * and every other response.
   *
   * <p>Like {@link #addTo(HttpAsyncClientBuilder)}, it registers the built client's calls to
   * end with it.
   *
   * @param builder the builder of the client to pace
   * @param retryStrategy the strategy for what Headway does not retry
   * @return {@code builder}, for chaining
   */
  public HttpAsyncClientBuilder addTo(HttpAsyncClientBuilder builder,
      HttpRequestRetryStrategy retryStrategy) {
    Objects.requireNonNull(retryStrategy, "retryStrategy must not be null");
    ClientCalls calls = ClientCalls.closeWith(builder);
    AsyncExecChainHandler element = calls == null ? this
        : (request, entityProducer, scope, chain, callback) ->
            execute(request, entityProducer, scope, chain, callback, calls);
    return builder.addExecInterceptorBefore(ChainElement.PROTOCOL.name(), NAME, element)
        .setRetryStrategy(new ThrottledLeftToHeadway(retryStrategy));
  }

  /**
   * Returns the pacer this handler asks; use it to inspect quotas.
   *
   * @return the pacer given at creation, or the handler's own
   */
  public Pacer pacer() {
    return pacer;
  }

  /**
   * Returns the longest a request may wait in all: for its permits and before its retries.
   *
   * @return the longest wait per request; positive
   */
  public Duration maxWait() {
    return maxWait;
  }

  /**
   * Returns the maximum number of attempts per request, the first included.
   *
   * @return the maximum attempts per request, at least 1
   */
  public int maxAttempts() {
    return maxAttempts;
  }

  /**
   * Paces, sends and, if throttled, retries the request; returns at once. The outcome reaches
   * {@code callback}: the response the caller gets, or a failure ({@link RateLimitedException}
   * if the first permit would need a wait past {@code maxWait}, an {@link IOException} if the
   * pacer is closed; nothing was sent then).
   */
  @Override
  public void execute(HttpRequest request, @Nullable AsyncEntityProducer entityProducer,
      AsyncExecChain.Scope scope, AsyncExecChain chain, AsyncExecCallback callback) {
    pace(request, entityProducer, scope, chain, callback);
  }

  /**
   * Executes the request as {@link #execute} does, for a client whose calls are {@code calls}:
   * once it is closed the request goes down the chain unpaced, to fail there as it would without
   * Headway, and a call still waiting when it closes ends at once.
   */
  private void execute(HttpRequest request, @Nullable AsyncEntityProducer entityProducer,
      AsyncExecChain.Scope scope, AsyncExecChain chain, AsyncExecCallback callback,
      ClientCalls calls) throws HttpException, IOException {
    if (calls.closed()) {
      chain.proceed(request, entityProducer, scope, callback);
      return;
    }
    calls.add(pace(request, entityProducer, scope, chain, callback));
  }

  private CompletableFuture<AttemptCallback> pace(HttpRequest request,
      @Nullable AsyncEntityProducer entityProducer, AsyncExecChain.Scope scope,
      AsyncExecChain chain, AsyncExecCallback callback) {
    CallCancellable cancellable = new CallCancellable();
    AsyncExecChain.Scope paced = new AsyncExecChain.Scope(scope.exchangeId, scope.route,
        scope.originalRequest, cancellable, scope.clientContext, scope.execRuntime,
        scope.scheduler, scope.execCount);
    scope.cancellableDependency.setDependency(cancellable);
    CompletableFuture<AttemptCallback> call = PacedExchange.runAsync(pacer, maxWait, maxAttempts,
        new AsyncHttpClient5Exchange(request, entityProducer, paced, chain, callback));
    cancellable.call(call);
    call.whenComplete((last, failure) -> {
      if (failure != null) {
        Exception cause = cause(failure);
        if (!(cause instanceof CancellationException)) {
          ThrottledLeftToHeadway.markDecided(scope.clientContext, cause);
        }
        callback.failed(cause);
      }
    });
    return call;
  }

  private static Exception cause(Throwable failure) {
    Throwable t = failure;
    while ((t instanceof CompletionException || t instanceof ExecutionException)
        && t.getCause() != null) {
      t = t.getCause();
    }
    return t instanceof Exception e ? e : new IOException(t);
  }

  /** Configures a {@link RateLimitAsyncExecChainHandler}. Not thread-safe. */
  public static final class Builder {
    private final Pacer pacer;
    private final CallLimits limits = new CallLimits();

    private Builder(Pacer pacer) {
      this.pacer = Objects.requireNonNull(pacer, "pacer must not be null");
    }

    /**
     * Sets the longest a request may wait in all: for its first permit, before each retry and
     * for each retry's permit, together. Default: the pacer's {@link Pacer#maxWait()}.
     *
     * @param maxWait the longest a request may wait in all; zero never waits
     * @return this builder
     * @throws IllegalArgumentException if negative
     */
    public Builder maxWait(Duration maxWait) {
      limits.maxWait(maxWait);
      return this;
    }

    /**
     * Sets the maximum number of attempts per request, the first included; 1 disables retries.
     * Default: the pacer's {@link Pacer#maxAttempts()}.
     *
     * @param maxAttempts the maximum attempts per request, the first included
     * @return this builder
     * @throws IllegalArgumentException if less than 1
     */
    public Builder maxAttempts(int maxAttempts) {
      limits.maxAttempts(maxAttempts);
      return this;
    }

    /**
     * Returns the handler.
     *
     * @return a new handler with this builder's settings
     */
    public RateLimitAsyncExecChainHandler build() {
      return new RateLimitAsyncExecChainHandler(this);
    }
  }
}
