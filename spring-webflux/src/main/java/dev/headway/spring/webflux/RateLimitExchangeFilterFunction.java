package dev.headway.spring.webflux;

import dev.headway.Pacer;
import dev.headway.RateLimitedException;
import dev.headway.internal.adapter.CallLimits;
import dev.headway.internal.adapter.PacedExchange;
import dev.headway.internal.adapter.Swallowed;
import java.io.IOException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import org.springframework.web.reactive.function.client.ClientRequest;
import org.springframework.web.reactive.function.client.ClientResponse;
import org.springframework.web.reactive.function.client.ExchangeFilterFunction;
import org.springframework.web.reactive.function.client.ExchangeFunction;
import reactor.core.publisher.Mono;
import reactor.util.context.Context;
import reactor.util.context.ContextView;

/**
 * A Spring {@link ExchangeFilterFunction} that paces every request of a {@code WebClient}
 * against the quota its servers advertise, and retries requests the server throttled, without
 * blocking any thread. Works with Spring Framework 6.1 and later, 7 included (Spring Boot 3.2+
 * and 4), on Reactor Netty, the JDK connector and any other {@code ClientHttpConnector}.
 *
 * <pre>{@code
 * WebClient client = WebClient.builder()
 *     .filter(RateLimitExchangeFilterFunction.create(pacer))
 *     .build();
 * }</pre>
 *
 * <p>For each subscription to a request it:
 *
 * <ol>
 *   <li>asks the {@link Pacer} for a permit with {@link Pacer#acquireAsync}: a wait is a task of
 *       the pacer's {@link dev.headway.Scheduler}, no thread is blocked, and the request goes out
 *       from the thread that completes the permit. Every wait of a request (this permit, each
 *       retry's delay, each retry's permit) comes out of one budget of
 *       {@link Builder#maxWait maxWait}, measured on the pacer's {@link dev.headway.Ticker}. A
 *       first permit that needs a longer wait fails the {@code Mono} at once with
 *       {@link RateLimitedException}, an {@link IOException}; nothing is sent;
 *   <li>sends the request and hands the response's status and headers (and, for a response whose
 *       body the parser reads, a JSON 429, 503 or 403, its first bytes as they arrive within
 *       100 ms, which the caller still reads in full) back to the pacer;
 *   <li>if the server throttled the request (429, or 503 with {@code Retry-After}) and the pacer
 *       advises a retry whose delay fits the remaining budget, waits that delay on the pacer's
 *       scheduler, takes the retry's permit within what is left of the budget and sends again, up
 *       to {@link Builder#maxAttempts maxAttempts} attempts in all. If the retry's permit cannot
 *       be had in time, the throttled response is the answer: a retry never turns a 429 into an
 *       error. A retry sends the body the first attempt wrote, recorded as it was written (up to
 *       1 MiB; a longer or streamed body is not retried), so a body that can be produced only
 *       once is still sent whole. A non-idempotent method is retried after a 429 but not after a
 *       503, unless the pacer is built with {@link Pacer.Builder#retryNonIdempotentOn503}.
 * </ol>
 *
 * <p>Cancelling the subscription ends the call: a wait ends and nothing more is sent, a permit
 * held goes back to the pacer, and a throttled response kept for a retry is dropped. Each
 * subscription is one call: an operator that resubscribes ({@code retry}, {@code repeat}) makes
 * a new paced call. The Reactor context of the subscriber reaches the filters registered after
 * this one.
 *
 * <p>Register it <em>after</em> any filter that changes the request (authentication, tracing),
 * so that the pacer sees the request as it goes out and a retry sends it again as it was. A
 * response Headway does not understand changes nothing, and a failure inside Headway (a linkage
 * error from another Spring included) sends the request as it would go without the filter.
 * Added twice to one client (the Spring Boot starter's and one of the application's), the first
 * one paces each request and the second lets it through: a request is paced once, with the
 * first one's {@code maxWait} and {@code maxAttempts}.
 *
 * <p>Timeouts: the response timeout lives in the connector, which a filter cannot reach. A call
 * held before the server answered anything on its partition (the probes of first contact hold the
 * other callers back, at most 550 ms) is sent with its whole timeout: against a server that never
 * answers, it fails up to that long after it would without Headway. (The OkHttp, JDK, HttpClient 5
 * and Feign adapters take the time held off the client's timeout.)
 *
 * <p>Immutable and thread-safe; share one instance (and one pacer) across clients.
 */
public final class RateLimitExchangeFilterFunction implements ExchangeFilterFunction {
  /**
   * The key under which a filter of Headway's puts the request it paces into the Reactor context
   * of the filters after it: a second filter of Headway's on the same client sees it there and
   * lets the request through.
   */
  private static final String PACING = "dev.headway.spring.webflux.pacing";

  private final Pacer pacer;
  private final Duration maxWait;
  private final int maxAttempts;

  private RateLimitExchangeFilterFunction(Builder builder) {
    this.pacer = builder.pacer;
    this.maxWait = builder.limits.maxWait(pacer);
    this.maxAttempts = builder.limits.maxAttempts(pacer);
  }

  /**
   * Returns a filter with its own {@link Pacer#create() default pacer}.
   *
   * @return a new filter with a pacer of its own
   */
  public static RateLimitExchangeFilterFunction create() {
    return create(Pacer.create());
  }

  /**
   * Returns a filter that paces with {@code pacer} and its defaults.
   *
   * @param pacer the pacer asked before every request; possibly shared with other clients
   * @return a new filter with the pacer's {@code maxWait} and {@code maxAttempts}
   */
  public static RateLimitExchangeFilterFunction create(Pacer pacer) {
    return builder(pacer).build();
  }

  /**
   * Returns a builder for a filter that paces with {@code pacer}.
   *
   * @param pacer the pacer asked before every request; possibly shared with other clients
   * @return a new builder
   */
  public static Builder builder(Pacer pacer) {
    return new Builder(pacer);
  }

  /**
   * Returns the pacer this filter asks; use it to inspect quotas.
   *
   * @return the pacer given at creation, or the filter's own
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
   * Paces, sends and, if throttled, retries the request, as the class describes. The returned
   * {@code Mono} fails with {@link RateLimitedException} if the first permit would need a wait
   * past {@code maxWait} (nothing was sent), with an {@link IOException} if the pacer is closed
   * (nothing was sent), or with whatever sending fails with.
   */
  @Override
  public Mono<ClientResponse> filter(ClientRequest request, ExchangeFunction next) {
    try {
      return Mono.deferContextual(context -> {
        if (pacedAlready(context, request)) {
          return next.exchange(request); // a filter of Headway's before this one paces it
        }
        CompletableFuture<ClientResponse> call;
        try {
          call = PacedExchange.runAsync(pacer, maxWait, maxAttempts,
              new WebClientExchange(request, next, Context.of(context).put(PACING, request)));
        } catch (RuntimeException | LinkageError e) {
          return unpaced(request, next, e);
        }
        return Mono.fromFuture(call, false); // cancelling the Mono cancels the call
      });
    } catch (RuntimeException | LinkageError e) {
      return unpaced(request, next, e);
    }
  }

  /**
   * Whether a filter of Headway's before this one paces {@code request}: the same method and URL
   * (a retry sends a copy). Another request sent from within its chain (a filter fetching a
   * token) is paced on its own.
   */
  private static boolean pacedAlready(ContextView context, ClientRequest request) {
    return context.getOrEmpty(PACING)
        .filter(outer -> outer instanceof ClientRequest paced && (paced == request
            || paced.method().equals(request.method()) && paced.url().equals(request.url())))
        .isPresent();
  }

  /** Headway itself failed before the request went out: it goes out without Headway. */
  private static Mono<ClientResponse> unpaced(ClientRequest request, ExchangeFunction next,
      Throwable failure) {
    Swallowed.log(WebClientExchange.LOGGER, "pacing a WebClient request", failure);
    return next.exchange(request);
  }

  /** Configures a {@link RateLimitExchangeFilterFunction}. Not thread-safe. */
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
     * Returns the filter.
     *
     * @return a new filter with this builder's settings
     */
    public RateLimitExchangeFilterFunction build() {
      return new RateLimitExchangeFilterFunction(this);
    }
  }
}
