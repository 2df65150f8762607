package dev.headway.internal.pacer;

import dev.headway.PartitionKeyResolver;
import dev.headway.RequestInfo;
import java.net.URI;
import java.util.Locale;

/**
 * The default resolver: the origin, {@code scheme://host:port}. Recently seen origins are cached
 * in a small array indexed by hash, so that resolving a known origin allocates nothing.
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
