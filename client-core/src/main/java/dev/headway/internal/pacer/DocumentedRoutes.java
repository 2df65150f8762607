package dev.headway.internal.pacer;

import dev.headway.dialect.Dialect;
import java.net.URI;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The dialects of a pacer's parser that document which of their policies governs which request
 * ({@link Dialect#documentedPolicy}), by dialect name: the {@link RouteTable}'s rule for a route
 * it has not learned yet. A dialect that throws from its hook is treated as documenting nothing
 * (user code must not break pacing). Immutable and thread-safe.
 */
final class DocumentedRoutes {
  static final DocumentedRoutes NONE = new DocumentedRoutes(List.of());
  /** A URI every documenting dialect answers for (the hook's contract: all or none). */
  private static final URI PROBE = URI.create("https://example.com/");

  private final Map<String, Dialect> byName = new HashMap<>();

  DocumentedRoutes(List<? extends Dialect> dialects) {
    for (Dialect dialect : dialects) {
      if (answers(dialect)) {
        byName.putIfAbsent(dialect.name(), dialect);
      }
    }
  }

  /** Whether the dialect named {@code source} documents its policies' requests. */
  boolean covers(String source) {
    return byName.containsKey(source);
  }

  /**
   * Returns the policy of dialect {@code source} that governs a request to {@code uri}; null if
   * the dialect does not say, or throws (the route is then judged as if nothing were documented).
   */
  @Nullable String policy(String source, URI uri) {
    Dialect dialect = byName.get(source);
    if (dialect == null) {
      return null;
    }
    try {
      return dialect.documentedPolicy(uri).orElse(null);
    } catch (RuntimeException | LinkageError e) {
      return null;
    }
  }

  private static boolean answers(Dialect dialect) {
    try {
      Optional<String> policy = dialect.documentedPolicy(PROBE);
      return policy != null && policy.isPresent();
    } catch (RuntimeException | LinkageError e) {
      return false;
    }
  }
}
