package dev.headway.httpclient5;

import dev.headway.Pacer;
import dev.headway.RateLimitedException;
import dev.headway.internal.adapter.CallLimits;
import dev.headway.internal.adapter.PacedExchange;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.Objects;
import org.apache.hc.client5.http.HttpRequestRetryStrategy;
import org.apache.hc.client5.http.classic.ExecChain;
import org.apache.hc.client5.http.classic.ExecChainHandler;
import org.apache.hc.client5.http.impl.ChainElement;
import org.apache.hc.client5.http.impl.DefaultHttpRequestRetryStrategy;
import org.apache.hc.client5.http.impl.classic.HttpClientBuilder;
import org.apache.hc.core5.http.ClassicHttpRequest;
import org.apache.hc.core5.http.ClassicHttpResponse;
import org.apache.hc.core5.http.HttpException;

/**
 * An Apache HttpClient 5 {@link ExecChainHandler} that paces every request of a classic
 * {@code CloseableHttpClient} against the quota its servers advertise, and retries requests the
 * server throttled. Works with HttpClient 5.6 and its pooling connection manager.
 *
 * <pre>{@code
 * CloseableHttpClient client = RateLimitExecChainHandler.create(pacer)
 *     .addTo(HttpClients.custom())
 *     .build();
 * }</pre>
 *
 * <p>For each request it:
 *
 * <ol>
 *   <li>asks the {@link Pacer} for a permit, waiting on the calling thread as long as the pacer
 *       says. Every wait of a request (this permit, each retry's delay, each retry's permit) comes
 *       out of one budget of {@link Builder#maxWait maxWait}, measured on the pacer's
 *       {@link dev.headway.Ticker}. A first permit that needs a longer wait fails at once with
 *       {@link RateLimitedException}, an {@link IOException}; nothing is sent. An interrupt ends
 *       the wait with an {@link InterruptedIOException}, the flag restored;
 *   <li>sends the request down the chain and hands the response's status and headers (and, for a
 *       JSON 429, 503 or 403, the first bytes of its body that arrive within 100 ms, which the
 *       caller still reads in full) back to the pacer; if sending fails, the permit is released;
 *   <li>if the server throttled the request (429, or 503 with {@code Retry-After}) and the pacer
 *       advises a retry whose delay fits the remaining budget, waits that delay on the pacer's
 *       {@link dev.headway.Scheduler}, takes the retry's permit within what is left of the budget
 *       and sends again, up to {@link Builder#maxAttempts maxAttempts} attempts in all. If the
 *       retry's permit cannot be had in time, the throttled response is returned as is: a retry
 *       never turns a 429 into an exception. While it waits, a throttled body of at most 64 KiB
 *       is held in memory and its connection goes back to the pool; a longer one stays unread on
 *       its connection, which is closed when the retry goes out. A request whose entity is not
 *       repeatable is never sent twice; a non-idempotent method is retried after a 429 (the
 *       server did not process it) but not after a 503, unless the pacer is built with
 *       {@link Pacer.Builder#retryNonIdempotentOn503}.
 * </ol>
 *
 * <p><b>Where it sits, and HttpClient's own retries.</b> {@link #addTo(HttpClientBuilder)} puts
 * the handler just before HttpClient's protocol element ({@link ChainElement#PROTOCOL}), which is
 * inside its redirect, retry and cache elements: every attempt HttpClient makes (a redirect's
 * request, a retry after an I/O failure) is paced, and a response served from HttpClient's cache
 * is not. HttpClient's {@link HttpRequestRetryStrategy} retries 429 and 503 responses itself by
 * default, after their {@code Retry-After}; left alone it would retry a throttled response that
 * Headway already retried or gave up on, and wait for it a second time. So {@code addTo} also
 * sets the builder's retry strategy to one that leaves every 429 and 503 this handler returned to
 * Headway and asks HttpClient's {@link DefaultHttpRequestRetryStrategy} (or the strategy given to
 * {@link #addTo(HttpClientBuilder, HttpRequestRetryStrategy)}) about everything else: I/O failures
 * and other statuses. Call {@code addTo} after any {@code setRetryStrategy} of your own, or pass
 * your strategy to it. Between the handler and the connection are HttpClient's protocol
 * interceptors (default headers, cookies, authentication), whose headers the pacer therefore does
 * not see, and content decompression is outside it: the body of a compressed throttled response
 * is not read for hints (its headers are).
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
public final class RateLimitExecChainHandler implements ExecChainHandler {
  /** The name under which {@link #addTo(HttpClientBuilder)} adds the handler to the chain. */
  public static final String NAME = "headway";

  private final Pacer pacer;
  private final Duration maxWait;
  private final int maxAttempts;

  private RateLimitExecChainHandler(Builder builder) {
    this.pacer = builder.pacer;
    this.maxWait = builder.limits.maxWait(pacer);
    this.maxAttempts = builder.limits.maxAttempts(pacer);
  }

  /**
   * Returns a handler with its own {@link Pacer#create() default pacer}.
   *
   * @return a new handler with a pacer of its own
   */
  public static RateLimitExecChainHandler create() {
    return create(Pacer.create());
  }

  /**
   * Returns a handler that paces with {@code pacer} and its defaults.
   *
   * @param pacer the pacer asked before every request; possibly shared with other clients
   * @return a new handler with the pacer's {@code maxWait} and {@code maxAttempts}
   */
  public static RateLimitExecChainHandler create(Pacer pacer) {
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
   * HttpClient's {@link DefaultHttpRequestRetryStrategy#INSTANCE default} with the throttled
   * responses this handler decided left out. Called twice on one builder (two pieces of
   * configuration that each add Headway), the handler added first paces each request and the
   * second lets it through: a request is paced once, with the first one's {@code maxWait} and
   * {@code maxAttempts}.
   *
   * @param builder the builder of the client to pace
   * @return {@code builder}, for chaining
   */
  public HttpClientBuilder addTo(HttpClientBuilder builder) {
    return addTo(builder, DefaultHttpRequestRetryStrategy.INSTANCE);
  }

  /**
   * Adds this handler to {@code builder}, as the class describes, and sets its retry strategy to
   * {@code retryStrategy} with the throttled responses this handler decided left out: it still
   * decides failed sends and every other response.
   *
   * @param builder the builder of the client to pace
   * @param retryStrategy the strategy for what Headway does not retry
   * @return {@code builder}, for chaining
   */
  public HttpClientBuilder addTo(HttpClientBuilder builder,
      HttpRequestRetryStrategy retryStrategy) {
    Objects.requireNonNull(retryStrategy, "retryStrategy must not be null");
    return builder.addExecInterceptorBefore(ChainElement.PROTOCOL.name(), NAME, this)
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
   * Paces, sends and, if throttled, retries the request.
   *
   * @throws RateLimitedException if the first permit would need a wait past {@code maxWait};
   *     nothing was sent
   * @throws InterruptedIOException if the thread was interrupted while waiting; the flag is set
   * @throws IOException whatever the chain throws; if the pacer is closed (nothing was sent)
   * @throws HttpException whatever the chain throws
   */
  @Override
  public ClassicHttpResponse execute(ClassicHttpRequest request, ExecChain.Scope scope,
      ExecChain chain) throws IOException, HttpException {
    HttpClient5Exchange exchange = new HttpClient5Exchange(request, scope, chain);
    ClassicHttpResponse response;
    try {
      response = PacedExchange.run(pacer, maxWait, maxAttempts, exchange);
    } catch (HttpClient5Exchange.TunneledHttpException e) {
      throw e.original();
    } catch (RateLimitedException e) {
      ThrottledLeftToHeadway.markDecided(scope.clientContext, e); // not HttpClient's to retry
      throw e;
    } catch (IOException e) {
      if (!exchange.wentOut()) {
        ThrottledLeftToHeadway.markDecided(scope.clientContext, e); // a closed pacer
      }
      throw e;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      InterruptedIOException interrupted =
          new InterruptedIOException("interrupted while waiting for quota");
      interrupted.initCause(e);
      throw interrupted;
    }
    if (exchange.paced()) {
      ThrottledLeftToHeadway.markDecided(scope.clientContext, response);
    }
    return response;
  }

  /** Configures a {@link RateLimitExecChainHandler}. Not thread-safe. */
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
    public RateLimitExecChainHandler build() {
      return new RateLimitExecChainHandler(this);
    }
  }
}
