package dev.headway.internal.pacer;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * A scope the user declared: the server policy {@link #policy} counts exactly the requests whose
 * method and path match {@link #pattern} (and those of the other scopes declared for it).
 * Patterns: an optional method, then a path whose segments are literal, {@code *} or
 * {@code {name}} (any one segment), and may end with {@code **} (any rest). Matching reads the
 * path in place and allocates nothing. Immutable.
 */
public final class DeclaredScope {
  final String partition;
  final @Nullable String method;
  final String[] segments;
  final boolean anyRest;
  final String policy;
  final String pattern;

  private DeclaredScope(String partition, @Nullable String method, String[] segments,
      boolean anyRest, String policy, String pattern) {
    this.partition = partition;
    this.method = method;
    this.segments = segments;
    this.anyRest = anyRest;
    this.policy = policy;
    this.pattern = pattern;
  }

  /**
   * Validates and returns a declared scope.
   *
   * @param partition the partition key as the resolver names it; a host ({@code api.github.com})
   *     or an origin ({@code https://api.github.com}) is taken as the default resolver's key
   * @param route {@code "GET /search/*"}, or a path alone for any method
   * @param policy the server policy's name
   * @throws IllegalArgumentException if the route or policy can never match a request
   */
  public static DeclaredScope of(String partition, String route, String policy) {
    String key = PartitionNames.normalize(partition);
    if (policy.isBlank()) {
      throw new IllegalArgumentException("policy must be the name of a server policy (such as "
          + "\"search\") but was blank");
    }
    String trimmed = route.trim();
    String method = null;
    String path = trimmed;
    int space = trimmed.indexOf(' ');
    if (space >= 0) {
      method = trimmed.substring(0, space);
      path = trimmed.substring(space + 1).trim();
      if (method.isEmpty() || !method.chars().allMatch(c -> c >= 'A' && c <= 'Z')) {
        throw new IllegalArgumentException("route must be an optional upper-case method and a "
            + "path, such as \"GET /search/*\", but was \"" + route + "\"");
      }
    }
    if (!path.startsWith("/") || path.contains("?") || path.contains("#")
        || path.contains(" ")) {
      throw new IllegalArgumentException("route must be a path starting with '/' (no query), "
          + "optionally after a method, such as \"GET /search/*\", but was \"" + route + "\"");
    }
    List<String> parts = new ArrayList<>();
    for (String s : path.split("/")) {
      if (!s.isEmpty()) {
        parts.add(s);
      }
    }
    boolean anyRest = !parts.isEmpty() && parts.get(parts.size() - 1).equals("**");
    if (anyRest) {
      parts.remove(parts.size() - 1);
    }
    for (String s : parts) {
      if (s.contains("**")) {
        throw new IllegalArgumentException("route may use \"**\" only as its last segment but "
            + "was \"" + route + "\"");
      }
    }
    return new DeclaredScope(key, method, parts.toArray(new String[0]), anyRest, policy.trim(),
        (method == null ? "" : method + " ") + path);
  }

  /** Returns the partition key. */
  public String partition() {
    return partition;
  }

  /** Returns the policy's name. */
  public String policy() {
    return policy;
  }

  @Override
  public String toString() {
    return pattern + " -> " + policy + " on " + partition;
  }

  /** Whether a request of {@code method} for {@code rawPath} matches. */
  boolean matches(String method, String rawPath) {
    if (this.method != null && !this.method.equals(method.toUpperCase(Locale.ROOT))) {
      return false;
    }
    int start = 0;
    int i = 0;
    String path = rawPath == null ? "" : rawPath;
    while (true) {
      while (start < path.length() && path.charAt(start) == '/') {
        start++;
      }
      if (start >= path.length()) {
        return i == segments.length;
      }
      if (i == segments.length) {
        return anyRest;
      }
      int end = path.indexOf('/', start);
      if (end < 0) {
        end = path.length();
      }
      String want = segments[i];
      boolean any = want.equals("*") || (want.startsWith("{") && want.endsWith("}"));
      if (!any && !(want.length() == end - start && path.startsWith(want, start))) {
        return false;
      }
      i++;
      start = end;
    }
  }
}
