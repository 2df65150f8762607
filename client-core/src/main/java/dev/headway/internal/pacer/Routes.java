package dev.headway.internal.pacer;

import java.net.URI;
import org.jspecify.annotations.Nullable;

/**
 * Route shapes: a request's method and path with ids collapsed ({@code /repos/{x}/{x}/issues/{n}})
 * and, if configured, its scope attribute (such as a model name). {@link #hash} reads the path in
 * place and allocates nothing; {@link #key} builds the readable form, once per new route. A path
 * segment is an id when it is all digits ({@code {n}}), or has a digit or is long, and is not a
 * version such as {@code v1} ({@code {x}}). At most {@link #MAX_SEGMENTS} segments count.
 *
 * <p>{@link #cachedHash} remembers the hashes of recently seen {@code URI} objects (by identity:
 * an adapter that keeps its URIs, or a caller that reuses its request, asks again with the same
 * object), so the hot path of an acquire does not rehash the path. Thread-safe: entries are
 * immutable, published through final fields; a lost race only costs a rehash.
 */
final class Routes {
  static final int MAX_SEGMENTS = 8;
  private static final long FNV_OFFSET = 0xcbf29ce484222325L;
  private static final long FNV_PRIME = 0x100000001b3L;
  private static final int LITERAL = 0;
  private static final int NUMBER = 1;
  private static final int ID = 2;

  private static final int CACHE_SIZE = 256;
  /** The recent hashes, by the URI's identity hash. */
  private static final Hashed[] CACHE = new Hashed[CACHE_SIZE];
  /**
   * The identity hash of the URI last missed in each slot, 0 after a hit: an entry is made on
   * the second miss of the same URI with no hit between, so URIs seen once (a new one per call)
   * make no garbage here, nor do two URIs used in turn on one slot.
   */
  private static final int[] SEEN = new int[CACHE_SIZE];

  private Routes() {}

  /**
   * Returns {@link #hash}, from the cache when the same {@code uri} object was hashed recently
   * with the same method and attribute.
   */
  static long cachedHash(String method, URI uri, @Nullable String attribute) {
    int id = System.identityHashCode(uri);
    int slot = (id ^ (id >>> 16)) & (CACHE_SIZE - 1);
    Hashed e = CACHE[slot];
    if (e != null && e.uri == uri && e.method.equals(method)
        && (attribute == null ? e.attribute == null : attribute.equals(e.attribute))) {
      if (SEEN[slot] != 0) {
        // The entry is in use: a URI that missed here must miss twice in a row again to take
        // the slot. Else two URIs used in turn on one slot would take it from each other, an
        // entry every few calls (an identity hash is never 0).
        SEEN[slot] = 0;
      }
      return e.hash;
    }
    long h = hash(method, uri, attribute);
    if (SEEN[slot] == id) {
      CACHE[slot] = new Hashed(uri, method, attribute, h);
    } else {
      SEEN[slot] = id;
    }
    return h;
  }

  /** Returns the 64-bit hash of the route of {@code method} and {@code uri}; never 0. */
  static long hash(String method, URI uri, @Nullable String attribute) {
    long h = FNV_OFFSET;
    for (int i = 0; i < method.length(); i++) {
      h = (h ^ method.charAt(i)) * FNV_PRIME;
    }
    String path = path(uri);
    int start = 0;
    int segments = 0;
    while (start < path.length() && segments < MAX_SEGMENTS) {
      if (path.charAt(start) == '/') {
        start++;
        continue;
      }
      int end = path.indexOf('/', start);
      if (end < 0) {
        end = path.length();
      }
      h = (h ^ '/') * FNV_PRIME;
      int kind = kind(path, start, end);
      if (kind == LITERAL) {
        for (int i = start; i < end; i++) {
          h = (h ^ path.charAt(i)) * FNV_PRIME;
        }
      } else {
        h = (h ^ (kind == NUMBER ? 0x10000 : 0x10001)) * FNV_PRIME;
      }
      segments++;
      start = end;
    }
    if (attribute != null) {
      h = (h ^ 0x10002) * FNV_PRIME;
      for (int i = 0; i < attribute.length(); i++) {
        h = (h ^ attribute.charAt(i)) * FNV_PRIME;
      }
    }
    return h == 0 ? 1 : h; // never 0: a permit's 0 means "not computed yet"
  }

  /** Returns the readable route, such as {@code GET /repos/{x}/{x}/issues/{n}}. */
  static String key(String method, URI uri, @Nullable String attribute) {
    StringBuilder b = new StringBuilder(method).append(' ');
    String path = path(uri);
    int start = 0;
    int segments = 0;
    while (start < path.length() && segments < MAX_SEGMENTS) {
      if (path.charAt(start) == '/') {
        start++;
        continue;
      }
      int end = path.indexOf('/', start);
      if (end < 0) {
        end = path.length();
      }
      int kind = kind(path, start, end);
      b.append('/');
      if (kind == LITERAL) {
        b.append(path, start, end);
      } else {
        b.append(kind == NUMBER ? "{n}" : "{x}");
      }
      segments++;
      start = end;
    }
    if (segments == 0) {
      b.append('/');
    }
    if (attribute != null) {
      b.append(" [").append(attribute).append(']');
    }
    return b.toString();
  }

  private static String path(URI uri) {
    String path = uri.getRawPath();
    return path == null ? "" : path;
  }

  private static int kind(String path, int start, int end) {
    int length = end - start;
    boolean digits = true;
    boolean anyDigit = false;
    for (int i = start; i < end; i++) {
      char c = path.charAt(i);
      boolean digit = c >= '0' && c <= '9';
      digits &= digit;
      anyDigit |= digit;
    }
    if (digits) {
      return NUMBER;
    }
    if (length > 24) {
      return ID;
    }
    if (!anyDigit) {
      return LITERAL;
    }
    // A version (v1, v2beta) is part of the route, not an id.
    if ((path.charAt(start) == 'v' || path.charAt(start) == 'V') && length > 1
        && Character.isDigit(path.charAt(start + 1))) {
      return LITERAL;
    }
    return ID;
  }

  /** A URI's route hash, for one method and attribute. */
  private static final class Hashed {
    final URI uri;
    final String method;
    final @Nullable String attribute;
    final long hash;

    Hashed(URI uri, String method, @Nullable String attribute, long hash) {
      this.uri = uri;
      this.method = method;
      this.attribute = attribute;
      this.hash = hash;
    }
  }
}
