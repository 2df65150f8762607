package dev.headway.cli;

import dev.headway.HttpFields;
import dev.headway.SignalParser;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Makes the one GET of {@code headway explain --url} with the JDK {@link HttpClient} and returns
 * the response as a {@link RawResponse}: status, header fields (HTTP/2 pseudo-headers left out)
 * and at most {@link SignalParser#MAX_BODY_BYTES} of the body. The whole exchange (connection,
 * response head and the body up to that limit, every redirect followed included) must end
 * within the {@code --timeout}.
 *
 * <p>With {@code -L} it follows redirects itself (301, 302, 303, 307 and 308 with a
 * {@code Location}; at most {@value #MAX_REDIRECTS}), always with a GET. The JDK client's own
 * redirects would send every {@code -H} header to whatever origin the server names; here the
 * credential headers are sent only to the URL's origin (scheme, host and port): from the first
 * redirect to another origin on they are left out, also if a later redirect leads back, and a
 * warning names them. A credential header is one whose value {@code HttpFields.toString} hides:
 * {@code Authorization}, {@code Proxy-Authorization} and {@code Cookie} (which curl leaves out
 * too), and any name containing {@code auth}, {@code token}, {@code secret}, {@code key},
 * {@code signature}, {@code password}, {@code credential}, {@code session} or {@code cookie}
 * ({@code X-Api-Key}, {@code X-Auth-Token}), which curl would send on.
 */
final class UrlFetcher {
  /** The most redirects followed; one more is an error. */
  static final int MAX_REDIRECTS = 20;
  /** The header names (lower-case) sent only to the origin they were given for. */
  /** Parts of a header name that make it a credential: {@code HttpFields}' redaction rule. */
  private static final List<String> CREDENTIAL_PARTS = List.of("auth", "token", "secret", "key",
      "signature", "password", "credential", "session", "cookie");

  private UrlFetcher() {}

  /**
   * Sends {@code GET url} with the given headers.
   *
   * @param timeout the deadline for the whole exchange, body and redirects included; also the
   *     connect timeout
   * @throws CliException if a header cannot be set, or the request fails or times out
   */
  static RawResponse get(URI url, List<String[]> headers, boolean followRedirects,
      Duration timeout) throws CliException {
    HttpRequest first = request(url, headers, timeout);
    HttpClient client = HttpClient.newBuilder()
        .connectTimeout(timeout)
        .followRedirects(HttpClient.Redirect.NEVER)
        .build();
    Hops hops = new Hops(client, headers, followRedirects, timeout);
    // HttpRequest.timeout bounds only the wait for the response head: a server that sends the
    // head and then stalls would hang a blocking read of the body. So the whole exchange, body
    // included, must finish within one deadline; the body is read only up to the parser's limit.
    CompletableFuture<HttpResponse<byte[]>> exchange = hops.send(url, first);
    try {
      HttpResponse<byte[]> response = exchange.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
      HttpFields.Builder fields = HttpFields.builder();
      response.headers().map().forEach((name, values) -> {
        if (!name.startsWith(":")) {
          values.forEach(value -> fields.add(name, value));
        }
      });
      return new RawResponse(response.statusCode(), fields.build(), response.body(),
          hops.notes);
    } catch (TimeoutException e) {
      hops.cancel();
      exchange.cancel(true);
      throw timedOut(url, timeout);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause() != null ? e.getCause() : e;
      if (cause instanceof CliException refused) {
        throw refused;
      }
      if (cause instanceof HttpTimeoutException) {
        throw timedOut(url, timeout);
      }
      URI at = hops.at;
      if (unknownHost(cause)) {
        throw new CliException("GET " + at + " failed: unknown host " + at.getHost()
            + " (its name does not resolve)");
      }
      if (connectFailure(cause)) {
        throw new CliException("GET " + at + " failed: could not connect to " + at.getHost()
            + (at.getPort() >= 0 ? ":" + at.getPort() : "")
            + " (connection refused, or the host is unreachable)");
      }
      throw new CliException("GET " + at + " failed: " + describe(cause));
    } catch (InterruptedException e) {
      hops.cancel();
      exchange.cancel(true);
      Thread.currentThread().interrupt();
      throw new CliException("GET " + url + " was interrupted");
    }
  }

  /** Returns {@code GET uri} with {@code headers}. */
  private static HttpRequest request(URI uri, List<String[]> headers, Duration timeout)
      throws CliException {
    HttpRequest.Builder request = HttpRequest.newBuilder(uri).GET().timeout(timeout);
    for (String[] header : headers) {
      try {
        request.header(header[0], header[1]);
      } catch (IllegalArgumentException e) {
        throw new CliException("-H '" + Printable.of(header[0]) + "' cannot be sent: "
            + e.getMessage());
      }
    }
    return request.build();
  }

  /**
   * The requests of one {@code --url}: the first, then each redirect followed. The hops run one
   * after another on the client's threads; the fields are read by the caller only after the
   * last has ended (or to cancel it).
   */
  private static final class Hops {
    private final HttpClient client;
    private final boolean followRedirects;
    private final Duration timeout;
    private volatile List<String[]> headers;
    private final List<String> notes = new ArrayList<>();
    /** The URL of the request sent last. */
    volatile URI at;
    private volatile CompletableFuture<?> inFlight;
    private int followed;

    Hops(HttpClient client, List<String[]> headers, boolean followRedirects, Duration timeout) {
      this.client = client;
      this.headers = headers;
      this.followRedirects = followRedirects;
      this.timeout = timeout;
    }

    CompletableFuture<HttpResponse<byte[]>> send(URI uri, HttpRequest request) {
      at = uri;
      CompletableFuture<HttpResponse<byte[]>> sent = client.sendAsync(request,
          info -> new BoundedBodySubscriber(SignalParser.MAX_BODY_BYTES));
      inFlight = sent;
      return sent.thenCompose(response -> next(uri, response));
    }

    void cancel() {
      CompletableFuture<?> sent = inFlight;
      if (sent != null) {
        sent.cancel(true);
      }
    }

    /** Returns the response, or the response of the redirect it names if it is one to follow. */
    private CompletableFuture<HttpResponse<byte[]>> next(URI uri, HttpResponse<byte[]> response) {
      Optional<String> location = response.headers().firstValue("location");
      if (!followRedirects || !isRedirect(response.statusCode()) || location.isEmpty()) {
        return CompletableFuture.completedFuture(response);
      }
      if (++followed > MAX_REDIRECTS) {
        return CompletableFuture.failedFuture(new CliException("GET " + uri + " failed: more"
            + " than " + MAX_REDIRECTS + " redirects (-L follows at most " + MAX_REDIRECTS + ")"));
      }
      URI target;
      try {
        target = uri.resolve(location.get().strip());
      } catch (IllegalArgumentException e) {
        return CompletableFuture.failedFuture(new CliException("GET " + uri + " redirected to"
            + " a Location that is not a URL: " + Printable.of(location.get())));
      }
      String scheme = target.getScheme() == null ? ""
          : target.getScheme().toLowerCase(Locale.ROOT);
      if (!scheme.equals("http") && !scheme.equals("https")) {
        return CompletableFuture.failedFuture(new CliException("GET " + uri + " redirected to "
            + Printable.of(target.toString()) + ", which is not an http or https URL"));
      }
      if (!origin(target).equals(origin(uri))) {
        dropCredentials(target);
      }
      try {
        return send(target, request(target, headers, timeout));
      } catch (CliException e) {
        return CompletableFuture.failedFuture(e);
      } catch (IllegalArgumentException e) {
        return CompletableFuture.failedFuture(new CliException("GET " + uri + " redirected to "
            + Printable.of(target.toString()) + ", which cannot be requested: " + e.getMessage()));
      }
    }

    /** Leaves the credential headers out of every later request, saying so once. */
    private void dropCredentials(URI target) {
      List<String[]> kept = new ArrayList<>();
      List<String> dropped = new ArrayList<>();
      for (String[] header : headers) {
        if (isCredential(header[0])) {
          dropped.add(header[0].strip());
        } else {
          kept.add(header);
        }
      }
      if (!dropped.isEmpty()) {
        headers = List.copyOf(kept);
        notes.add("redirect: -H " + String.join(", -H ", dropped) + " not sent to "
            + Printable.of(origin(target)) + " and after: another origin than the URL's"
            + " (credentials stay with the URL's origin)");
      }
    }
  }

  /** Whether the header {@code name} carries a credential (see the class description). */
  static boolean isCredential(String name) {
    String lower = name.strip().toLowerCase(Locale.ROOT);
    return CREDENTIAL_PARTS.stream().anyMatch(lower::contains);
  }

  /** Whether {@code status} is a redirect that names where to go in {@code Location}. */
  private static boolean isRedirect(int status) {
    return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
  }

  /** Returns {@code scheme://host:port} of {@code uri}, with the scheme's default port. */
  private static String origin(URI uri) {
    String scheme = uri.getScheme().toLowerCase(Locale.ROOT);
    String host = uri.getHost() != null ? uri.getHost() : String.valueOf(uri.getRawAuthority());
    int port = uri.getPort() != -1 ? uri.getPort() : scheme.equals("https") ? 443 : 80;
    return scheme + "://" + host.toLowerCase(Locale.ROOT) + ":" + port;
  }

  private static CliException timedOut(URI url, Duration timeout) {
    return new CliException("GET " + url + " timed out after " + Seconds.text(timeout) + " s");
  }

  /** Whether {@code e} or a cause says the host's name did not resolve. */
  private static boolean unknownHost(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof java.net.UnknownHostException
          || t instanceof java.nio.channels.UnresolvedAddressException) {
        return true;
      }
    }
    return false;
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
