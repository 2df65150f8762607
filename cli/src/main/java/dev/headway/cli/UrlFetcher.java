package dev.headway.cli;

import dev.headway.HttpFields;
import dev.headway.SignalParser;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.List;

/**
 * Makes the one GET of {@code headway explain --url} with the JDK {@link HttpClient} and returns
 * the response as a {@link RawResponse}: status, header fields (HTTP/2 pseudo-headers left out)
 * and at most {@link SignalParser#MAX_BODY_BYTES} of the body.
 */
final class UrlFetcher {
  private UrlFetcher() {}

  /**
   * Sends {@code GET url} with the given headers.
   *
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
    try {
      HttpResponse<InputStream> response =
          client.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
      byte[] body;
      try (InputStream in = response.body()) {
        body = in.readNBytes(SignalParser.MAX_BODY_BYTES);
      }
      HttpFields.Builder fields = HttpFields.builder();
      response.headers().map().forEach((name, values) -> {
        if (!name.startsWith(":")) {
          values.forEach(value -> fields.add(name, value));
        }
      });
      return new RawResponse(response.statusCode(), fields.build(), body, List.of());
    } catch (HttpTimeoutException e) {
      throw new CliException("GET " + url + " timed out after " + Seconds.text(timeout) + " s");
    } catch (IOException e) {
      throw new CliException("GET " + url + " failed: " + describe(e));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CliException("GET " + url + " was interrupted");
    }
  }

  private static String describe(Throwable e) {
    String message = e.getMessage();
    if (message == null && e.getCause() != null) {
      return describe(e.getCause());
    }
    return e.getClass().getSimpleName() + (message == null ? "" : " (" + message + ")");
  }
}
