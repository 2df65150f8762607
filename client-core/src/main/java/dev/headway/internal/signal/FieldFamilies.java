package dev.headway.internal.signal;

import dev.headway.HttpFields;
import dev.headway.dialect.Dialect;

/**
 * Families of header names, one bit each, by which {@link SignalReader} skips the built-in
 * dialects that cannot find anything in a response.
 *
 * <p>Most responses carry one family of rate-limit fields, or none, and each built-in dialect
 * starts by looking up several names that are then absent (thirteen dialects, about forty hash
 * lookups). Instead the reader classifies the response's names once, a few character
 * comparisons each, and runs only the dialects whose {@link Filtered#fieldFamilies()} meet what
 * is present. Every family is a name prefix, so it is a superset of the names its dialects read:
 * a skipped dialect is one that would have returned without reporting anything. Dialects from
 * elsewhere are never skipped. Stateless.
 */
final class FieldFamilies {
  /** {@code ratelimit} and {@code ratelimit-*} (the drafts), except {@code ratelimit-reason}. */
  static final int RATELIMIT = 1;
  /** {@code x-ratelimit-*} and {@code x-rate-limit-*}. */
  static final int X_RATELIMIT = 1 << 1;
  /** {@code anthropic-*}. */
  static final int ANTHROPIC = 1 << 2;
  /** {@code x-shopify-*}. */
  static final int SHOPIFY = 1 << 3;
  /** {@code sforce-*}. */
  static final int SALESFORCE = 1 << 4;
  /** {@code x-ms-*} (Azure's counters and retry field). */
  static final int X_MS = 1 << 5;
  /** {@code retry-*} and {@code x-retry-*}. */
  static final int RETRY = 1 << 6;
  /** {@code ratelimit-reason} (Atlassian). */
  static final int RATELIMIT_REASON = 1 << 7;
  /**
   * A vendor-prefixed name containing {@code -ratelimit-} or {@code -rate-limit-}
   * ({@code zendesk-ratelimit-tickets-index}), outside the families above.
   */
  static final int VENDOR_RATELIMIT = 1 << 8;
  /** {@code x-should-retry}, {@code stripe-should-retry}, {@code grpc-retry-pushback-ms}. */
  static final int SHOULD_RETRY = 1 << 9;

  /** A built-in dialect that finds nothing unless one of its families of names is present. */
  interface Filtered extends Dialect {
    /** Returns the families (bits of {@link FieldFamilies}) of every name the dialect reads. */
    int fieldFamilies();
  }

  private FieldFamilies() {}

  /** Returns the families of every name present in {@code headers}. */
  static int present(HttpFields headers) {
    int families = 0;
    for (String name : headers.names()) {
      families |= of(name);
    }
    return families;
  }

  /** Returns the family of a lower-cased field name; 0 if it is in none. */
  static int of(String name) {
    if (name.isEmpty()) {
      return 0;
    }
    switch (name.charAt(0)) {
      case 'r':
        if (name.startsWith("ratelimit")) {
          return name.equals("ratelimit-reason") ? RATELIMIT_REASON : RATELIMIT;
        }
        return name.startsWith("retry-") ? RETRY : vendor(name);
      case 'x':
        if (name.length() < 4 || name.charAt(1) != '-') {
          return 0;
        }
        if (name.startsWith("x-ratelimit") || name.startsWith("x-rate-limit")) {
          return X_RATELIMIT;
        }
        if (name.startsWith("x-ms-")) {
          return X_MS;
        }
        if (name.startsWith("x-retry-")) {
          return RETRY;
        }
        if (name.startsWith("x-shopify-")) {
          return SHOPIFY;
        }
        return vendor(name);
      case 'a':
        return name.startsWith("anthropic-") ? ANTHROPIC : vendor(name);
      case 's':
        return name.startsWith("sforce-") ? SALESFORCE : vendor(name);
      default:
        return vendor(name);
    }
  }

  private static int vendor(String name) {
    if (name.endsWith("-should-retry") || name.equals("grpc-retry-pushback-ms")) {
      return SHOULD_RETRY;
    }
    return name.length() > 12
        && (name.indexOf("-ratelimit-") > 0 || name.indexOf("-rate-limit-") > 0)
        ? VENDOR_RATELIMIT : 0;
  }
}
