package dev.headway.fuzz;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import dev.headway.HttpFields;
import java.nio.charset.StandardCharsets;

/**
 * Builds HTTP responses from a fuzzer's choices: header names from the fields every built-in
 * dialect reads (and their families' prefixes) or made up; values from the grammars those fields
 * use (structured fields, numbers, dates, durations, vendor formats), spliced together, or random
 * characters; JSON-looking bodies. Stateless.
 */
final class ResponseGenerator {
  /** Every field name a built-in dialect reads, as documented servers spell them. */
  static final String[] NAMES = {
    "RateLimit", "RateLimit-Policy", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset",
    "RateLimit-Reason", "Retry-After", "retry-after-ms", "x-ms-retry-after-ms", "X-Retry-In",
    "X-Retry-After", "Date", "Age", "Content-Type", "X-RateLimit-Limit", "X-RateLimit-Remaining",
    "X-RateLimit-Reset", "X-RateLimit-Used", "X-RateLimit-Reset-After", "X-RateLimit-Bucket",
    "X-RateLimit-Global", "X-RateLimit-Scope", "X-RateLimit-Resource", "X-RateLimit-Limit-Minute",
    "X-RateLimit-Remaining-Minute", "X-RateLimit-Limit-Second", "X-RateLimit-Remaining-Hour",
    "X-RateLimit-Limit-Day", "X-RateLimit-Remaining-Month", "X-RateLimit-Limit-Year",
    "X-RateLimit-Remaining-Videos-Minute", "X-RateLimit-Limit-Videos-Minute",
    "x-ratelimit-limit-requests", "x-ratelimit-remaining-requests", "x-ratelimit-reset-requests",
    "x-ratelimit-limit-tokens", "x-ratelimit-remaining-tokens", "x-ratelimit-reset-tokens",
    "x-ratelimit-limit-tokens_usage_based", "x-ratelimit-remaining-tokens_usage_based",
    "x-ratelimit-reset-tokens_usage_based", "X-RateLimit-Requests-Limit",
    "X-RateLimit-Requests-Remaining", "X-RateLimit-Requests-Reset", "x-rate-limit-limit",
    "x-rate-limit-remaining", "x-rate-limit-reset", "X-RateLimit-NearLimit",
    "X-RateLimit-FillRate", "X-RateLimit-Interval-Seconds", "X-RateLimit-Replenish-Rate",
    "X-RateLimit-Burst-Capacity", "X-RateLimit-Requested-Tokens",
    "anthropic-ratelimit-requests-limit", "anthropic-ratelimit-requests-remaining",
    "anthropic-ratelimit-requests-reset", "anthropic-ratelimit-tokens-limit",
    "anthropic-ratelimit-tokens-remaining", "anthropic-ratelimit-tokens-reset",
    "anthropic-ratelimit-input-tokens-limit", "anthropic-ratelimit-input-tokens-remaining",
    "anthropic-ratelimit-input-tokens-reset", "anthropic-ratelimit-output-tokens-limit",
    "anthropic-ratelimit-output-tokens-remaining", "anthropic-ratelimit-output-tokens-reset",
    "X-Shopify-Shop-Api-Call-Limit", "Sforce-Limit-Info", "x-ms-ratelimit-remaining-tenant-reads",
    "x-ms-ratelimit-remaining-subscription-writes", "x-ms-user-quota-remaining",
    "x-ms-user-quota-resets-after", "Content-Length", "Server"};

  /** Prefixes of the families of names (a made-up suffix is appended). */
  static final String[] PREFIXES = {
    "ratelimit-", "x-ratelimit-", "x-rate-limit-", "x-ratelimit-limit-", "x-ratelimit-remaining-",
    "anthropic-ratelimit-", "x-shopify-", "sforce-", "x-ms-ratelimit-remaining-", "x-ms-",
    "retry-", "x-retry-", ""};

  /** Pieces of values: syntax of every format the dialects read, and hostile extremes. */
  static final String[] FRAGMENTS = {
    "\"", "\"default\"", "\"a\"", ";", "r=", "q=", "t=", "w=", "pk=:", "qu=\"requests\"",
    "qu=\"content-bytes\"", ":cHJvamVjdDEyMw==:", ":", "=", ",", ", ", "-", "-1", "0", "1", "99",
    "1e99", "1e308", "9".repeat(40), "9223372036854775807", "9223372036854775808", "18446744073",
    ".", ".5", "5", "NaN", "Infinity", "-0", "s", "ms", "m", "h", "us", "ns", "T", "Z", "+05:30",
    "/", "(", ")", "GMT", "UTC", "Mon, ", "Sun, 06 Nov 1994 08:49:37 GMT", "Nov ", "1994",
    "2025-", "12:", "limit=", "remaining=", "reset=", "policy=", "api-usage=", " ", "\t", "?1",
    "?0", "*", "%", "%\"", "\\", "\u00e9", "\u0000", "\r\n", "true", "false", "@", "@-1",
    "[", "]", "{", "}", "00:00:03", "23:59:60", "32/40", "1,1;w=60;name=\"first\"", ";w=1",
    ";w=86400", ";w=0", ";w=-5", ";q=0", ";r=0", ";t=0"};

  /** Whole values as real servers send them. */
  static final String[] GOOD = {
    "\"default\";r=50;t=30", "\"burst\";q=100;w=60", "\"day\";q=1000;w=86400;pk=:dXNlcjE=:",
    "\"a\";r=0;t=5, \"b\";r=10;t=60", "\"tokens\";q=40000;qu=\"tokens\";w=60", "100, 100;w=60",
    "10, 10;w=1, 1000;w=3600", "limit=3, remaining=2, reset=60", "100;w=60", "1377013266",
    "1700000000000", "6m0s", "1h2m3.5s", "12ms", "32/40", "api-usage=25/5000", "-1",
    "Mon, 05 Aug 2019 09:27:05 GMT", "Sunday, 06-Nov-94 08:49:37 GMT",
    "Sun Nov  6 08:49:37 1994", "2025-08-21T12:40:59Z", "2025-08-21T12:40:59.123+02:00",
    "00:00:03", "64.57", "1.5", "0", "30", "application/json", "application/problem+json",
    "text/json; charset=utf-8", "application/vnd.api+json", "true", "global", "user",
    "shared", "7", "0.25"};

  private ResponseGenerator() {}

  /** A status: mostly the ones that change what is read, sometimes anything. */
  static int status(FuzzedDataProvider data) {
    return switch (data.consumeInt(0, 7)) {
      case 0 -> data.consumeInt();
      case 1 -> data.consumeInt(100, 599);
      case 2 -> 200;
      case 3 -> 403;
      case 4, 5 -> 429;
      default -> 503;
    };
  }

  /** Up to {@code maxLines} field lines. */
  static HttpFields headers(FuzzedDataProvider data, int maxLines) {
    int lines = data.consumeInt(0, maxLines);
    HttpFields.Builder headers = HttpFields.builder();
    for (int i = 0; i < lines && data.remainingBytes() > 0; i++) {
      headers.add(name(data), value(data));
    }
    if (data.consumeBoolean()) {
      headers.add("Content-Type", data.pickValue(new String[] {
          "application/json", "application/problem+json", "text/json", "application/x+json",
          "APPLICATION/JSON; charset=utf-8", "text/plain"}));
    }
    return headers.build();
  }

  static String name(FuzzedDataProvider data) {
    String name = switch (data.consumeInt(0, 5)) {
      case 0 -> data.pickValue(PREFIXES) + data.consumeString(24);
      case 1 -> data.consumeString(32);
      default -> data.pickValue(NAMES);
    };
    return switch (data.consumeInt(0, 3)) {
      case 0 -> name.toLowerCase(java.util.Locale.ROOT);
      case 1 -> name.toUpperCase(java.util.Locale.ROOT);
      default -> name;
    };
  }

  static String value(FuzzedDataProvider data) {
    switch (data.consumeInt(0, 6)) {
      case 0:
        return data.consumeString(64); // any characters, control and non-ASCII included
      case 1:
        return new String(data.consumeBytes(data.consumeInt(0, 64)),
            StandardCharsets.ISO_8859_1);
      case 2: {
        StringBuilder sb = new StringBuilder();
        int n = data.consumeInt(0, 16);
        for (int i = 0; i < n; i++) {
          sb.append(data.pickValue(FRAGMENTS));
        }
        return sb.toString();
      }
      case 3:
        return structuredList(data);
      case 4:
        return number(data);
      default: {
        String base = data.pickValue(GOOD);
        if (data.consumeBoolean()) {
          return base;
        }
        int cut = data.consumeInt(0, base.length());
        String splice = data.consumeBoolean() ? data.pickValue(FRAGMENTS) : number(data);
        return base.substring(0, cut) + splice
            + base.substring(Math.min(base.length(), cut + data.consumeInt(0, 3)));
      }
    }
  }

  /** An sf-list-like value with the rate-limit parameters, sometimes slightly off. */
  static String structuredList(FuzzedDataProvider data) {
    StringBuilder sb = new StringBuilder();
    int members = data.consumeInt(1, 5);
    for (int m = 0; m < members; m++) {
      if (m > 0) {
        sb.append(data.pickValue(new String[] {", ", ",", " , ", ",\t", ";"}));
      }
      switch (data.consumeInt(0, 3)) {
        case 0 -> sb.append('"').append(data.pickValue(new String[] {
            "default", "burst", "day", "tokens", "requests", "a\\\"b", "\u00e9", ""})).append('"');
        case 1 -> sb.append(number(data));
        case 2 -> sb.append(data.pickValue(new String[] {"tok", "limit", "remaining", "reset",
            "?1", "@1700000000", ":AAEC:", "%\"x%20y\"", "(1 2)", "()"}));
        default -> sb.append(data.consumeString(8));
      }
      int params = data.consumeInt(0, 4);
      for (int p = 0; p < params; p++) {
        sb.append(';').append(data.pickValue(new String[] {"r", "t", "q", "w", "pk", "qu",
            "name", "R", "x", ""}));
        if (data.consumeInt(0, 5) > 0) {
          sb.append('=');
          switch (data.consumeInt(0, 3)) {
            case 0 -> sb.append(":").append(data.pickValue(new String[] {
                "dXNlcjE=", "", "!!", "AAAA"})).append(':');
            case 1 -> sb.append('"').append(data.pickValue(new String[] {
                "requests", "content-bytes", "concurrent-requests", "tokens", "x"})).append('"');
            default -> sb.append(number(data));
          }
        }
      }
    }
    return sb.toString();
  }

  /** A number as servers write them: integers of any size and sign, decimals, exponents. */
  static String number(FuzzedDataProvider data) {
    return switch (data.consumeInt(0, 7)) {
      case 0 -> Long.toString(data.consumeLong());
      case 1 -> Long.toString(data.consumeLong(-10, 100_000));
      case 2 -> data.consumeInt(0, 3_000) + "." + data.consumeInt(0, 999_999);
      case 3 -> "9".repeat(data.consumeInt(1, 60));
      case 4 -> Double.toString(data.consumeDouble());
      case 5 -> Long.toString(1_700_000_000L + data.consumeInt(-1_000_000, 1_000_000));
      case 6 -> Long.toString(1_700_000_000_000L + data.consumeLong(-1L << 32, 1L << 32));
      default -> Long.toString(data.consumeLong(0, 1L << 40));
    };
  }

  /** A body: JSON built from the hints the parser looks for, raw bytes, or cut short. */
  static byte[] body(FuzzedDataProvider data) {
    switch (data.consumeInt(0, 4)) {
      case 0:
        return data.consumeBytes(data.consumeInt(0, 512));
      case 1:
        return new byte[0];
      default: {
        StringBuilder sb = new StringBuilder();
        json(data, sb, 0);
        byte[] bytes = sb.toString().getBytes(StandardCharsets.UTF_8);
        if (data.consumeInt(0, 5) == 0) {
          return java.util.Arrays.copyOf(bytes, data.consumeInt(0, bytes.length));
        }
        return bytes;
      }
    }
  }

  private static final String[] JSON_KEYS = {
    "retry_after", "retryAfter", "type", "violated-policies", "error", "details", "retryDelay",
    "title", "detail", "status", "message", "code", "x"};

  private static void json(FuzzedDataProvider data, StringBuilder sb, int depth) {
    int kind = depth > 70 ? data.consumeInt(2, 7) : data.consumeInt(0, 7);
    switch (kind) {
      case 0: {
        sb.append('{');
        int n = data.consumeInt(0, 5);
        for (int i = 0; i < n; i++) {
          if (i > 0) {
            sb.append(',');
          }
          sb.append('"').append(data.consumeBoolean() ? data.pickValue(JSON_KEYS)
              : escape(data.consumeString(12))).append("\":");
          json(data, sb, depth + 1);
        }
        sb.append('}');
        break;
      }
      case 1: {
        sb.append('[');
        int n = data.consumeInt(0, data.consumeBoolean() ? 4 : 80);
        for (int i = 0; i < n; i++) {
          if (i > 0) {
            sb.append(',');
          }
          json(data, sb, depth + 1);
        }
        sb.append(']');
        break;
      }
      case 2:
        sb.append(number(data));
        break;
      case 3:
        sb.append(data.pickValue(new String[] {"1e400", "-1e400", "1e-400", "-0", "0.0",
            "1E+999999999", "123456789012345678901234567890", "NaN", "Infinity", "null",
            "true", "false", "\"12s\"", "\"2.500s\"", "\"-3s\"", "\"99999999999999s\"",
            "\"https://iana.org/assignments/http-problem-types#quota-exceeded\"",
            "\"https://iana.org/assignments/http-problem-types#temporary-reduced-capacity\"",
            "\"1.5\"", "\"x\""}));
        break;
      default:
        sb.append('"').append(escape(data.consumeString(40))).append('"');
    }
  }

  private static String escape(String s) {
    StringBuilder sb = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '"' || c == '\\') {
        sb.append('\\').append(c);
      } else if (c < 0x20) {
        sb.append(String.format("\\u%04x", (int) c));
      } else {
        sb.append(c);
      }
    }
    return sb.toString();
  }
}
