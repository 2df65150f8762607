package dev.headway.redis;

import io.lettuce.core.RedisURI;
import java.net.URI;

/**
 * Reads the {@link URI} a user gives for one Redis node ({@code redis://}, {@code rediss://})
 * into Lettuce's {@link RedisURI}, checked when the store's builder is made rather than at the
 * first call. {@code java.net.URI} reads a host name with an underscore ({@code redis_1}, a
 * Docker Compose service) as no host at all, and Lettuce then took {@code redis_1:6380} whole
 * for the host and 6379 for the port: a store that never reached Redis, its calls failing
 * ("Unable to connect to redis_1:6380/&lt;unresolved&gt;:6379") while the pacer paced alone. Here
 * such an authority is split into host and port; a port that is not a number, a missing host or
 * anything else Lettuce cannot read is an {@link IllegalArgumentException} naming the URI
 * without its user and password. Sentinel and socket URIs go to Lettuce as they are.
 */
final class RedisUris {
  private RedisUris() {}

  /**
   * Returns {@code uri} (its scheme already Redis's) as Lettuce's URI.
   *
   * @throws IllegalArgumentException if it names no usable host and port, or Lettuce cannot read
   *     it
   */
  static RedisURI of(URI uri) {
    String scheme = uri.getScheme();
    boolean node = "redis".equals(scheme) || "rediss".equals(scheme);
    String host = null;
    int port = -1;
    if (node && uri.getHost() == null) {
      String authority = uri.getRawAuthority();
      String hostPort = authority == null ? "" : authority.substring(authority.lastIndexOf('@') + 1);
      int colon = hostPort.lastIndexOf(':');
      host = colon < 0 ? hostPort : hostPort.substring(0, colon);
      if (host.isEmpty() || host.contains(":") || host.contains("[")) {
        throw new IllegalArgumentException("uri must name a host, as redis://host:6379, but was "
            + shown(uri));
      }
      if (colon >= 0) {
        port = port(hostPort.substring(colon + 1), uri);
      }
    }
    RedisURI redis;
    try {
      redis = RedisURI.create(uri);
    } catch (IllegalArgumentException e) { // NumberFormatException too: a database not a number
      String message = String.valueOf(e.getMessage());
      String authority = uri.getRawAuthority(); // its user info, even where URI reads none
      int at = authority == null ? -1 : authority.lastIndexOf('@');
      String userInfo = at <= 0 ? "" : authority.substring(0, at);
      String password = userInfo.substring(userInfo.indexOf(':') + 1);
      boolean safe = userInfo.isEmpty()
          || !message.contains(userInfo) && (password.isEmpty() || !message.contains(password));
      throw new IllegalArgumentException("uri is not a Redis URI Lettuce can use ("
          + (safe ? message : e.getClass().getSimpleName()) + "): " + shown(uri),
          safe ? e : null);
    }
    if (host != null) {
      redis.setHost(host);
      if (port > 0) {
        redis.setPort(port);
      }
    }
    return redis;
  }

  private static int port(String text, URI uri) {
    if (text.isEmpty()) {
      return -1; // "host:" is the default port, as URI reads it
    }
    if (text.length() <= 5 && text.chars().allMatch(c -> c >= '0' && c <= '9')) {
      int port = Integer.parseInt(text);
      if (port >= 1 && port <= 65_535) {
        return port;
      }
    }
    throw new IllegalArgumentException("uri's port must be a number from 1 to 65535 but was \""
        + text + "\" in " + shown(uri));
  }

  /** {@code uri} as it may be shown: its scheme, host, port and path; never a user or password. */
  static String shown(URI uri) {
    String authority = uri.getRawAuthority();
    String hostPort = authority == null ? null
        : authority.substring(authority.lastIndexOf('@') + 1);
    return uri.getScheme() + "://" + (hostPort == null ? "" : hostPort)
        + (uri.getRawPath() == null ? "" : uri.getRawPath());
  }
}
