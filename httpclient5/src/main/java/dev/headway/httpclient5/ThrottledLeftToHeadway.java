package dev.headway.httpclient5;

import java.io.IOException;
import org.apache.hc.client5.http.HttpRequestRetryStrategy;
import org.apache.hc.core5.http.HttpRequest;
import org.apache.hc.core5.http.HttpResponse;
import org.apache.hc.core5.http.protocol.HttpContext;
import org.apache.hc.core5.util.TimeValue;

/**
 * HttpClient's retry strategy with the throttled responses Headway already decided left out: a
 * 429 or 503 that the handler paced and returned is not retried a second time, nor waited for a
 * second time. Failed sends ({@link IOException}s) and every other response go to the delegate as
 * before. Thread-safe if the delegate is.
 */
final class ThrottledLeftToHeadway implements HttpRequestRetryStrategy {
  /** The context attribute under which the handler leaves the throttled response it decided. */
  static final String DECIDED = "dev.headway.httpclient5.decided";

  private final HttpRequestRetryStrategy delegate;

  ThrottledLeftToHeadway(HttpRequestRetryStrategy delegate) {
    this.delegate = delegate;
  }

  /** Returns whether Headway decided {@code response}, as the handler marked it. */
  static boolean decided(HttpResponse response, HttpContext context) {
    return context != null && context.getAttribute(DECIDED) == response;
  }

  @Override
  public boolean retryRequest(HttpRequest request, IOException exception, int execCount,
      HttpContext context) {
    return delegate.retryRequest(request, exception, execCount, context);
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
