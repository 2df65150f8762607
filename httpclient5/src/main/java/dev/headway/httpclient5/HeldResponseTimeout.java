package dev.headway.httpclient5;

import dev.headway.internal.adapter.Attempt;
import dev.headway.internal.adapter.Swallowed;
import java.time.Duration;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.protocol.HttpClientContext;
import org.apache.hc.core5.util.Timeout;

/**
 * The response timeout of an attempt whose call Headway held before the server answered
 * anything ({@link Attempt#timeout}): the request's {@link RequestConfig} in the call's context
 * gets the shortened response timeout while the attempt goes out (HttpClient's runtime reads it
 * as it sends), and the caller's configuration is put back after. Only a response timeout set in
 * a {@code RequestConfig} (the client's default or the request's) is shortened: without one,
 * the connection's socket timeout applies, which the handler cannot reach.
 */
final class HeldResponseTimeout {
  private static final Runnable NOTHING = () -> {};

  private HeldResponseTimeout() {}

  /**
   * Shortens the response timeout in {@code context} for {@code attempt}, if it was held before
   * any answer; returns what puts the caller's configuration back (nothing if none was changed).
   */
  static Runnable apply(HttpClientContext context, Attempt attempt) {
    RequestConfig config = context.getRequestConfig();
    Timeout timeout = config == null ? null : config.getResponseTimeout();
    if (timeout == null || timeout.toMilliseconds() <= 0) {
      return NOTHING;
    }
    Duration whole = Duration.ofMillis(timeout.toMilliseconds());
    Duration shortened = attempt.timeout(whole);
    if (shortened.equals(whole)) {
      return NOTHING;
    }
    RequestConfig held;
    try {
      held = RequestConfig.copy(config)
          .setResponseTimeout(Timeout.ofMilliseconds(Math.max(1, shortened.toMillis()))).build();
    } catch (RuntimeException e) {
      Swallowed.log(RateLimitAsyncExecChainHandler.LOGGER, "shortening a held response timeout",
          e);
      return NOTHING; // as without Headway: the whole response timeout
    }
    context.setRequestConfig(held);
    return () -> {
      if (context.getRequestConfig() == held) {
        context.setRequestConfig(config);
      }
    };
  }
}
