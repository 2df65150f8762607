package dev.headway.okhttp;

import dev.headway.Pacer;
import dev.headway.RateLimitedException;
import dev.headway.internal.adapter.PacedExchange;
import dev.headway.internal.adapter.CallLimits;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.Objects;
import okhttp3.Interceptor;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;

/**
 * An OkHttp {@link Interceptor} that paces every call of a client against the quota its servers
 * advertise, and retries calls the server throttled. Works with OkHttp 4.12 and 5.x, and so with
 * Retrofit.
 *
 * <pre>{@code
 * OkHttpClient client = new OkHttpClient.Builder()
 *     .addInterceptor(RateLimitInterceptor.create())
 *     .build();
 * }</pre>
 *
 * <p>For each call it:
 *
 * <ol>
 *   <li>asks the {@link Pacer} for a {@link dev.headway.Permit}, waiting as long as the pacer says. Every
 *       wait of a call (this permit, each retry's delay, each retry's permit) comes out of one
 *       budget of {@link Builder#maxWait maxWait}, measured on the pacer's
 *       {@link dev.headway.Ticker}. A first permit that needs a longer wait fails the call at once
 *       with {@link RateLimitedException}, an {@link IOException}. Nothing is sent while waiting.
 *       The wait ends within 20 ms when the call is cancelled or its call timeout fires, and at
 *       once when the thread is interrupted ({@link InterruptedIOException}, flag restored);
 *   <li>sends the request and hands the response's status and headers (and, for a JSON 429, 503
 *       or 403, the first bytes of its body that arrive within 100 ms, peeked, not consumed) back
 *       to the pacer; if sending fails, the permit is released;
 *   <li>if the server throttled the call (429, or 503 with {@code Retry-After}) and the pacer
 *       advises a retry whose delay fits the remaining budget, waits that delay on the pacer's
 *       {@link dev.headway.Scheduler}, then takes the retry's permit within what is left of the
 *       budget, and only then closes the throttled response and sends again, up to
 *       {@link Builder#maxAttempts maxAttempts} attempts in all. If the retry's permit cannot be
 *       had in time, the throttled response is returned as is: a retry never turns a 429 into an
 *       exception. While it waits, a throttled body of at most 64 KiB is held in memory (its
 *       connection is freed); a longer one stays unread on its connection. A request with a
 *       one-shot or duplex body is never retried; a non-idempotent method is retried after a 429
 *       (the server did not process it) but not after a 503, unless the pacer is built with
 *       {@link Pacer.Builder#retryNonIdempotentOn503}.
 * </ol>
 *
 * <p>Timeouts: a call held before the server answered anything on its partition (no response, no
 * error, no timeout: the probes of first contact hold the other callers back) is sent with
 * the chain's read timeout less the time it was held (never below 1 ms): against a server that
 * never answers, it fails as soon as it would without Headway. A wait after the server answered
 * (a spent window, a {@code Retry-After}) or for a declared limit leaves the read timeout whole:
 * it is the wait {@code maxWait} allows. The call timeout already counts from the call. As a
 * network interceptor no timeout is changed (OkHttp does not let one).
 *
 * <p>A request with {@code Cache-Control: only-if-cached} never reaches the network and is not
 * paced. Other requests are paced even if the {@link okhttp3.Cache} answers them: see
 * {@code docs/okhttp.md}.
 *
 * <p>Add it with {@link OkHttpClient.Builder#addInterceptor} (an application interceptor): it then
 * sees each call once, before redirects and OkHttp's own retries, and a wait happens once per call.
 * See {@code docs/okhttp.md} for what changes as a network interceptor, and for how a wait
 * occupies a dispatcher thread with {@code enqueue}. Added twice to one client (a client made
 * with {@code newBuilder()} from one that has it, adding it again), or under another adapter of
 * Headway's (a Feign client over OkHttp), the outer one paces each call and the inner one lets the
 * same request (method and URL) through on the same thread: a call is paced once, with the outer
 * one's {@code maxWait} and {@code maxAttempts}. Another request sent from within the chain (a
 * token fetch) is paced on its own.
 *
 * <p>A response Headway does not understand changes nothing: the call behaves as it would
 * without the interceptor.
 *
 * <p>Immutable and thread-safe; share one instance (and one pacer) across clients.
 */
public final class RateLimitInterceptor implements Interceptor {
  /** The logger of what this adapter caught and ignored. */
  static final String LOGGER = "dev.headway.okhttp";
  private final Pacer pacer;
  private final Duration maxWait;
  private final int maxAttempts;
  private final RecentUris uris = new RecentUris();

  private RateLimitInterceptor(Builder builder) {
    this.pacer = builder.pacer;
    this.maxWait = builder.limits.maxWait(pacer);
    this.maxAttempts = builder.limits.maxAttempts(pacer);
  }

  /**
   * Returns an interceptor with its own {@link Pacer#create() default pacer}.
   *
   * @return a new interceptor with a pacer of its own
   */
  public static RateLimitInterceptor create() {
    return create(Pacer.create());
  }

  /**
   * Returns an interceptor that paces with {@code pacer} and its defaults.
   *
   * @param pacer the pacer asked before every call; possibly shared with other clients
   * @return a new interceptor with the pacer's {@code maxWait} and {@code maxAttempts}
   */
  public static RateLimitInterceptor create(Pacer pacer) {
    return builder(pacer).build();
  }

  /**
   * Returns a builder for an interceptor that paces with {@code pacer}.
   *
   * @param pacer the pacer asked before every call; possibly shared with other clients
   * @return a new builder
   */
  public static Builder builder(Pacer pacer) {
    return new Builder(pacer);
  }

  /**
   * Returns the pacer this interceptor asks; use it to inspect quotas.
   *
   * @return the pacer given at creation, or the interceptor's own
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
   * Paces, sends and, if throttled, retries the chain's request.
   *
   * @throws RateLimitedException if the first permit would need a wait past {@code maxWait};
   *     nothing was sent (a retry never fails this way: the throttled response is returned)
   * @throws InterruptedIOException if the thread was interrupted while waiting
   * @throws IOException "Canceled" if the call was cancelled while waiting, or whatever
   *     {@code proceed} throws; at once, and nothing sent, if this interceptor was added as a
   *     network interceptor with more than one attempt
   */
  @Override
  public Response intercept(Chain chain) throws IOException {
    Request request = chain.request();
    if (request.cacheControl().onlyIfCached()) {
      return chain.proceed(request); // Never reaches the network: nothing to pace.
    }
    if (maxAttempts > 1 && chain.connection() != null) {
      throw new IOException("Headway: RateLimitInterceptor was added with"
          + " addNetworkInterceptor, where OkHttp lets an interceptor send a request only once, so"
          + " it cannot retry throttled responses: add it with addInterceptor (recommended), or"
          + " build it with maxAttempts(1) to pace each network request without retries");
    }
    try {
      return PacedExchange.run(pacer, maxWait, maxAttempts, new OkHttpExchange(chain, uris));
    } catch (InterruptedException e) {
      // OkHttpExchange's waits throw InterruptedIOException; a client that threw this anyway:
      Thread.currentThread().interrupt();
      InterruptedIOException interrupted = new InterruptedIOException(e.getMessage());
      interrupted.initCause(e);
      throw interrupted;
    }
  }

  /** Configures a {@link RateLimitInterceptor}. Not thread-safe. */
  public static final class Builder {
    private final Pacer pacer;
    private final CallLimits limits = new CallLimits();

    private Builder(Pacer pacer) {
      this.pacer = Objects.requireNonNull(pacer, "pacer must not be null");
    }

    /**
     * Sets the longest a call may wait in all: for its first permit, before each retry and for
     * each retry's permit, together. Default: the pacer's {@link Pacer#maxWait()}. A first permit
     * that needs a longer wait fails the call at once with {@link RateLimitedException}; a retry
     * that would not fit returns the throttled response instead.
     *
     * @param maxWait the longest a call may wait in all; zero never waits
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
     * Returns the interceptor.
     *
     * @return a new interceptor with this builder's settings
     */
    public RateLimitInterceptor build() {
      return new RateLimitInterceptor(this);
    }
  }
}
