package dev.headway.httpclient5;

import java.io.IOException;
import org.apache.hc.client5.http.HttpRequestRetryStrategy;
import org.apache.hc.core5.http.HttpRequest;
import org.apache.hc.core5.http.HttpResponse;
import org.apache.hc.core5.http.HttpStatus;
import org.apache.hc.core5.http.protocol.HttpContext;
import org.apache.hc.core5.util.TimeValue;

/**
 * HttpClient's retry strategy with what Headway already decided left out: a 429 or 503 that a
 * handler paced and returned is not retried a second time, nor waited for a second time, and
 * neither is a call Headway failed itself (a wait past {@code maxWait}, a closed pacer). Failed
 * sends ({@link IOException}s) and every other response go to the delegate as before.
 * Thread-safe if the delegate is.
 */
final class ThrottledLeftToHeadway implements HttpRequestRetryStrategy {
  /**
   * The context attribute under which a handler leaves the throttled response it decided, or the
   * failure it raised itself.
   */
  static final String DECIDED = "dev.headway.httpclient5.decided";

  private final HttpRequestRetryStrategy delegate;

  ThrottledLeftToHeadway(HttpRequestRetryStrategy delegate) {
    this.delegate = delegate;
  }

  /**
   * Marks {@code outcome} (a response or a failure) as Headway's decision, if it is a 429 or 503
   * response or a failure at all.
   */
  static void markDecided(HttpContext context, Object outcome) {
    if (outcome instanceof HttpResponse response) {
      int status = response.getCode();
      if (status != HttpStatus.SC_TOO_MANY_REQUESTS
          && status != HttpStatus.SC_SERVICE_UNAVAILABLE) {
        return;
      }
    }
    context.setAttribute(DECIDED, outcome);
  }

  /** Returns whether Headway decided {@code outcome}, as the handler marked it. */
  static boolean decided(Object outcome, HttpContext context) {
    return context != null && context.getAttribute(DECIDED) == outcome;
  }

  @Override
  public boolean retryRequest(HttpRequest request, IOException exception, int execCount,
      HttpContext context) {
    return !decided(exception, context)
        && delegate.retryRequest(request, exception, execCount, context);
  }

  @Override
  public boolean retryRequest(HttpResponse response, int execCount, HttpContext context) {
    return !decided(response, context) && delegate.retryRequest(response, execCount, context);
  }

  @Override
  public TimeValue getRetryInterval(HttpRequest request, IOException exception, int execCount,
      HttpContext context) {
    return delegate.getRetryInterval(request, exception, execCount, context);
  }

  @Override
  public TimeValue getRetryInterval(HttpResponse response, int execCount, HttpContext context) {
    return delegate.getRetryInterval(response, execCount, context);
  }
}
