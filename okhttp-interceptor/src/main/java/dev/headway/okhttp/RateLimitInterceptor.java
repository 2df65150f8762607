package dev.headway.okhttp;

import dev.failsafe.Execution;
import dev.failsafe.RetryPolicy;
import dev.headway.Pacer;
import dev.headway.Permit;
import dev.headway.RateLimitSignal;
import dev.headway.RateLimitedException;
import dev.headway.RequestInfo;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import okhttp3.Interceptor;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.jspecify.annotations.Nullable;

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
 *   <li>asks the {@link Pacer} for a {@link Permit}, waiting as long as the pacer says (at most
 *       {@link Builder#maxWait maxWait}; a longer wait fails the call at once with
 *       {@link RateLimitedException}, an {@link IOException}). Nothing is sent while waiting. The
 *       wait ends within about 20 ms when the call is cancelled or its call timeout fires, and at
 *       once when the thread is interrupted ({@link InterruptedIOException}, flag restored);
 *   <li>sends the request and hands the response's status and headers (and, for a JSON 429 or 503,
 *       up to {@link dev.headway.SignalParser#MAX_BODY_BYTES} of its body, peeked, not consumed)
 *       back to the pacer; if sending fails, the permit is released;
 *   <li>if the server throttled the call (429, or 503 with {@code Retry-After}) and the pacer
 *       advises a retry, closes that response, waits the advised delay on the pacer's
 *       {@link dev.headway.Scheduler}, and sends the request again, up to
 *       {@link Builder#maxAttempts maxAttempts} attempts in all. The last response is returned
 *       as is. A request with a one-shot or duplex body is never retried; a non-idempotent method
 *       is retried after a 429 (the server did not process it) but not after a 503, unless
 *       the pacer is built with {@link Pacer.Builder#retryNonIdempotentOn503}.
 * </ol>
 *
 * <p>Add it with {@link OkHttpClient.Builder#addInterceptor} (an application interceptor): it then
 * sees each call once, before redirects and OkHttp's own retries, and a wait happens once per call.
 * See {@code docs/okhttp.md} for what changes as a network interceptor, and for how a wait
 * occupies a dispatcher thread with {@code enqueue}.
 *
 * <p>A response Headway does not understand changes nothing: the call behaves as it would
 * without the interceptor.
 *
 * <p>Immutable and thread-safe; share one instance (and one pacer) across clients.
 */
public final class RateLimitInterceptor implements Interceptor {
  private final Pacer pacer;
  private final Duration maxWait;
  private final int maxAttempts;
  private final RetryPolicy<Attempt> retryPolicy;

  private RateLimitInterceptor(Builder builder) {
    this.pacer = builder.pacer;
    this.maxWait = builder.maxWait == null ? pacer.maxWait() : builder.maxWait;
    this.maxAttempts = builder.maxAttempts == 0 ? pacer.maxAttempts() : builder.maxAttempts;
    this.retryPolicy = RetryPolicy.<Attempt>builder()
        .handleResultIf(attempt -> attempt.retryDelay().isPresent())
        .withDelayFn(context -> context.getLastResult().retryDelay().orElse(Duration.ZERO))
        .withMaxAttempts(maxAttempts)
        .build();
  }

  /** Returns an interceptor with its own {@link Pacer#create() default pacer}. */
  public static RateLimitInterceptor create() {
    return create(Pacer.create());
  }

  /** Returns an interceptor that paces with {@code pacer} and its defaults. */
  public static RateLimitInterceptor create(Pacer pacer) {
    return builder(pacer).build();
  }

  /** Returns a builder for an interceptor that paces with {@code pacer}. */
  public static Builder builder(Pacer pacer) {
    return new Builder(pacer);
  }

  /** Returns the pacer this interceptor asks; use it to inspect quotas. */
  public Pacer pacer() {
    return pacer;
  }

  /** Returns the longest one wait (for a permit or before a retry) may last. */
  public Duration maxWait() {
    return maxWait;
  }

  /** Returns the maximum number of attempts per call, the first included. */
  public int maxAttempts() {
    return maxAttempts;
  }

  /**
   * Paces, sends and, if throttled, retries the chain's request.
   *
   * @throws RateLimitedException if a wait would exceed {@code maxWait}; nothing was sent for
   *     that attempt
   * @throws InterruptedIOException if the thread was interrupted while waiting
   * @throws IOException "Canceled" if the call was cancelled while waiting, or whatever
   *     {@code proceed} throws
   */
  @Override
  public Response intercept(Chain chain) throws IOException {
    Request request = chain.request();
    RequestInfo info;
    try {
      info = OkHttpMessages.describe(request);
    } catch (RuntimeException e) {
      return chain.proceed(request); // A request Headway cannot describe is sent unpaced.
    }
    CallWaiter waiter = new CallWaiter(chain.call());
    boolean replayable = OkHttpMessages.isReplayable(request);
    Execution<Attempt> execution = Execution.of(retryPolicy);
    for (int attempts = 1; ; attempts++) {
      Attempt attempt = attempt(chain, request, info, waiter, attempts, replayable);
      execution.recordResult(attempt);
      if (execution.isComplete()) {
        return attempt.response();
      }
      Duration delay = execution.getDelay();
      attempt.response().close();
      waiter.sleep(pacer.scheduler(), delay);
    }
  }

  private Attempt attempt(Chain chain, Request request, RequestInfo info, CallWaiter waiter,
      int attempts, boolean replayable) throws IOException {
    Permit permit = waiter.await(pacer.acquireAsync(info, maxWait), Permit::release);
    Response response;
    try {
      response = chain.proceed(request);
    } catch (IOException | RuntimeException | Error e) {
      permit.release();
      throw e;
    }
    RateLimitSignal signal = complete(permit, response);
    Optional<Duration> retryDelay = replayable && attempts < maxAttempts
        ? retryDelay(info, signal, attempts)
        : Optional.empty();
    return new Attempt(response, retryDelay);
  }

  private static RateLimitSignal complete(Permit permit, Response response) {
    try {
      return permit.complete(response.code(), OkHttpMessages.fields(response.headers()),
          OkHttpMessages.peekSignalBody(response));
    } catch (RuntimeException e) {
      // Rate-limit signals never break a call that would otherwise succeed.
      permit.release();
      return RateLimitSignal.none(response.code());
    }
  }

  private Optional<Duration> retryDelay(RequestInfo info, RateLimitSignal signal, int attempts) {
    if (!signal.throttled()) {
      return Optional.empty();
    }
    try {
      return pacer.retryDelay(info, signal, attempts)
          .filter(delay -> delay.compareTo(maxWait) <= 0);
    } catch (RuntimeException e) {
      return Optional.empty(); // Without advice, the throttled response is returned as is.
    }
  }

  /** One attempt's response and, if it should be retried, after how long. */
  private record Attempt(Response response, Optional<Duration> retryDelay) {}

  /** Configures a {@link RateLimitInterceptor}. Not thread-safe. */
  public static final class Builder {
    private final Pacer pacer;
    private @Nullable Duration maxWait;
    private int maxAttempts;

    private Builder(Pacer pacer) {
      this.pacer = Objects.requireNonNull(pacer, "pacer");
    }

    /**
     * Sets the longest one wait may last: for a permit, or before a retry. Default: the pacer's
     * {@link Pacer#maxWait()}. A wait that would be longer fails the call at once with
     * {@link RateLimitedException}, or (before a retry) returns the throttled response.
     *
     * @throws IllegalArgumentException if not positive
     */
    public Builder maxWait(Duration maxWait) {
      Objects.requireNonNull(maxWait, "maxWait");
      if (maxWait.isNegative() || maxWait.isZero()) {
        throw new IllegalArgumentException("maxWait must be positive but was " + maxWait);
      }
      this.maxWait = maxWait;
      return this;
    }

    /**
     * Sets the maximum number of attempts per call, the first included; 1 disables retries.
     * Default: the pacer's {@link Pacer#maxAttempts()}. The pacer's retry advice applies its own
     * budget too, so the lower of the two decides.
     *
     * @throws IllegalArgumentException if less than 1
     */
    public Builder maxAttempts(int maxAttempts) {
      if (maxAttempts < 1) {
        throw new IllegalArgumentException("maxAttempts must be at least 1 but was " + maxAttempts);
      }
      this.maxAttempts = maxAttempts;
      return this;
    }

    /** Returns the interceptor. */
    public RateLimitInterceptor build() {
      return new RateLimitInterceptor(this);
    }
  }
}
