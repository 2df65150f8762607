package dev.headway;

import dev.headway.internal.pacer.CredentialResolver;
import dev.headway.internal.pacer.OriginResolver;
import java.util.Objects;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Maps a request to the partition whose quota it spends. The default is the request's origin
 * (scheme, host and port). A server's {@code pk} parameter splits a partition further.
 *
 * <p>Implementations must be thread-safe and fast: they run before every request.
 */
@FunctionalInterface
public interface PartitionKeyResolver {
  /**
   * Returns the partition key of {@code request}. A resolver with no key of its own for a request
   * (no tenant header, say) should return the default key, {@code origin().resolve(request)}: a
   * resolver that returns {@code null} anyway gets that, the request's origin, as does one that
   * throws (which is logged); {@link Pacer#acquire acquire} and {@link Pacer#quota quota(uri)}
   * read it alike.
   *
   * @param request the request about to be sent
   * @return the partition key; requests with equal keys share one quota state
   */
  String resolve(RequestInfo request);

  /**
   * Returns the default resolver: the origin, e.g. {@code https://api.github.com:443}. Known
   * origins resolve without allocating.
   *
   * @return the shared origin resolver
   */
  static PartitionKeyResolver origin() {
    return OriginResolver.INSTANCE;
  }

  /**
   * Returns a resolver keyed by the origin and the first {@code segments} segments of the path,
   * e.g. {@code https://api.example.com:443/v1/search} for {@code segments = 2} and the URI
   * {@code https://api.example.com/v1/search/code?q=x}; for APIs whose quotas differ per
   * resource family.
   *
   * @param segments how many leading path segments belong to the key; 0 for the origin alone
   * @return a new resolver
   * @throws IllegalArgumentException if {@code segments} is negative
   */
  static PartitionKeyResolver originAndPathPrefix(int segments) {
    if (segments < 0) {
      throw new IllegalArgumentException("segments must not be negative but was " + segments);
    }
    return request -> {
      String origin = OriginResolver.INSTANCE.resolve(request);
      String path = request.uri().getRawPath();
      if (path == null || path.isEmpty() || segments == 0) {
        return origin;
      }
      int end = 0;
      for (int i = 0; i < segments; i++) {
        int next = path.indexOf('/', end + 1);
        if (next < 0) {
          end = path.length();
          break;
        }
        end = next;
      }
      return origin + path.substring(0, end);
    };
  }

  /**
   * Returns a resolver keyed by the origin and a hash of a credential header (e.g.
   * {@code Authorization}), for a client acting for many users (draft section 7.1). The
   * credential itself is never kept: the key holds a salted SHA-256 prefix, e.g.
   * {@code https://api.example.com:443#cred=3f2a9c0e1b7d4a55}. Requests without the header
   * share the origin's partition. The salt is random per resolver, so keys differ between runs
   * and between processes: for instances that share a {@linkplain Pacer.Builder#store store},
   * use {@link #originAndCredential(String, String)}. A pacer with a store refuses this resolver
   * at {@code build()}, given directly or called by a resolver of yours; a call that reaches it
   * only at run time for such a pacer goes to the request's origin partition (logged).
   *
   * @param headerName the name of the request header that carries the credential, in any case
   * @return a new resolver with its own random salt
   * @throws IllegalArgumentException if {@code headerName} is blank or not a field name
   */
  static PartitionKeyResolver originAndCredential(String headerName) {
    checkHeaderName(headerName);
    return new CredentialResolver(headerName);
  }

  /**
   * Returns a resolver keyed by the origin and a keyed hash of a credential header, the same in
   * every process given the same {@code fleetSecret}: the resolver for a fleet of instances that
   * share a {@linkplain Pacer.Builder#store store} and act for many users. The key holds the
   * first 64 bits of HMAC-SHA256(fleetSecret, credential), e.g. {@code
   * https://api.example.com:443#cred=3f2a9c0e1b7d4a55}; neither the credential nor the secret is
   * kept, and without the secret a reader of the store cannot test guesses of a credential.
   * Give every instance the same secret (from your secret manager, as you give them the API
   * key); changing it starts new partitions. Requests without the header share the origin's
   * partition.
   *
   * @param fleetSecret the HMAC key every instance of the fleet shares; at least 16 characters
   * @param headerName the name of the request header that carries the credential, in any case
   * @return a new resolver
   * @throws IllegalArgumentException if {@code headerName} is blank or not a field name, or
   *     {@code fleetSecret} is shorter than 16 characters
   */
  static PartitionKeyResolver originAndCredential(String headerName, String fleetSecret) {
    checkHeaderName(headerName);
    Objects.requireNonNull(fleetSecret, "fleetSecret must not be null");
    if (fleetSecret.length() < 16) {
      // Never echo a secret in a message.
      throw new IllegalArgumentException(
          "fleetSecret must have at least 16 characters but had " + fleetSecret.length());
    }
    return new CredentialResolver(headerName, fleetSecret);
  }

  private static void checkHeaderName(String headerName) {
    Objects.requireNonNull(headerName, "headerName must not be null");
    if (headerName.isBlank()) {
      throw new IllegalArgumentException("headerName must not be blank but was \""
          + headerName + "\"");
    }
    for (int i = 0; i < headerName.length(); i++) {
      char c = headerName.charAt(i);
      boolean tchar = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
          || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
      if (!tchar) {
        // No request carries a field of that name: the resolver would never see a credential.
        throw new IllegalArgumentException("headerName must be a field name (letters, digits"
            + " and !#$%&'*+-.^_`|~, such as Authorization) but was \"" + headerName + "\"");
      }
    }
  }

  /**
   * Returns a resolver built from any function of the request. The function returns {@code null}
   * for a request it has no key for: that request goes to its origin's partition, as with
   * {@link #origin()} (so requests without a key to different hosts do not share a partition).
   *
   * @param function returns the partition key of a request, or {@code null} for its origin
   * @return a resolver that calls {@code function}; it never returns {@code null}
   */
  static PartitionKeyResolver of(Function<? super RequestInfo, ? extends @Nullable String>
      function) {
    Objects.requireNonNull(function, "function must not be null");
    return request -> {
      String key = function.apply(request);
      return key != null ? key : OriginResolver.INSTANCE.resolve(request);
    };
  }
}
