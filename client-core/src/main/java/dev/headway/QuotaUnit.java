package dev.headway;

import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * What a quota counts (the {@code qu} parameter of {@code RateLimit-Policy}, draft section 4.1).
 */
public enum QuotaUnit {
  /** Requests: each request costs one unit unless a cost function says otherwise. */
  REQUESTS("requests"),
  /** Bytes of request content. */
  CONTENT_BYTES("content-bytes"),
  /** Requests in flight at once: a concurrency cap, not a rate. */
  CONCURRENT_REQUESTS("concurrent-requests"),
  /** Tokens of a language-model API (a vendor unit, not in the draft). */
  TOKENS("tokens");

  private final String token;

  QuotaUnit(String token) {
    this.token = token;
  }

  /**
   * Returns the unit's name as the draft (or vendor) spells it, e.g. {@code content-bytes}.
   *
   * @return the token, e.g. {@code requests}
   */
  public String token() {
    return token;
  }

  /**
   * Returns the unit named {@code token} ({@code "requests"}, {@code "content-bytes"},
   * {@code "concurrent-requests"}, {@code "tokens"}), or empty if the name is unknown.
   *
   * @param token the unit's name, as a server sends it; case-sensitive
   * @return the unit, or empty if the name is unknown
   */
  public static Optional<QuotaUnit> parse(String token) {
    return Optional.ofNullable(fromToken(token));
  }

  /** Returns the unit named {@code token}, or {@code null} if the name is unknown. */
  static @Nullable QuotaUnit fromToken(String token) {
    for (QuotaUnit unit : values()) {
      if (unit.token.equals(token)) {
        return unit;
      }
    }
    return null;
  }
}
