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

  /** How many hex digits of the SHA-256 of a key {@link #shown} gives. */
  static final int SHOWN_HASH_DIGITS = 8;

  private PartitionNames() {}

  /**
   * Returns how a partition key is shown in messages, events' and snapshots' {@code toString}
   * and log lines, where a secret must never appear: a plain origin ({@code
   * scheme://host:port}, what the default resolver returns) as it is; a key that starts with an
   * origin and has more (a path prefix, a credential hash, a server's {@code pk}) as the origin
   * followed by {@code  (key #} and the first 8 hex digits of the SHA-256 of the whole key
   * (UTF-8) and {@code )}, e.g. {@code https://api.telegram.org:443 (key #1f3a9c0e)}; any other
   * key (a custom resolver's) as {@code key #} and that hash. The hash tells partitions apart
   * and can be matched against a key the user holds; the key itself is never shown.
   */
  public static String shown(String key) {
    int origin = originLength(key);
    if (origin == key.length()) {
      return key;
    }
    String hash = "key #" + Sha256.hex(key, SHOWN_HASH_DIGITS);
    return origin < 0 ? hash : key.substring(0, origin) + " (" + hash + ")";
  }

  /**
   * Returns the length of the origin ({@code scheme://host:port}) at the start of {@code key},
   * or -1 if it does not start with one.
   */
  public static int originLength(String key) {
    int colonSlashes = key.indexOf("://");
    if (colonSlashes <= 0 || colonSlashes > 32 || !isAsciiLetter(key.charAt(0))) {
      return -1;
    }
    for (int i = 1; i < colonSlashes; i++) {
      char c = key.charAt(i);
      if (!isAsciiLetter(c) && !(c >= '0' && c <= '9') && c != '+' && c != '-' && c != '.') {
        return -1;
      }
    }
    int end = colonSlashes + 3;
    while (end < key.length() && end - colonSlashes < 300 && isHostChar(key.charAt(end))) {
      end++;
    }
    if (end < key.length() && key.charAt(end) == '@') {
      return -1; // user info, not a host
    }
    int portColon = key.lastIndexOf(':', end - 1);
    if (portColon < colonSlashes + 3) {
      return -1;
    }
    int digitsFrom = portColon + 1 < end && key.charAt(portColon + 1) == '-'
        ? portColon + 2 : portColon + 1;
    if (digitsFrom == end || end - digitsFrom > 5) {
      return -1;
    }
    for (int i = digitsFrom; i < end; i++) {
      if (key.charAt(i) < '0' || key.charAt(i) > '9') {
        return -1;
      }
    }
    return end;
  }

  private static boolean isAsciiLetter(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  }

  /** Whether {@code c} may appear in a host and port as the origin keys spell them. */
  private static boolean isHostChar(char c) {
    return isAsciiLetter(c) || (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_'
        || c == '~' || c == '%' || c == ':' || c == '[' || c == ']';
  }

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
    int port = OriginResolver.port(uri);
    if (port == 0 || port > 65535) {
      throw new IllegalArgumentException("partition \"" + partition + "\" has port " + port
          + ", not one from 1 to 65535 that a request could be sent to: " + EXPECTED);
    }
    return OriginResolver.origin(scheme, host, port);
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
