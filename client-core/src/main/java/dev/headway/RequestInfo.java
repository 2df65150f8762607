package dev.headway;

import java.net.URI;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * What the {@link Pacer} knows of an outgoing request: enough to find its partition and its cost.
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
    Objects.requireNonNull(method, "method");
    Objects.requireNonNull(uri, "uri");
    Objects.requireNonNull(headers, "headers");
    Objects.requireNonNull(contentLength, "contentLength");
    if (!uri.isAbsolute()) {
      throw new IllegalArgumentException("uri must be absolute but was " + uri);
    }
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
