package dev.headway.okhttp;

import dev.failsafe.Execution;
import dev.failsafe.RetryPolicy;
import dev.headway.HttpFields;
import dev.headway.Pacer;
import dev.headway.Permit;
import dev.headway.RateLimitSignal;
import dev.headway.RateLimitedException;
import dev.headway.RequestInfo;
import dev.headway.SignalParser;
import dev.headway.internal.adapter.CallBudget;
import dev.headway.internal.adapter.CallLimits;
import dev.headway.internal.adapter.Permits;
import dev.headway.internal.adapter.RetryAdvice;
import dev.headway.internal.adapter.Swallowed;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import okhttp3.Call;
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
 *   <li>asks the {@link Pacer} for a {@link Permit}, waiting as long as the pacer says. Every
 *       wait of a call (this permit, each retry's delay, each retry's permit) comes out of one
 *       budget of {@link Builder#maxWait maxWait}, measured on the pacer's
 *       {@link dev.headway.Ticker}. A first permit that needs a longer wait fails the call at once
 *       with {@link RateLimitedException}, an {@link IOException}. Nothing is sent while waiting.
 *       The wait ends within 20 ms when the call is cancelled or its call timeout fires, and at
 *       once when the thread is interrupted ({@link InterruptedIOException}, flag restored);
 *   <li>sends the request and hands the response's status and headers (and, when the parser reads
 *       such a body, {@link dev.headway.SignalParser#readsBody}, up to
 *       {@link dev.headway.SignalParser#MAX_BODY_BYTES} of it, peeked, not consumed) back to the
 *       pacer; if sending fails, the permit is released;
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
 * <p>A request with {@code Cache-Control: only-if-cached} never reaches the network and is not
 * paced. Other requests are paced even if the {@link okhttp3.Cache} answers them: see
 * {@code docs/okhttp.md}.
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
  /** The logger of what this adapter caught and ignored. */
  static final String LOGGER = "dev.headway.okhttp";
  private final Pacer pacer;
  private final Duration maxWait;
  private final int maxAttempts;
  private final RetryPolicy<Attempt> retryPolicy;
  private final RecentUris uris = new RecentUris();

  private RateLimitInterceptor(Builder builder) {
    this.pacer = builder.pacer;
    this.maxWait = builder.limits.maxWait(pacer);
    this.maxAttempts = builder.limits.maxAttempts(pacer);
    this.retryPolicy = RetryAdvice.policy(Attempt::retryDelay);
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
   * @return the longest wait per call; positive
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
   *     {@code proceed} throws
   */
  @Override
  public Response intercept(Chain chain) throws IOException {
    Request request = chain.request();
    if (request.cacheControl().onlyIfCached()) {
      return chain.proceed(request); // Never reaches the network: nothing to pace.
    }
    RequestInfo info;
    long started;
    boolean replayable;
    try {
      info = OkHttpMessages.describe(request, uris.uri(request.url()));
      // The budget object is made only if the call waits again (a retry): most never do.
      started = pacer.ticker().read();
      replayable = OkHttpMessages.isReplayable(request);
    } catch (RuntimeException | LinkageError e) {
      Swallowed.log(LOGGER, "describing a request", e);
      return chain.proceed(request); // A request Headway cannot describe is sent unpaced.
    }
    Call call = chain.call();
    Permit permit;
    try {
      // The budget has just started: all of maxWait is left.
      CompletableFuture<Permit> first = pacer.acquireAsync(info, maxWait);
      permit = first.isDone() && !call.isCanceled() ? CallWaiter.done(first)
          : new CallWaiter(call::isCanceled).await(first, Permits::release);
    } catch (RuntimeException | LinkageError e) {
      IOException closed = Permits.closed(pacer, e);
      if (closed != null) {
        throw closed; // a closed pacer fails its calls rather than sending them unpaced
      }
      Swallowed.log(LOGGER, "acquiring a permit", e);
      // Headway itself failed (user code it calls, a dependency of another version): the call
      // goes out as it would without Headway.
      return chain.proceed(request);
    }
    // Failsafe's Execution is created only once a response asks for a retry: most calls are
    // never throttled, and for them it would be garbage (about 0.4 KB a call).
    Execution<Attempt> execution = null;
    CallWaiter waiter = null;
    CallBudget budget = null;
    for (int attempts = 1; ; attempts++) {
      Response response;
      try {
        response = chain.proceed(request);
      } catch (IOException | RuntimeException | Error e) {
        Permits.release(permit);
        throw e;
      }
      Attempt attempt;
      try {
        HttpFields headers = OkHttpMessages.fields(response.headers());
        byte[] hint = null;
        if (SignalParser.readsBody(response.code(), headers)) {
          BodyTap tap = BodyTap.start(response, OkHttpMessages.KEEP_LIMIT + 1);
          if (tap != null) {
            response = tap.response();
            hint = OkHttpMessages.hint(tap);
          }
        }
        RateLimitSignal signal = Permits.complete(permit, response.code(), headers, hint);
        if (!signal.throttled() || !replayable || attempts >= maxAttempts) {
          return response; // most calls: nothing to retry, and nothing more is made for them
        }
        if (budget == null) {
          budget = CallBudget.startedAt(pacer.ticker(), started, maxWait);
        }
        attempt = new Attempt(response, RetryAdvice.delay(pacer, info, signal, attempts, budget));
      } catch (RuntimeException | LinkageError e) {
        Swallowed.log(LOGGER, "reading a response's rate-limit signals", e);
        // Headway failed on this response: the caller gets it as it is, and the permit goes back.
        Permits.release(permit);
        return response;
      }
      Response kept;
      try {
        if (attempt.retryDelay().isEmpty()) {
          return attempt.response();
        }
        if (execution == null) {
          execution = Execution.of(retryPolicy);
        }
        execution.recordResult(attempt);
        if (execution.isComplete()) {
          return attempt.response();
        }
        // Keep the throttled response until the retry's permit is in hand: if the retry cannot
        // be sent within the budget, the caller gets this response, never a
        // RateLimitedException. A body still arriving cannot be let go of without waiting for
        // it: such a response goes to the caller as it is, not retried.
        kept = OkHttpMessages.keep(attempt.response());
        if (OkHttpMessages.stillReading(kept)) {
          return kept;
        }
      } catch (RuntimeException | LinkageError e) {
        Swallowed.log(LOGGER, "keeping a throttled response for a retry", e);
        return attempt.response();
      }
      Optional<Permit> next;
      try {
        if (waiter == null) {
          waiter = new CallWaiter(call::isCanceled);
        }
        waiter.sleep(pacer.scheduler(), execution.getDelay());
        next = nextPermit(waiter, info, budget);
      } catch (RuntimeException | LinkageError e) {
        Swallowed.log(LOGGER, "waiting for a retry's permit", e);
        return kept;
      } catch (IOException | Error e) {
        kept.close();
        throw e;
      }
      if (next.isEmpty()) {
        return kept;
      }
      kept.close();
      permit = next.get();
    }
  }

  private Optional<Permit> nextPermit(CallWaiter waiter, RequestInfo info, CallBudget budget)
      throws IOException {
    try {
      return Optional.of(
          waiter.await(pacer.acquireAsync(info, budget.remaining()), Permits::release));
    } catch (RateLimitedException | RuntimeException | LinkageError e) {
      if (!(e instanceof RateLimitedException)) {
        Swallowed.log(LOGGER, "acquiring a retry's permit", e);
      }
      return Optional.empty();
    }
  }

  /** One attempt's response and, if it should be retried, after how long. */
  private record Attempt(Response response, Optional<Duration> retryDelay) {}

  /** Configures a {@link RateLimitInterceptor}. Not thread-safe. */
  public static final class Builder {
    private final Pacer pacer;
    private final CallLimits limits = new CallLimits();

    private Builder(Pacer pacer) {
      this.pacer = Objects.requireNonNull(pacer, "pacer");
    }

    /**
     * Sets the longest a call may wait in all: for its first permit, before each retry and for
     * each retry's permit, together. Default: the pacer's {@link Pacer#maxWait()}. A first permit
     * that needs a longer wait fails the call at once with {@link RateLimitedException}; a retry
     * that would not fit returns the throttled response instead.
     *
     * @param maxWait the longest a call may wait in all
     * @return this builder
     * @throws IllegalArgumentException if not positive
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
