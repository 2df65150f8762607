package dev.headway;

import java.util.Objects;
import java.util.function.Function;

/**
 * Maps a request to the partition whose quota it spends. The default is the request's origin
 * (scheme, host and port). A server's {@code pk} parameter splits a partition further.
 *
 * <p>Implementations must be thread-safe and fast: they run before every request.
 */
@FunctionalInterface
public interface PartitionKeyResolver {
  /** Returns the partition key of {@code request}; never {@code null}. */
  String resolve(RequestInfo request);

  /** Returns the default resolver: the origin, e.g. {@code https://api.github.com:443}. */
  static PartitionKeyResolver origin() {
    return request -> {
      java.net.URI uri = request.uri();
      String scheme = uri.getScheme().toLowerCase(java.util.Locale.ROOT);
      int port = uri.getPort();
      if (port == -1) {
        port = "https".equals(scheme) ? 443 : "http".equals(scheme) ? 80 : -1;
      }
      String host = uri.getHost() == null ? "" : uri.getHost().toLowerCase(java.util.Locale.ROOT);
      return scheme + "://" + host + ":" + port;
    };
  }

  /** Returns a resolver built from any function of the request. */
  static PartitionKeyResolver of(Function<? super RequestInfo, String> function) {
    Objects.requireNonNull(function, "function");
    return function::apply;
  }
}
