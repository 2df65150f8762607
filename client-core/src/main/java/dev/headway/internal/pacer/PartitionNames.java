package dev.headway.internal.pacer;

import dev.headway.PartitionKeyResolver;
import java.net.URI;
import java.net.URISyntaxException;

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
    String host = OriginResolver.host(uri);
    if (host == null || scheme == null) {
      throw new IllegalArgumentException("partition \"" + partition + "\" names no host: "
          + EXPECTED);
    }
    if (!scheme.equalsIgnoreCase("http") && !scheme.equalsIgnoreCase("https")) {
      throw new IllegalArgumentException("partition \"" + partition + "\" has scheme " + scheme
          + ", not http or https: " + EXPECTED);
    }
    String path = uri.getRawPath();
    String authority = uri.getRawAuthority();
    if (uri.getRawUserInfo() != null || (authority != null && authority.contains("@"))
        || uri.getRawQuery() != null || uri.getRawFragment() != null
        || (path != null && !path.isEmpty() && !path.equals("/"))) {
      throw new IllegalArgumentException("partition \"" + partition + "\" has more than an"
          + " origin (the resolver " + resolver + " keys partitions by scheme, host and port"
          + " only): " + EXPECTED);
    }
    return OriginResolver.origin(scheme, host, OriginResolver.port(uri));
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
    if (uri.isOpaque() || OriginResolver.host(uri) == null) {
      throw new IllegalArgumentException("uri must have a host (e.g."
          + " https://api.example.com/items) but " + uri + " has none");
    }
    return uri;
  }

  /**
   * Reads a partition named in a declared scope: a host, a host and port, or an origin becomes
   * the default resolver's key ({@code https://api.github.com:443}), as in {@link #declared};
   * anything else is taken as given (a key of a custom resolver).
   *
   * @throws IllegalArgumentException if the name is blank
   */
  static String normalize(String partition) {
    if (partition.isBlank()) {
      throw new IllegalArgumentException("partition must be a host (api.example.com), an origin "
          + "(https://api.example.com) or a key of the partition resolver but was blank");
    }
    try {
      return declared(partition, OriginResolver.INSTANCE);
    } catch (IllegalArgumentException notAnOrigin) {
      return partition.strip(); // a key of a custom resolver
    }
  }
}
