package dev.headway.okhttp;

import dev.headway.HttpFields;
import dev.headway.Pacer;
import dev.headway.Permit;
import dev.headway.RequestInfo;
import dev.headway.Scheduler;
import dev.headway.internal.adapter.Attempt;
import dev.headway.internal.adapter.BodyHints;
import dev.headway.internal.adapter.PacedExchange;
import dev.headway.internal.adapter.Permits;
import dev.headway.internal.adapter.Swallowed;
import dev.headway.internal.adapter.BodyTap;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import okhttp3.Interceptor.Chain;
import okhttp3.Request;
import okhttp3.Response;
import org.jspecify.annotations.Nullable;

/**
 * One OkHttp call as the core's {@link PacedExchange} sees it: an attempt is
 * {@code chain.proceed}, a body hint is read ahead by a {@link BodyTap}, and every wait ends
 * when the call is cancelled or times out ({@link CallWaiter}). Not thread-safe: one per call.
 */
final class OkHttpExchange implements PacedExchange.Client<Response> {
  private final Chain chain;
  private final Request request;
  private final RecentUris uris;
  private @Nullable CallWaiter waiter;

  OkHttpExchange(Chain chain, RecentUris uris) {
    this.chain = chain;
    this.request = chain.request();
    this.uris = uris;
  }

  @Override
  public RequestInfo describe() {
    return OkHttpMessages.describe(request, uris.uri(request.url()));
  }

  @Override
  public boolean replayable() {
    return OkHttpMessages.isReplayable(request);
  }

  @Override
  public Response send(Attempt attempt) throws IOException {
    return heldChain(attempt).proceed(request);
  }

  /**
   * Returns the chain with the read timeout shortened by the time the call was held before the
   * server answered anything ({@link Attempt#timeout}); the chain itself for any other attempt,
   * and as a network interceptor (whose chain's timeouts OkHttp does not let change).
   */
  private Chain heldChain(Attempt attempt) {
    Duration read = Duration.ofMillis(chain.readTimeoutMillis());
    Duration timeout = attempt.timeout(read);
    if (timeout.equals(read) || chain.connection() != null) {
      return chain;
    }
    try {
      return chain.withReadTimeout((int) Math.min(Integer.MAX_VALUE, Math.max(1,
          timeout.toMillis())), TimeUnit.MILLISECONDS);
    } catch (RuntimeException e) {
      Swallowed.log(RateLimitInterceptor.LOGGER, "shortening a held call's read timeout", e);
      return chain; // as without Headway: the whole read timeout
    }
  }

  @Override
  public Response read(Response response, Attempt attempt) {
    HttpFields headers = OkHttpMessages.fields(response.headers());
    Response readable = response;
    byte[] hint = null;
    if (attempt.readsBody(response.code(), headers)) {
      // Read as much as a kept response may hold: a retry then finds the body in memory.
      Response tapped = OkHttpMessages.tap(response, BodyHints.KEEP_BYTES + 1);
      if (tapped != null) {
        readable = tapped;
        hint = OkHttpMessages.tapOf(tapped).bytes(attempt.hintBytes());
      }
    }
    attempt.complete(response.code(), headers, hint);
    return readable;
  }

  @Override
  public Response sendUnpaced() throws IOException {
    return chain.proceed(request);
  }

  @Override
  public Response keep(Response response) {
    return OkHttpMessages.keep(response);
  }

  @Override
  public boolean stillReading(Response kept) {
    return OkHttpMessages.stillReading(kept);
  }

  @Override
  public void discard(Response kept) {
    kept.close();
  }

  @Override
  public Permit acquire(Pacer pacer, RequestInfo info, Duration maxWait) throws IOException {
    CompletableFuture<Permit> permit = pacer.acquireAsync(info, maxWait);
    // Most permits are granted at once: no waiter is made for them.
    return permit.isDone() && !chain.call().isCanceled() ? CallWaiter.done(permit)
        : waiter().await(permit, Permits::release);
  }

  @Override
  public void sleep(Scheduler scheduler, Duration delay) throws IOException {
    waiter().sleep(scheduler, delay);
  }

  private CallWaiter waiter() {
    CallWaiter w = waiter;
    if (w == null) {
      w = new CallWaiter(chain.call()::isCanceled);
      waiter = w;
    }
    return w;
  }
}
