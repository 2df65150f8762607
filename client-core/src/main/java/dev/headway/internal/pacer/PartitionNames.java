package dev.headway.internal.pacer;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;

/**
 * Reads a partition as a user spells it: a host or an origin becomes the default resolver's key
 * ({@code https://api.github.com:443}); anything else is taken as given. Stateless.
 */
final class PartitionNames {
  private PartitionNames() {}

  static String normalize(String partition) {
    String p = partition.trim();
    if (p.isEmpty()) {
      throw new IllegalArgumentException("partition must be a host (api.example.com), an origin "
          + "(https://api.example.com) or a key of the partition resolver but was blank");
    }
    if (p.contains("://")) {
      try {
        URI uri = new URI(p);
        String scheme = uri.getScheme();
        String host = uri.getHost();
        boolean bare = uri.getRawPath() == null || uri.getRawPath().isEmpty()
            || uri.getRawPath().equals("/");
        if (host == null || scheme == null || !bare || uri.getRawQuery() != null) {
          return p; // a key of a custom resolver
        }
        scheme = scheme.toLowerCase(Locale.ROOT);
        int port = uri.getPort() >= 0 ? uri.getPort() : scheme.equals("http") ? 80 : 443;
        return scheme + "://" + host.toLowerCase(Locale.ROOT) + ":" + port;
      } catch (URISyntaxException e) {
        return p;
      }
    }
    if (p.indexOf('/') < 0 && p.indexOf(' ') < 0 && p.indexOf('.') > 0 && p.indexOf(':') < 0) {
      return "https://" + p.toLowerCase(Locale.ROOT) + ":443";
    }
    return p;
  }
}
