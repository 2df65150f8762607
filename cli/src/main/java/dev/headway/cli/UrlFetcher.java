package dev.headway.cli;

import dev.headway.HttpFields;
import dev.headway.SignalParser;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Makes the one GET of {@code headway explain --url} with the JDK {@link HttpClient} and returns
 * the response as a {@link RawResponse}: status, header fields (HTTP/2 pseudo-headers left out)
 * and at most {@link SignalParser#MAX_BODY_BYTES} of the body. The whole exchange (connection,
 * response head and the body up to that limit) must end within the {@code --timeout}.
 */
final class UrlFetcher {
  private UrlFetcher() {}

  /**
   * Sends {@code GET url} with the given headers.
   *
   * @param timeout the deadline for the whole exchange, body included; also the connect timeout
   * @throws CliException if a header cannot be set, or the request fails or times out
   */
  static RawResponse get(URI url, List<String[]> headers, boolean followRedirects,
      Duration timeout) throws CliException {
    HttpRequest.Builder request = HttpRequest.newBuilder(url).GET().timeout(timeout);
    for (String[] header : headers) {
      try {
        request.header(header[0], header[1]);
      } catch (IllegalArgumentException e) {
        throw new CliException("-H '" + Printable.of(header[0]) + "' cannot be sent: "
            + e.getMessage());
      }
    }
    HttpClient client = HttpClient.newBuilder()
        .connectTimeout(timeout)
        .followRedirects(followRedirects ? HttpClient.Redirect.NORMAL : HttpClient.Redirect.NEVER)
        .build();
    // HttpRequest.timeout bounds only the wait for the response head: a server that sends the
    // head and then stalls would hang a blocking read of the body. So the whole exchange, body
    // included, must finish within one deadline; the body is read only up to the parser's limit.
    CompletableFuture<HttpResponse<byte[]>> exchange = client.sendAsync(request.build(),
        info -> new BoundedBodySubscriber(SignalParser.MAX_BODY_BYTES));
    try {
      HttpResponse<byte[]> response = exchange.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
      HttpFields.Builder fields = HttpFields.builder();
      response.headers().map().forEach((name, values) -> {
        if (!name.startsWith(":")) {
          values.forEach(value -> fields.add(name, value));
        }
      });
      return new RawResponse(response.statusCode(), fields.build(), response.body(), List.of());
    } catch (TimeoutException e) {
      exchange.cancel(true);
      throw timedOut(url, timeout);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause() != null ? e.getCause() : e;
      if (cause instanceof HttpTimeoutException) {
        throw timedOut(url, timeout);
      }
      if (connectFailure(cause)) {
        throw new CliException("GET " + url + " failed: could not connect to " + url.getHost()
            + (url.getPort() >= 0 ? ":" + url.getPort() : "")
            + " (connection refused, or the host is unreachable)");
      }
      throw new CliException("GET " + url + " failed: " + describe(cause));
    } catch (InterruptedException e) {
      exchange.cancel(true);
      Thread.currentThread().interrupt();
      throw new CliException("GET " + url + " was interrupted");
    }
  }

  private static CliException timedOut(URI url, Duration timeout) {
    return new CliException("GET " + url + " timed out after " + Seconds.text(timeout) + " s");
  }

  /** Whether {@code e} or a cause is a failure to connect (the JDK's is a message-less chain). */
  private static boolean connectFailure(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof java.net.ConnectException) {
        return true;
      }
    }
    return false;
  }

  private static String describe(Throwable e) {
    String message = e.getMessage();
    if (message == null && e.getCause() != null) {
      return describe(e.getCause());
    }
    return e.getClass().getSimpleName() + (message == null ? "" : " (" + message + ")");
  }
}
