package dev.headway.httpclient5;

import dev.headway.HttpFields;
import dev.headway.Pacer;
import dev.headway.Permit;
import dev.headway.RequestInfo;
import dev.headway.Scheduler;
import dev.headway.internal.adapter.Attempt;
import dev.headway.internal.adapter.BodyHints;
import dev.headway.internal.adapter.PacedExchange;
import dev.headway.internal.adapter.Permits;
import dev.headway.internal.adapter.RequestDescriptions;
import java.io.IOException;
import java.net.URISyntaxException;
import java.time.Duration;
import org.apache.hc.client5.http.impl.classic.RequestFailedException;
import org.apache.hc.client5.http.classic.ExecChain;
import org.apache.hc.core5.concurrent.Cancellable;
import org.apache.hc.core5.concurrent.CancellableDependency;
import org.apache.hc.core5.http.ClassicHttpRequest;
import org.apache.hc.core5.http.ClassicHttpResponse;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.HttpEntity;
import org.apache.hc.core5.http.HttpException;
import org.jspecify.annotations.Nullable;

/**
 * One request of an HttpClient 5 execution chain as the core's {@link PacedExchange} sees it: an
 * attempt is {@code chain.proceed}, a body hint is read ahead by a {@link TappedEntity}, and a
 * request whose entity is not repeatable is sent once. Each attempt sends a fresh copy of the
 * request as it reached the handler, since the elements below it (protocol headers,
 * authentication) add to the request they are given. A wait (for a permit or before a retry)
 * ends at once when the caller cancels the request ({@code HttpUriRequestBase.cancel()}, HttpClient's
 * own way to abort a call), as HttpClient's wait for a pooled connection does. Not thread-safe: one
 * per request.
 */
final class HttpClient5Exchange implements PacedExchange.Client<ClassicHttpResponse> {
  private final ClassicHttpRequest request;
  private final ExecChain.Scope scope;
  private final ExecChain chain;
  /** The scope the last attempt went out with: the caller's, or a retry's own (see send). */
  private ExecChain.Scope current;
  private @Nullable RequestSnapshot pristine;
  private boolean paced;
  private boolean wentOut;

  HttpClient5Exchange(ClassicHttpRequest request, ExecChain.Scope scope, ExecChain chain) {
    this.request = request;
    this.scope = scope;
    this.chain = chain;
    this.current = scope;
  }

  @Override
  public RequestInfo describe() {
    HttpEntity entity = request.getEntity();
    try {
      return RequestDescriptions.describe(request.getMethod(), request.getUri(),
          fields(request.getHeaders()), entity != null,
          entity == null ? 0 : entity.getContentLength());
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("request URI", e); // sent unpaced, as without Headway
    }
  }

  @Override
  public boolean replayable() {
    HttpEntity entity = request.getEntity();
    return entity == null || entity.isRepeatable();
  }

  @Override
  public ClassicHttpResponse send(Attempt attempt) throws IOException {
    paced = true;
    wentOut = true;
    ClassicHttpRequest sent = request;
    if (attempt.number() == 1) {
      if (attempt.mayRetry()) {
        pristine = RequestSnapshot.of(request);
      }
    } else {
      if (pristine != null) {
        sent = pristine.classic(request.getEntity());
      }
      current = forked(scope);
    }
    Runnable restore = HeldResponseTimeout.apply(current.clientContext, attempt);
    try {
      return proceed(sent, current);
    } finally {
      restore.run();
    }
  }

  /**
   * Takes a permit as {@link PacedExchange.Client#acquire} does, on the calling thread; for a
   * request the caller can cancel, a cancel during the wait ends it: {@link RequestFailedException}
   * "Request aborted", nothing sent.
   */
  @Override
  public Permit acquire(Pacer pacer, RequestInfo info, Duration maxWait)
      throws IOException, InterruptedException {
    CancellableDependency request = cancellable();
    if (request == null) {
      return pacer.acquire(info, maxWait);
    }
    Waker waker = Waker.on(request);
    Permit permit;
    try {
      permit = pacer.acquire(info, maxWait);
    } catch (InterruptedException e) {
      if (waker.end()) {
        throw aborted(e);
      }
      throw e;
    } catch (IOException | RuntimeException | Error e) {
      waker.end(); // a later cancel must not interrupt the thread
      throw e;
    }
    if (waker.end()) {
      Permits.release(permit);
      throw aborted(null);
    }
    return permit;
  }

  /** Waits {@code delay} before a retry as {@link #acquire} waits: a cancel ends it. */
  @Override
  public void sleep(Scheduler scheduler, Duration delay)
      throws IOException, InterruptedException {
    CancellableDependency request = cancellable();
    if (request == null) {
      scheduler.sleep(delay);
      return;
    }
    Waker waker = Waker.on(request);
    try {
      scheduler.sleep(delay);
    } catch (InterruptedException e) {
      if (waker.end()) {
        throw aborted(e);
      }
      throw e;
    } catch (RuntimeException | Error e) {
      waker.end();
      throw e;
    }
    if (waker.end()) {
      throw aborted(null);
    }
  }

  private @Nullable CancellableDependency cancellable() {
    return scope.originalRequest instanceof CancellableDependency c ? c : null;
  }

  private static RequestFailedException aborted(@Nullable Throwable cause) {
    RequestFailedException aborted = new RequestFailedException("Request aborted");
    if (cause != null) {
      aborted.initCause(cause);
    }
    return aborted;
  }

  /**
   * Ends one wait of the calling thread when the request is cancelled, by interrupting the
   * thread: the pacer's waits end on an interrupt. It is the request's dependency only for the
   * wait (HttpClient's runtime puts its own in its place when it leases a connection); an
   * interrupt it made is cleared when the wait ends, so the caller's thread is never left
   * interrupted by a cancel.
   */
  private static final class Waker implements Cancellable {
    private final Thread thread = Thread.currentThread();
    private boolean waiting = true;
    private boolean fired;

    /** Makes a waker the request's dependency; fires at once if it is already cancelled. */
    static Waker on(CancellableDependency request) {
      Waker waker = new Waker();
      request.setDependency(waker);
      return waker;
    }

    @Override
    public synchronized boolean cancel() {
      if (waiting && !fired) {
        fired = true;
        thread.interrupt();
      }
      return true;
    }

    /** Ends the wait; returns whether the request was cancelled during it (interrupt cleared). */
    synchronized boolean end() {
      waiting = false;
      if (fired) {
        Thread.interrupted();
      }
      return fired;
    }
  }

  /**
   * Returns {@code scope} with a runtime of its own, for a retry. A throttled body's stream hands
   * its connection back through the runtime it came on, from whichever thread ends it: the
   * read-ahead's, when its read returns after the connection was closed ({@link #discard}). On a
   * runtime of its own the retry's connection is out of that late hand's reach.
   */
  private static ExecChain.Scope forked(ExecChain.Scope scope) {
    CancellableDependency cancellable = scope.originalRequest instanceof CancellableDependency c
        ? c : null;
    return new ExecChain.Scope(scope.exchangeId, scope.route, scope.originalRequest,
        scope.execRuntime.fork(cancellable), scope.clientContext);
  }

  @Override
  public ClassicHttpResponse read(ClassicHttpResponse response, Attempt attempt)
      throws IOException {
    HttpFields headers = fields(response.getHeaders());
    int status = response.getCode();
    byte[] hint = null;
    if (attempt.readsBody(status, headers)) {
      // Read as much as a kept response may hold: a retry then finds the body in memory.
      TappedEntity tapped = TappedEntity.tap(response, BodyHints.KEEP_BYTES + 1);
      if (tapped != null) {
        hint = tapped.tap().bytes(attempt.hintBytes());
      }
    }
    attempt.complete(status, headers, hint);
    return response;
  }

  @Override
  public ClassicHttpResponse sendUnpaced() throws IOException {
    paced = false;
    wentOut = true;
    return proceed(request, scope);
  }

  /**
   * Sends the request an adapter of Headway's outside this client paces (a Spring interceptor
   * over this client): its throttled response is Headway's decision, not HttpClient's to retry.
   */
  @Override
  public ClassicHttpResponse sendPacedOutside() throws IOException {
    ClassicHttpResponse response = sendUnpaced();
    paced = true;
    return response;
  }

  @Override
  public ClassicHttpResponse keep(ClassicHttpResponse response) {
    TappedEntity.keep(response);
    return response;
  }

  /**
   * Drops a kept response: a body held in memory is let go; a body still on its connection
   * closes that connection rather than reading the rest of the body to reuse it. A body the
   * read-ahead is still reading (it trickles or stalls) is closed the same way (its read fails on
   * the closed connection); the retry does not wait for it, as it goes out on a runtime of its own.
   */
  @Override
  public void discard(ClassicHttpResponse kept) {
    try {
      HttpEntity entity = kept.getEntity();
      if (entity != null && entity.isStreaming()) {
        current.execRuntime.discardEndpoint();
      }
      kept.close();
    } catch (IOException | RuntimeException e) {
      // The retry is going out: nothing to tell about a response nobody reads.
    }
  }

  /** Returns whether the request went to the chain at all (a closed pacer sends nothing). */
  boolean wentOut() {
    return wentOut;
  }

  /** Returns whether the response the caller gets went through the pacer. */
  boolean paced() {
    return paced;
  }

  private ClassicHttpResponse proceed(ClassicHttpRequest sent, ExecChain.Scope on)
      throws IOException {
    try {
      return chain.proceed(sent, on);
    } catch (HttpException e) {
      throw new TunneledHttpException(e);
    }
  }

  /** Copies HttpClient's headers, every value in order. */
  static HttpFields fields(Header[] headers) {
    HttpFields.Builder builder = HttpFields.builder(headers.length);
    for (Header header : headers) {
      String value = header.getValue();
      builder.add(header.getName(), value == null ? "" : value);
    }
    return builder.build();
  }

  /**
   * Carries an {@link HttpException} from {@code chain.proceed} through the paced exchange, whose
   * client sends throw only {@link IOException}; the handler throws the original again.
   */
  static final class TunneledHttpException extends IOException {
    private static final long serialVersionUID = 1L;

    TunneledHttpException(HttpException cause) {
      super(cause);
    }

    HttpException original() {
      return (HttpException) getCause();
    }
  }
}
