package dev.headway.spring;

import dev.headway.Pacer;
import dev.headway.RateLimitedException;
import dev.headway.internal.adapter.CallLimits;
import dev.headway.internal.adapter.PacedExchange;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.Objects;
import org.springframework.http.HttpRequest;
import org.springframework.http.client.ClientHttpRequestExecution;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.http.client.ClientHttpResponse;

/**
 * A Spring {@link ClientHttpRequestInterceptor} that paces every request of a
 * {@code RestClient} or {@code RestTemplate} against the quota its servers advertise, and retries
 * requests the server throttled. Works with Spring Framework 6.1 and later, 7 included (Spring
 * Boot 3.2+ and 4).
 *
 * <pre>{@code
 * RestClient client = RestClient.builder()
 *     .requestInterceptor(RateLimitClientHttpRequestInterceptor.create(pacer))
 *     .build();
 * }</pre>
 *
 * <p>For each request it:
 *
 * <ol>
 *   <li>asks the {@link Pacer} for a permit, waiting on the calling thread as long as the
 *       pacer says. Every wait of a request (this permit, each retry's delay, each retry's permit)
 *       comes out of one budget of {@link Builder#maxWait maxWait}, measured on the pacer's
 *       {@link dev.headway.Ticker}. A first permit that needs a longer wait fails at once with
 *       {@link RateLimitedException}, an {@link IOException} (Spring wraps it in a
 *       {@code ResourceAccessException}); nothing is sent. An interrupt ends the wait with an
 *       {@link InterruptedIOException}, the flag restored;
 *   <li>sends the request and hands the response's status and headers (and, for a response whose
 *       body the parser reads, a JSON 429, 503 or 403, its first bytes as they arrive within
 *       100 ms, which the caller still reads in full) back to the pacer; if sending fails, the permit is released;
 *   <li>if the server throttled the request (429, or 503 with {@code Retry-After}) and the pacer
 *       advises a retry whose delay fits the remaining budget, waits that delay on the pacer's
 *       {@link dev.headway.Scheduler}, takes the retry's permit within what is left of the budget
 *       and sends again, up to {@link Builder#maxAttempts maxAttempts} attempts in all. If the
 *       retry's permit cannot be had in time, the throttled response is returned as is: a retry
 *       never turns a 429 into an exception. While it waits, a throttled body of at most 64 KiB
 *       is held in memory and its connection released. A non-idempotent method is retried after a
 *       429 (the server did not process it) but not after a 503, unless the pacer is built with
 *       {@link Pacer.Builder#retryNonIdempotentOn503}.
 * </ol>
 *
 * <p>Register it once per client, <em>after</em> any other interceptor (authentication, tracing):
 * Spring runs the interceptors registered after this one only for the first attempt, so the
 * last place is the one where a retry sends exactly what the first attempt sent. A
 * response Headway does not understand changes nothing: the request behaves as it would without
 * the interceptor. Registered twice on one client (the Spring Boot starter's and one of the
 * application's), or over a request factory whose client paces too (a
 * {@code JdkClientHttpRequestFactory} on a {@code RateLimitedHttpClient}, an
 * {@code HttpComponentsClientHttpRequestFactory} on a client with Headway's HttpClient 5 handler),
 * the outer one paces each request and the inner one lets the same request (method and URI)
 * through on the calling thread: a request is paced once, with the outer one's {@code maxWait}
 * and {@code maxAttempts}. Another request sent from within the chain (a token fetch) is paced
 * on its own. The alternative route, for a {@code JdkClientHttpRequestFactory}, is to give it a
 * {@code RateLimitedHttpClient} (module {@code jdk-httpclient-adapter}) alone.
 *
 * <p>Timeouts: the read timeout lives in the request factory, which an interceptor cannot reach.
 * A call held before the server answered anything on its partition (the probes of first contact
 * hold the other callers back, at most 550 ms) is sent with its whole timeout: against a server
 * that never answers, it fails up to that long after it would without Headway. (The OkHttp, JDK,
 * HttpClient 5 and Feign adapters take the time held off the client's timeout.)
 *
 * <p>Immutable and thread-safe; share one instance (and one pacer) across clients.
 */
public final class RateLimitClientHttpRequestInterceptor implements ClientHttpRequestInterceptor {
  private final Pacer pacer;
  private final Duration maxWait;
  private final int maxAttempts;

  private RateLimitClientHttpRequestInterceptor(Builder builder) {
    this.pacer = builder.pacer;
    this.maxWait = builder.limits.maxWait(pacer);
    this.maxAttempts = builder.limits.maxAttempts(pacer);
  }

  /**
   * Returns an interceptor with its own {@link Pacer#create() default pacer}.
   *
   * @return a new interceptor with a pacer of its own
   */
  public static RateLimitClientHttpRequestInterceptor create() {
    return create(Pacer.create());
  }

  /**
   * Returns an interceptor that paces with {@code pacer} and its defaults.
   *
   * @param pacer the pacer asked before every request; possibly shared with other clients
   * @return a new interceptor with the pacer's {@code maxWait} and {@code maxAttempts}
   */
  public static RateLimitClientHttpRequestInterceptor create(Pacer pacer) {
    return builder(pacer).build();
  }

  /**
   * Returns a builder for an interceptor that paces with {@code pacer}.
   *
   * @param pacer the pacer asked before every request; possibly shared with other clients
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
   * @throws IOException whatever sending throws; if the pacer is closed (nothing was sent)
   */
  @Override
  public ClientHttpResponse intercept(HttpRequest request, byte[] body,
      ClientHttpRequestExecution execution) throws IOException {
    try {
      return PacedExchange.run(pacer, maxWait, maxAttempts,
          new SpringExchange(request, body, execution));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      InterruptedIOException interrupted =
          new InterruptedIOException("interrupted while waiting for quota");
      interrupted.initCause(e);
      throw interrupted;
    }
  }

  /** Configures a {@link RateLimitClientHttpRequestInterceptor}. Not thread-safe. */
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
     * Returns the interceptor.
     *
     * @return a new interceptor with this builder's settings
     */
    public RateLimitClientHttpRequestInterceptor build() {
      return new RateLimitClientHttpRequestInterceptor(this);
    }
  }
}
