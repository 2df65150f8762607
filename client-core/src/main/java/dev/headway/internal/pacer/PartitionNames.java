package dev.headway.internal.pacer;

import dev.headway.PartitionKeyResolver;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;

/**
 * Spells partitions the way the built-in resolvers do: checks a partition named by the user
 * (in {@code declare}) and a URI asked about (in {@code quota}), so that a name that can never
 * match fails at once with a message that says what was expected.
 */
public final class PartitionNames {
  private static final String EXPECTED = "expected a host (api.example.com), a host and port"
      + " (api.example.com:8443) or an origin (https://api.example.com or"
      + " https://api.example.com:443)";

  private PartitionNames() {}

  /**
   * Returns the key a declared partition name stands for under {@code resolver}. For the
   * built-in origin-keyed resolvers ({@code origin()}, {@code originAndCredential}) a host, a
   * host and port, or an origin is accepted and spelled as the resolver spells it ({@code
   * api.example.com} and {@code https://API.example.com/} both become {@code
   * https://api.example.com:443}); anything else can never match and is rejected. A name given
   * to any other resolver is kept as written, only checked not to be blank.
   *
   * @throws IllegalArgumentException if the name can never match a partition of the resolver
   */
  public static String declared(String partition, PartitionKeyResolver resolver) {
    if (partition.isBlank()) {
      throw new IllegalArgumentException("partition must not be blank: " + EXPECTED);
    }
    if (!(resolver instanceof OriginResolver) && !(resolver instanceof CredentialResolver)) {
      return partition;
    }
    String text = partition.strip();
    boolean hasScheme = text.contains("://");
    URI uri;
    try {
      uri = new URI(hasScheme ? text : "https://" + text);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("partition \"" + partition + "\" is not a host or an"
          + " origin (" + e.getReason() + "): " + EXPECTED);
    }
    String scheme = uri.getScheme();
    if (uri.getHost() == null || scheme == null) {
      throw new IllegalArgumentException("partition \"" + partition + "\" names no host: "
          + EXPECTED);
    }
    if (!scheme.equalsIgnoreCase("http") && !scheme.equalsIgnoreCase("https")) {
      throw new IllegalArgumentException("partition \"" + partition + "\" has scheme " + scheme
          + ", not http or https: " + EXPECTED);
    }
    String path = uri.getRawPath();
    if (uri.getRawUserInfo() != null || uri.getRawQuery() != null || uri.getRawFragment() != null
        || (path != null && !path.isEmpty() && !path.equals("/"))) {
      throw new IllegalArgumentException("partition \"" + partition + "\" has more than an"
          + " origin (the resolver " + resolver + " keys partitions by scheme, host and port"
          + " only): " + EXPECTED);
    }
    return OriginResolver.origin(scheme, uri.getHost(), uri.getPort());
  }

  /**
   * Checks that {@code uri} can be paced: it needs a scheme and a host ({@code mailto:} or
   * {@code file:///} URIs have no origin).
   *
   * @throws IllegalArgumentException naming what is missing
   */
  public static URI requireOrigin(URI uri) {
    if (uri.getScheme() == null) {
      throw new IllegalArgumentException("uri must be absolute (with a scheme and a host, e.g."
          + " https://api.example.com/items) but was " + uri);
    }
    if (uri.isOpaque() || uri.getHost() == null) {
      throw new IllegalArgumentException("uri must have a host (e.g."
          + " https://api.example.com/items) but " + uri + " has none");
    }
    return uri;
  }

  /**
   * Reads a partition named in a declared scope: a host or an origin becomes the default
   * resolver's key ({@code https://api.github.com:443}); anything else is taken as given (a key of
   * a custom resolver).
   */
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
