package dev.headway;

import dev.headway.dialect.Dialect;
import dev.headway.internal.signal.BuiltInDialects;
import dev.headway.internal.signal.SignalReader;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Reads the rate-limit signals of an HTTP response into a {@link RateLimitSignal}.
 *
 * <p>It reads the IETF {@code RateLimit}/{@code RateLimit-Policy} structured fields, the older
 * {@code RateLimit-Limit}/{@code -Remaining}/{@code -Reset}, {@code X-RateLimit-*} and vendor
 * headers, {@code Retry-After}, JSON bodies of 403, 429 and 503 responses, and GraphQL cost
 * extensions in any body passed to it (see docs/signals.md). Partial information is kept (a
 * reset without a count, a policy without its limit), and
 * {@link RateLimitSignal#nextRequestDelay()} says when the next request may go. A built-in
 * dialect runs only when a header of its family is present; added dialects run on every
 * response. Malformed values are ignored and reported as warnings; parsing never throws for
 * anything a server sends.
 *
 * <pre>{@code
 * SignalParser parser = SignalParser.create();
 * RateLimitSignal signal = parser.parse(429,
 *     HttpFields.of("Retry-After", "20", "RateLimit", "\"default\";r=0;t=20"),
 *     Instant.now());
 * }</pre>
 *
 * <p>Immutable and thread-safe.
 */
public final class SignalParser {
  /** Bodies are read up to this many bytes; the rest is ignored. */
  public static final int MAX_BODY_BYTES = 16 * 1024;

  private final SanityCaps caps;
  private final List<Dialect> dialects;
  private final SignalReader reader;

  private SignalParser(Builder builder) {
    this.caps = builder.caps;
    this.dialects = List.copyOf(builder.dialects);
    this.reader = new SignalReader(caps, dialects);
  }

  /**
   * Returns a parser with the default {@link SanityCaps} and every built-in dialect.
   *
   * @return a new parser
   */
  public static SignalParser create() {
    return builder().build();
  }

  /**
   * Returns a builder starting from the defaults.
   *
   * @return a new builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Reads the signals of a response's status and headers.
   *
   * @param receivedAt when the response was received (wall clock); the base for epoch resets when
   *     the response has no {@code Date} field
   * @param status the response's HTTP status code
   * @param headers the response's header fields
   * @return what the response says about rate limits; {@link RateLimitSignal#isEmpty() empty} when
   *     it says nothing
   */
  public RateLimitSignal parse(int status, HttpFields headers, Instant receivedAt) {
    return reader.read(status, headers, null, receivedAt);
  }

  /**
   * Reads the signals of a response's status, headers and body. Only the first
   * {@link #MAX_BODY_BYTES} bytes of the body are read: for every hint when
   * {@link #readsBody(int, HttpFields)} holds and the body is JSON (by its content type, or
   * because it starts with <code>{</code>); on any other status only for a GraphQL cost extension
   * ({@code extensions.cost.throttleStatus}). A body is never needed: without it the headers
   * still say everything they say. If the JSON library (Jackson 2.12 or later) is missing or
   * incompatible, the body is skipped with a warning.
   *
   * @param body the body bytes, or a prefix of them; {@code null} when unavailable
   * @param status the response's HTTP status code
   * @param headers the response's header fields
   * @param receivedAt when the response was received (wall clock); the base for epoch resets when
   *     the response has no {@code Date} field
   * @return what the response says about rate limits; never null
   */
  public RateLimitSignal parse(int status, HttpFields headers, byte @Nullable [] body,
      Instant receivedAt) {
    return reader.read(status, headers, body, receivedAt);
  }

  /**
   * Returns whether {@link #parse(int, HttpFields, byte[], Instant)} reads the body of a response
   * with this status and these headers for its hints: statuses 403, 429 and 503 whose
   * {@code Content-Type} is JSON ({@code application/json}, {@code text/json} or any
   * {@code +json} type, parameters ignored), absent, {@code text/plain} or
   * {@code application/octet-stream} (the last three are read only when the body starts with
   * <code>{</code>). Adapters use it to decide which bodies to peek at. The same for every parser
   * (dialects do not read bodies).
   *
   * @param status the response's HTTP status code
   * @param headers the response's header fields
   * @return true if a body given to {@code parse} would be read for its hints
   */
  public static boolean readsBody(int status, HttpFields headers) {
    return SignalReader.readsBody(status, headers);
  }

  /**
   * Returns the caps this parser enforces.
   *
   * @return the caps every value read is checked against
   */
  public SanityCaps caps() {
    return caps;
  }

  /**
   * Returns the dialects this parser tries, in order.
   *
   * @return the dialects, in the order they are tried; an immutable list
   */
  public List<Dialect> dialects() {
    return dialects;
  }

  /** Configures a {@link SignalParser}. Not thread-safe. */
  public static final class Builder {
    private SanityCaps caps = SanityCaps.defaults();
    private final List<Dialect> dialects = new ArrayList<>(BuiltInDialects.all());

    private Builder() {}

    /**
     * Sets the sanity caps; default {@link SanityCaps#defaults()}.
     *
     * @param caps the caps every value read is checked against
     * @return this builder
     */
    public Builder caps(SanityCaps caps) {
      this.caps = Objects.requireNonNull(caps, "caps must not be null");
      return this;
    }

    /**
     * Adds a dialect, tried after those already present.
     *
     * @param dialect the dialect to add
     * @return this builder
     */
    public Builder addDialect(Dialect dialect) {
      dialects.add(Objects.requireNonNull(dialect, "dialect must not be null"));
      return this;
    }

    /**
     * Replaces the dialects tried (the default is every built-in dialect).
     *
     * @param dialects the dialects to try, in order; copied
     * @return this builder
     */
    public Builder dialects(List<? extends Dialect> dialects) {
      List<Dialect> copy = List.copyOf(Objects.requireNonNull(dialects,
          "dialects must not be null"));
      this.dialects.clear();
      this.dialects.addAll(copy);
      return this;
    }

    /**
     * Returns the parser.
     *
     * @return a new parser with this builder's caps and dialects
     */
    public SignalParser build() {
      return new SignalParser(this);
    }
  }
}
