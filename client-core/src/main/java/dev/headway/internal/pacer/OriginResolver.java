package dev.headway.internal.pacer;

import dev.headway.PartitionKeyResolver;
import dev.headway.RequestInfo;
import java.net.URI;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * The default resolver: the origin, {@code scheme://host:port}. Recently seen origins are cached
 * in a small array indexed by hash, so that resolving a known origin allocates nothing.
 *
 * <p>A host that is not a valid internet host name, such as one with an underscore
 * ({@code billing_api.internal}), makes {@link URI} parse the authority as registry-based:
 * {@code getHost()} is null and {@code getPort()} -1, though HTTP clients send to such hosts. The
 * host and port are then read from the raw authority ({@link #host(URI)}, {@link #port(URI)}), so
 * that each such host has a partition of its own.
 * Thread-safe: cache entries are immutable and published through final fields.
 */
public final class OriginResolver implements PartitionKeyResolver {
  /** The shared instance. */
  public static final OriginResolver INSTANCE = new OriginResolver();

  private static final int SIZE = 256;
  private final Entry[] cache = new Entry[SIZE];

  private OriginResolver() {}

  @Override
  public String resolve(RequestInfo request) {
    URI uri = request.uri();
    String scheme = uri.getScheme();
    String host = uri.getHost();
    int port = uri.getPort();
    if (host == null) {
      host = host(uri);
      port = port(uri);
    }
    int h = (scheme.hashCode() * 31 + (host == null ? 0 : host.hashCode())) * 31 + port;
    int index = (h ^ (h >>> 16)) & (SIZE - 1);
    Entry e = cache[index];
    if (e != null && e.port == port && e.scheme.equals(scheme)
        && (host == null ? e.host == null : host.equals(e.host))) {
      return e.key;
    }
    String key = origin(scheme, host, port);
    cache[index] = new Entry(scheme, host, port, key);
    return key;
  }

  /**
   * Returns the host of {@code uri}: {@link URI#getHost()}, or for an authority that {@code URI}
   * does not parse as a server's (a host with an underscore) the authority's text without user
   * info and port; null if {@code uri} has no authority.
   */
  static @Nullable String host(URI uri) {
    String host = uri.getHost();
    if (host != null) {
      return host;
    }
    String authority = hostAndPort(uri);
    if (authority == null || authority.isEmpty()) {
      return null;
    }
    int colon = portColon(authority);
    return colon < 0 ? authority : authority.substring(0, colon);
  }

  /**
   * Returns the port of {@code uri}: {@link URI#getPort()}, or for an authority that {@code URI}
   * does not parse as a server's the digits after its host; -1 if none is given.
   */
  static int port(URI uri) {
    if (uri.getHost() != null) {
      return uri.getPort();
    }
    String authority = hostAndPort(uri);
    int colon = authority == null ? -1 : portColon(authority);
    return colon < 0 || colon == authority.length() - 1 ? -1
        : Integer.parseInt(authority, colon + 1, authority.length(), 10);
  }

  /** Returns the raw authority of {@code uri} without its user info; null if it has none. */
  private static @Nullable String hostAndPort(URI uri) {
    String authority = uri.getRawAuthority();
    return authority == null ? null : authority.substring(authority.lastIndexOf('@') + 1);
  }

  /**
   * Returns the index of the colon before the port of {@code hostAndPort} (at most 9 digits,
   * possibly none), or -1 if it has no port.
   */
  private static int portColon(String hostAndPort) {
    int colon = hostAndPort.lastIndexOf(':');
    if (colon < 0 || hostAndPort.lastIndexOf(']') > colon
        || hostAndPort.length() - colon - 1 > 9) {
      return -1;
    }
    for (int i = colon + 1; i < hostAndPort.length(); i++) {
      char c = hostAndPort.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
    }
    return colon;
  }

  /** Returns the origin key of a URI's parts. */
  public static String origin(String scheme, String host, int port) {
    String s = scheme.toLowerCase(Locale.ROOT);
    if (port == -1) {
      port = "https".equals(s) ? 443 : "http".equals(s) ? 80 : -1;
    }
    String hostKey = host == null ? "" : host.toLowerCase(Locale.ROOT);
    return s + "://" + hostKey + ":" + port;
  }

  @Override
  public String toString() {
    return "origin";
  }

  private static final class Entry {
    final String scheme;
    final String host;
    final int port;
    final String key;

    Entry(String scheme, String host, int port, String key) {
      this.scheme = scheme;
      this.host = host;
      this.port = port;
      this.key = key;
    }
  }
}
