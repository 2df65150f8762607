package dev.headway;

import dev.headway.internal.pacer.Sha256;
import java.net.URI;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * What the {@link Pacer} knows of an outgoing request: enough to find its partition and its cost.
 *
 * <p>{@link #toString()} shows no secret, as it ends up in logs: the URI only as its scheme,
 * host and port, the rest (a path such as {@code /bot<token>/sendMessage}, a query such as
 * {@code ?api_key=...}, user info) as {@code /… (#} and 8 hex digits of the SHA-256 of the whole
 * URI {@code )}, e.g. {@code https://api.telegram.org/… (#5d41402a)}; the headers as {@link
 * HttpFields#toString()} shows them (credentials redacted). The accessors return everything.
 *
 * @param method the HTTP method, upper-case
 * @param uri the absolute request URI
 * @param headers the request's header fields (for credential-based partitions)
 * @param contentLength the request body's length in bytes, if known
 */
public record RequestInfo(String method, URI uri, HttpFields headers, OptionalLong contentLength) {

  /**
   * Validates the components.
   *
   * @param method the HTTP method, upper-case
   * @param uri the absolute request URI
   * @param headers the request's header fields; {@link HttpFields#empty()} for none
   * @param contentLength the request body's length in bytes, if known
   * @throws IllegalArgumentException if {@code uri} is not absolute
   */
  public RequestInfo {
    Objects.requireNonNull(method, "method must not be null");
    Objects.requireNonNull(uri, "uri must not be null");
    Objects.requireNonNull(headers, "headers must not be null");
    Objects.requireNonNull(contentLength, "contentLength must not be null");
    if (!uri.isAbsolute()) {
      throw new IllegalArgumentException("uri must be absolute but was " + uri);
    }
  }

  /**
   * Returns a description of this request that shows no secret (see the class description).
   *
   * @return the method, the URI's origin and a hash of the rest, the headers redacted, the length
   */
  @Override
  public String toString() {
    return "RequestInfo[method=" + method + ", uri=" + shown(uri) + ", headers=" + headers
        + ", contentLength=" + contentLength + "]";
  }

  /** The URI's scheme, host and port as given; anything more as {@code /… (#hash)}. */
  private static String shown(URI uri) {
    String host = uri.getHost();
    StringBuilder text = new StringBuilder(uri.getScheme()).append(':');
    if (host != null) {
      text.append("//").append(host);
      if (uri.getPort() >= 0) {
        text.append(':').append(uri.getPort());
      }
      String path = uri.getRawPath();
      if (uri.getRawUserInfo() == null && uri.getRawQuery() == null
          && uri.getRawFragment() == null && (path == null || path.isEmpty() || path.equals("/"))) {
        return text.append(path == null ? "" : path).toString();
      }
      text.append('/');
    }
    return text.append("… (#").append(Sha256.hex(uri.toString(), 8)).append(')').toString();
  }

  /**
   * Returns a request with no headers and no body.
   *
   * @param method the HTTP method, upper-case
   * @param uri the absolute request URI
   * @return a new request description
   * @throws IllegalArgumentException if {@code uri} is not absolute
   */
  public static RequestInfo of(String method, URI uri) {
    return new RequestInfo(method, uri, HttpFields.empty(), OptionalLong.empty());
  }

  /**
   * Returns a {@code GET} request with no headers.
   *
   * @param uri the absolute request URI
   * @return a new request description
   * @throws IllegalArgumentException if {@code uri} is not absolute
   */
  public static RequestInfo get(URI uri) {
    return of("GET", uri);
  }
}
