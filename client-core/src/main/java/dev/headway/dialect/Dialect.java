package dev.headway.dialect;

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
}
