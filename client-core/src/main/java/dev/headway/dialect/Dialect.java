package dev.headway.dialect;

import java.net.URI;
import java.util.Optional;

/**
 * Reads one family of rate-limit headers (a dialect) into a {@link SignalSink}.
 *
 * <p>A dialect must never throw for anything a server sends: a malformed value is reported with
 * {@link SignalSink#warn} and skipped. Values need no clamping: the parser applies the
 * {@link dev.headway.SanityCaps} to whatever a dialect reports. Implementations must be
 * thread-safe; the built-in ones are stateless.
 *
 * <pre>{@code
 * final class AcmeDialect implements Dialect {
 *   public String name() { return "acme"; }
 *   public void read(DialectContext context, SignalSink sink) {
 *     context.headers().firstValue("Acme-Calls-Left").ifPresent(v -> ...);
 *   }
 * }
 * }</pre>
 */
public interface Dialect {
  /**
   * Returns the dialect's name, as reported in {@link dev.headway.RateLimitSignal#dialects()}.
   *
   * @return a short, lower-case, stable name such as {@code "github"}
   */
  String name();

  /**
   * Reads what this dialect understands of the response; reports nothing if it sees nothing.
   *
   * @param context the response: status, headers and its time
   * @param sink where the dialect reports what it read, and its warnings
   */
  void read(DialectContext context, SignalSink sink);

  /**
   * Returns which of this dialect's policies governs a request to {@code requestUri}, for a
   * vendor that documents it per path. GitHub, for example, documents a {@code search} resource
   * for {@code /search/...} and {@code core} for the paths no other resource names, so that before
   * any response of a route was seen the pacer already knows that a search does not spend the
   * {@code core} quota. A dialect that knows answers for every request URI of the hosts it reads;
   * the default, for vendors that do not document it, answers for none: the pacer then learns
   * which policies a route spends from the policies its responses name.
   *
   * @param requestUri the URI of a request to a host whose responses this dialect read
   * @return the name of the policy, as this dialect reports it, that governs the request; empty
   *     if the vendor does not document it
   */
  default Optional<String> documentedPolicy(URI requestUri) {
    return Optional.empty();
  }
}
