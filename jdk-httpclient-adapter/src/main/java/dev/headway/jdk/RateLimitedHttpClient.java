package dev.headway.jdk;

import dev.headway.Pacer;
import dev.headway.RateLimitedException;
import dev.headway.internal.adapter.CallLimits;
import dev.headway.internal.adapter.PacedExchange;
import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.net.Authenticator;
import java.net.CookieHandler;
import java.net.ProxySelector;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublisher;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandler;
import java.net.http.HttpResponse.PushPromiseHandler;
import java.net.http.WebSocket;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import org.jspecify.annotations.Nullable;

/**
 * A {@link HttpClient} that paces its requests by the rate-limit signals of the responses: it
 * wraps another client, and every {@code send} and {@code sendAsync} first takes a permit from a
 * {@link Pacer}, hands the response's status and headers back to it, and retries a throttled
 * response when the pacer advises it. Code that accepts an {@code HttpClient} gets Headway without
 * a change at the call site.
 *
 * <pre>{@code
 * Pacer pacer = Pacer.create();
 * HttpClient client = RateLimitedHttpClient.wrap(HttpClient.newHttpClient(), pacer);
 * HttpResponse<String> response = client.send(
 *     HttpRequest.newBuilder(URI.create("https://api.github.com/rate_limit")).build(),
 *     HttpResponse.BodyHandlers.ofString());
 * }</pre>
 *
 * <h2>Sending</h2>
 *
 * <ul>
 *   <li>{@code send} waits for its permit on the calling thread through the pacer's
 *       {@link dev.headway.Scheduler}; an interrupt ends the wait at once, nothing is sent, and
 *       {@link InterruptedException} is thrown with the interrupt flag cleared, as
 *       {@code HttpClient.send} does.
 *   <li>{@code sendAsync} (both overloads) waits without a thread: the send starts from a task of
 *       the pacer's scheduler. Cancelling the returned future during the wait means nothing is
 *       sent. Retries wait on the same scheduler.
 *   <li>Every wait of a call (its first permit, each retry's delay, each retry's permit) comes
 *       out of one budget of {@link Builder#maxWait maxWait} (default: the pacer's), measured on
 *       the pacer's
 *       {@link dev.headway.Ticker}. A first permit that needs a longer wait fails the call at once
 *       with the pacer's {@link RateLimitedException} (an {@link IOException}); nothing is sent.
 *   <li>A throttled response (as {@link dev.headway.RateLimitSignal#throttled()} classifies it)
 *       is retried after {@link Pacer#retryDelay}, at most {@link Builder#maxAttempts maxAttempts}
 *       attempts in all (default: the pacer's), if the delay fits the remaining budget and the request body can be sent again (see
 *       below). The throttled response is kept until the retry's permit is in hand; if the permit
 *       cannot be had within the budget, that response is returned, never an exception. While
 *       the call waits, up to 64 KiB of its body are held in memory, and a longer body stays
 *       paused on its connection. The caller's body handler only ever sees the response that is
 *       returned.
 *   <li>Only requests whose body is absent or comes from {@code BodyPublishers.noBody},
 *       {@code ofString}, {@code ofByteArray} or {@code ofFile}, or is marked with
 *       {@link #replayable}, are retried; a body from {@code ofByteArrays} (its {@code Iterable}
 *       may hand out the same iterator twice), {@code ofInputStream}, {@code fromPublisher} or an
 *       application's own publisher may be one-shot, so such a throttled response is returned as
 *       it is.
 *   <li>The body of a response that may be retried and whose body the parser reads
 *       ({@link dev.headway.SignalParser#readsBody}: a JSON 403, 429 or 503) is held until the
 *       retry decision (at most 64 KiB; the parser reads the first
 *       {@link dev.headway.SignalParser#MAX_BODY_BYTES}), then dropped or replayed to the caller's
 *       subscriber in full. The body of a response that cannot be retried (last attempt,
 *       one-shot body) is not read for hints: the permit is completed from status and headers at
 *       once, so a caller that never reads the body leaves nothing in flight.
 *   <li>Push promises are passed to the caller's handler unpaced: the server sends them unasked.
 *       WebSockets ({@link #newWebSocketBuilder()}) are not paced.
 * </ul>
 *
 * <h2>Methods added after Java 17</h2>
 *
 * Headway targets Java 17, whose {@code HttpClient} has no {@code close}, {@code shutdown},
 * {@code shutdownNow}, {@code awaitTermination} or {@code isTerminated} (all Java 21). This class
 * declares them, without {@code @Override}, so that they compile on 17 and override the Java 21
 * methods when run there. Each one applies to this wrapper (after {@code shutdown} no new request
 * is accepted; {@code shutdownNow} also cancels the asynchronous calls still waiting for a permit)
 * and is then invoked on the delegate through a method handle if the delegate has it. This class
 * implements {@link AutoCloseable}, so try-with-resources works on Java 17 too.
 *
 * <p>Timeouts: a call held before the server answered anything on its partition (no response, no
 * error, no timeout: the probes of first contact hold the other callers back) is sent as a
 * copy of its request whose {@link HttpRequest#timeout() timeout} is less the time it was held
 * (never below 1 ms; {@code response.request()} is that copy): against a server that never
 * answers, it fails as soon as it would without Headway. A request with no timeout is sent as it
 * is. A wait after the server answered (a spent window, a {@code Retry-After}) or for a declared
 * limit leaves the timeout whole: it is the wait {@code maxWait} allows.
 *
 * <p>Thread-safe, like the client it wraps.
 */
public final class RateLimitedHttpClient extends HttpClient implements AutoCloseable {
  /** The logger of what this adapter caught and ignored. */
  static final String LOGGER = "dev.headway.jdk";
  private final HttpClient delegate;
  private final Pacer pacer;
  private final LaterMethods later;
  private final Set<CompletableFuture<?>> pending = ConcurrentHashMap.newKeySet();
  private final AtomicInteger syncCalls = new AtomicInteger();
  private final CompletableFuture<Void> idleAfterShutdown = new CompletableFuture<>();
  private volatile boolean shutdown;

  private final Duration maxWait;
  private final int maxAttempts;

  private RateLimitedHttpClient(Builder builder) {
    this.delegate = builder.delegate;
    this.pacer = builder.pacer;
    this.maxWait = builder.limits.maxWait(pacer);
    this.maxAttempts = builder.limits.maxAttempts(pacer);
    this.later = new LaterMethods(delegate.getClass());
  }

  /**
   * Returns a client that sends through {@code delegate}, paced by a pacer of its own with
   * {@link Pacer#create()}'s defaults. Prefer {@link #wrap(HttpClient, Pacer)} with one pacer per
   * application when several clients call the same APIs.
   *
   * @param delegate the client requests are sent through
   * @return a new client with a pacer of its own
   */
  public static RateLimitedHttpClient wrap(HttpClient delegate) {
    return wrap(delegate, Pacer.create());
  }

  /**
   * Returns a client that sends through {@code delegate}, paced by {@code pacer}. A
   * {@code delegate} that is itself a {@code RateLimitedHttpClient} (a paced client handed to code
   * that wraps what it is given) lets through the requests the new client paces, on the calling
   * thread: a request is paced once, by the outer client, with its pacer, {@code maxWait} and
   * {@code maxAttempts}.
   *
   * @param delegate the client requests are sent through
   * @param pacer the pacer asked before every request; possibly shared with other clients
   * @return a new client
   */
  public static RateLimitedHttpClient wrap(HttpClient delegate, Pacer pacer) {
    return builder(delegate, pacer).build();
  }

  /**
   * Returns a builder for a client that sends through {@code delegate}, paced by {@code pacer},
   * with limits of its own for each call ({@code maxWait}, {@code maxAttempts}).
   *
   * <pre>{@code
   * HttpClient client = RateLimitedHttpClient.builder(HttpClient.newHttpClient(), pacer)
   *     .maxWait(Duration.ofSeconds(2))
   *     .build();
   * }</pre>
   *
   * @param delegate the client requests are sent through
   * @param pacer the pacer asked before every request; possibly shared with other clients
   * @return a new builder
   */
  public static Builder builder(HttpClient delegate, Pacer pacer) {
    return new Builder(delegate, pacer);
  }

  /**
   * Marks a request body publisher as replayable: the application promises that it publishes the
   * same bytes on every subscription, so a throttled request with this body may be retried. Use
   * it for a publisher of the application's own, or for {@code BodyPublishers.ofByteArrays} over
   * a collection (whose iterator starts afresh each time), which are otherwise never retried.
   *
   * <pre>{@code
   * HttpRequest request = HttpRequest.newBuilder(uri)
   *     .POST(RateLimitedHttpClient.replayable(BodyPublishers.ofByteArrays(chunks)))
   *     .build();
   * }</pre>
   *
   * @param publisher a publisher that publishes the same bytes on every subscription
   * @return a publisher that publishes what {@code publisher} does, with the same length
   */
  public static BodyPublisher replayable(BodyPublisher publisher) {
    return new ReplayablePublisher(Objects.requireNonNull(publisher, "publisher must not be null"));
  }

  /**
   * Returns the pacer this client asks before every request.
   *
   * @return the pacer given to {@link #wrap(HttpClient, Pacer)} or {@link #builder}, or the
   *     client's own
   */
  public Pacer pacer() {
    return pacer;
  }

  /**
   * Returns the longest a call may wait in all: for its permits and before its retries.
   *
   * @return the longest wait per call; zero never waits
   */
  public Duration maxWait() {
    return maxWait;
  }

  /**
   * Returns the maximum number of attempts per call, the first included.
   *
   * @return the maximum attempts per call, at least 1
   */
  public int maxAttempts() {
    return maxAttempts;
  }

  /**
   * Returns the client requests are sent through.
   *
   * @return the wrapped client
   */
  public HttpClient delegate() {
    return delegate;
  }

  /** Returns the delegate's cookie handler. */
  @Override
  public Optional<CookieHandler> cookieHandler() {
    return delegate.cookieHandler();
  }

  /** Returns the delegate's connect timeout. */
  @Override
  public Optional<Duration> connectTimeout() {
    return delegate.connectTimeout();
  }

  /** Returns the delegate's redirect policy. */
  @Override
  public Redirect followRedirects() {
    return delegate.followRedirects();
  }

  /** Returns the delegate's proxy selector. */
  @Override
  public Optional<ProxySelector> proxy() {
    return delegate.proxy();
  }

  /** Returns the delegate's SSL context. */
  @Override
  public SSLContext sslContext() {
    return delegate.sslContext();
  }

  /** Returns the delegate's SSL parameters. */
  @Override
  public SSLParameters sslParameters() {
    return delegate.sslParameters();
  }

  /** Returns the delegate's authenticator. */
  @Override
  public Optional<Authenticator> authenticator() {
    return delegate.authenticator();
  }

  /** Returns the delegate's preferred HTTP version. */
  @Override
  public Version version() {
    return delegate.version();
  }

  /** Returns the delegate's executor. */
  @Override
  public Optional<Executor> executor() {
    return delegate.executor();
  }

  /** Returns the delegate's WebSocket builder; WebSocket handshakes are not paced. */
  @Override
  public WebSocket.Builder newWebSocketBuilder() {
    return delegate.newWebSocketBuilder();
  }

  /**
   * Sends {@code request} once the pacer allows it, retrying a throttled response as described
   * on the class, and returns the final response.
   *
   * @throws RateLimitedException if a wait would exceed what is left of the pacer's
   *     {@code maxWait}; that request was not sent
   * @throws InterruptedException if interrupted, while waiting (nothing is sent) or sending; the
   *     interrupt flag is cleared, as {@code HttpClient.send} leaves it
   * @throws IOException if the delegate fails to send, or this client was shut down
   */
  @Override
  public <T> HttpResponse<T> send(HttpRequest request, BodyHandler<T> responseBodyHandler)
      throws IOException, InterruptedException {
    Objects.requireNonNull(request, "request must not be null");
    Objects.requireNonNull(responseBodyHandler, "responseBodyHandler must not be null");
    // Register first, then look at the flag: a shutdown that does not see this call is seen
    // by it (both are volatile), so a call is never accepted after the client is idle.
    syncCalls.incrementAndGet();
    try {
      checkOpen();
      return sendPaced(request, responseBodyHandler);
    } catch (InterruptedException e) {
      Thread.interrupted(); // HttpClient.send throws with the flag cleared; Pacer.acquire sets it
      throw e;
    } finally {
      syncCalls.decrementAndGet();
      checkIdle();
    }
  }

  private <T> HttpResponse<T> sendPaced(HttpRequest request, BodyHandler<T> handler)
      throws IOException, InterruptedException {
    return PacedExchange.run(pacer, maxWait, maxAttempts,
        new PacedSend<>(delegate, request, handler)).response();
  }

  /**
   * Sends {@code request} asynchronously once the pacer allows it; no thread waits meanwhile.
   * Cancelling the returned future while it waits means the request is never sent.
   *
   * @return a future completed with the final response, or exceptionally with
   *     {@link RateLimitedException} past {@code maxWait}, or with the delegate's failure
   */
  @Override
  public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request,
      BodyHandler<T> responseBodyHandler) {
    return sendAsyncPaced(request, responseBodyHandler, null);
  }

  /**
   * As {@link #sendAsync(HttpRequest, BodyHandler)}, with a handler for the server's push
   * promises. Pushed responses reach {@code pushPromiseHandler} unpaced.
   */
  @Override
  public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request,
      BodyHandler<T> responseBodyHandler, PushPromiseHandler<T> pushPromiseHandler) {
    return sendAsyncPaced(request, responseBodyHandler,
        Objects.requireNonNull(pushPromiseHandler, "pushPromiseHandler must not be null"));
  }

  private <T> CompletableFuture<HttpResponse<T>> sendAsyncPaced(HttpRequest request,
      BodyHandler<T> handler, @Nullable PushPromiseHandler<T> pushPromiseHandler) {
    Objects.requireNonNull(request, "request must not be null");
    Objects.requireNonNull(handler, "responseBodyHandler must not be null");
    CompletableFuture<HttpResponse<T>> result = new CompletableFuture<>();
    // Register first, then look at the flag (see send).
    pending.add(result);
    result.whenComplete((response, failure) -> {
      pending.remove(result);
      checkIdle();
    });
    if (shutdown) {
      result.completeExceptionally(new IOException("client is shut down"));
      return result;
    }
    CompletableFuture<Outcome<T>> call;
    try {
      call = PacedExchange.runAsync(pacer, maxWait, maxAttempts,
          new PacedSendAsync<>(delegate, request, handler, pushPromiseHandler));
    } catch (RuntimeException | Error e) {
      result.completeExceptionally(e); // thrown by the delegate's sendAsync, as it would be
      return result;
    }
    follow(call, result);
    return result;
  }

  private static <T> void follow(CompletableFuture<Outcome<T>> call,
      CompletableFuture<HttpResponse<T>> result) {
    call.whenComplete((outcome, failure) -> {
      if (failure != null) {
        result.completeExceptionally(failure);
      } else {
        result.complete(outcome.response());
      }
    });
    // Cancelled, or completed by the caller (complete, completeTimeout, obtrude...): the call
    // stops, and whatever permit it holds goes back.
    result.whenComplete((response, failure) -> {
      if (!call.isDone()) {
        call.cancel(true);
      }
    });
  }

  /**
   * Stops accepting requests: later calls fail with {@link IOException}; calls already started
   * go on. Then calls the delegate's {@code shutdown()} if it has one (Java 21).
   */
  public void shutdown() {
    shutdown = true;
    checkIdle();
    later.shutdown.ifPresent(h -> LaterMethods.invokeVoid(h, delegate));
  }

  /**
   * As {@link #shutdown()}, and also cancels the asynchronous calls of this client still pending
   * (a call waiting for a permit sends nothing); then calls the delegate's {@code shutdownNow()}
   * if it has one (Java 21). Synchronous callers waiting for a permit are not interrupted.
   */
  public void shutdownNow() {
    shutdown = true;
    for (CompletableFuture<?> call : pending) {
      call.cancel(true);
    }
    checkIdle();
    later.shutdownNow.ifPresent(h -> LaterMethods.invokeVoid(h, delegate));
  }

  /**
   * Returns whether this client was shut down and no call of it is still running, and the
   * delegate, if it can tell (Java 21), is terminated too.
   *
   * @return true once terminated
   */
  public boolean isTerminated() {
    return idleAfterShutdown.isDone()
        && later.isTerminated.map(h -> LaterMethods.invokeBoolean(h, delegate)).orElse(true);
  }

  /**
   * Waits up to {@code duration} (timed by the pacer's scheduler) until {@link #isTerminated()}.
   *
   * @param duration the longest to wait
   * @return whether the client terminated in time
   * @throws InterruptedException if interrupted while waiting
   */
  public boolean awaitTermination(Duration duration) throws InterruptedException {
    Objects.requireNonNull(duration, "duration must not be null");
    long start = pacer.ticker().read();
    if (!awaitIdle(duration)) {
      return false;
    }
    Optional<MethodHandle> await = later.awaitTermination;
    if (await.isEmpty()) {
      return true;
    }
    Duration left = duration.minusNanos(pacer.ticker().read() - start);
    return LaterMethods.invokeAwait(await.get(), delegate,
        left.isNegative() ? Duration.ZERO : left);
  }

  /**
   * Stops accepting requests and waits until this client's calls have finished; if interrupted
   * meanwhile, calls {@link #shutdownNow()} and sets the interrupt flag again. Then closes the
   * delegate if it has a {@code close()} (Java 21; it shuts itself down and waits for its own
   * exchanges). Idempotent.
   */
  @Override
  public void close() {
    shutdown = true;
    checkIdle();
    try {
      while (!awaitIdle(Duration.ofDays(1))) {
        // Calls are still running: keep waiting, as HttpClient.close does.
      }
    } catch (InterruptedException e) {
      shutdownNow();
      Thread.currentThread().interrupt();
    }
    later.close.ifPresent(h -> LaterMethods.invokeVoid(h, delegate));
  }

  private boolean awaitIdle(Duration duration) throws InterruptedException {
    if (idleAfterShutdown.isDone()) {
      return true;
    }
    CompletableFuture<Boolean> outcome = new CompletableFuture<>();
    idleAfterShutdown.thenRun(() -> outcome.complete(true));
    java.util.concurrent.Future<?> timer =
        pacer.scheduler().schedule(() -> outcome.complete(false), duration);
    try {
      return outcome.get();
    } catch (java.util.concurrent.ExecutionException e) {
      throw new IllegalStateException(e.getCause());
    } finally {
      timer.cancel(false);
    }
  }

  private void checkOpen() throws IOException {
    if (shutdown) {
      throw new IOException("client is shut down");
    }
  }

  private void checkIdle() {
    if (shutdown && pending.isEmpty() && syncCalls.get() == 0) {
      idleAfterShutdown.complete(null);
    }
  }

  /** Returns a description naming the delegate and the pacer. */
  @Override
  public String toString() {
    return "RateLimitedHttpClient[" + delegate + "]";
  }

  /** Configures a {@link RateLimitedHttpClient}. Not thread-safe. */
  public static final class Builder {
    private final HttpClient delegate;
    private final Pacer pacer;
    private final CallLimits limits = new CallLimits();

    private Builder(HttpClient delegate, Pacer pacer) {
      this.delegate = Objects.requireNonNull(delegate, "delegate must not be null");
      this.pacer = Objects.requireNonNull(pacer, "pacer must not be null");
    }

    /**
     * Sets the longest a call may wait in all: for its first permit, before each retry and for
     * each retry's permit, together. Default: the pacer's {@link Pacer#maxWait()}. A first permit
     * that needs a longer wait fails the call at once with {@link RateLimitedException}; a retry
     * that would not fit returns the throttled response instead. Zero never waits: a call with no
     * permit to be had at once fails at once, nothing sent.
     *
     * @param maxWait the longest a call may wait in all; zero or more
     * @return this builder
     * @throws IllegalArgumentException if negative
     */
    public Builder maxWait(Duration maxWait) {
      limits.maxWait(maxWait);
      return this;
    }

    /**
     * Sets the maximum number of attempts per call, the first included; 1 disables retries.
     * Default: the pacer's {@link Pacer#maxAttempts()}. The pacer's retry advice applies its own
     * budget too, so the lower of the two decides.
     *
     * @param maxAttempts the maximum attempts per call, the first included
     * @return this builder
     * @throws IllegalArgumentException if less than 1
     */
    public Builder maxAttempts(int maxAttempts) {
      limits.maxAttempts(maxAttempts);
      return this;
    }

    /**
     * Returns the client.
     *
     * @return a new client sending through the delegate, paced by the pacer
     */
    public RateLimitedHttpClient build() {
      return new RateLimitedHttpClient(this);
    }
  }
}
