package dev.headway.fuzz;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.headway.HttpFields;
import dev.headway.SanityCaps;
import dev.headway.SignalParser;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;

/**
 * Fuzzes {@link SignalParser} with every built-in dialect: whatever a server sends, parsing
 * returns a signal that keeps the parser's promises ({@link SignalInvariants}: no exception
 * inside the parser, values within the {@link SanityCaps}, bounded lists, the same result twice,
 * work linear in the input).
 *
 * <p>Two targets, one per way of building a response:
 *
 * <ul>
 *   <li>{@link #generatedResponses}: field names from those the dialects read (and made-up ones
 *       in their families), values from the formats they read, spliced with hostile fragments or
 *       random characters, JSON-looking bodies, and sometimes tight custom caps;
 *   <li>{@link #httpResponses}: a response written as HTTP/1.1 text (status line, field lines, a
 *       blank line, the body), so that the seed corpus is the documented real responses and the
 *       fuzzer mutates them byte by byte.
 * </ul>
 *
 * <p>Without {@code JAZZER_FUZZ} (every {@code mvn verify}) each target runs once per file of
 * {@code src/test/resources/dev/headway/fuzz/SignalParserFuzzTestInputs/<method>/} and the empty
 * input: a regression test. See docs/fuzzing.md for long runs.
 */
class SignalParserFuzzTest {
  private static final SignalParser DEFAULT = SignalParser.create();
  /** The latest time an adapter could plausibly pass as {@code receivedAt}: year 9999. */
  private static final long MAX_RECEIVED_EPOCH_SECOND = 253_402_300_799L;

  @FuzzTest(maxDuration = "2m")
  void generatedResponses(FuzzedDataProvider data) {
    SignalParser parser = DEFAULT;
    if (data.consumeInt(0, 3) == 0) {
      parser = SignalParser.builder().caps(new SanityCaps(
          Duration.ofMillis(data.consumeLong(1, 200_000_000L)),
          Duration.ofMillis(data.consumeLong(1, 200_000_000L)),
          data.consumeLong(1, Long.MAX_VALUE), data.consumeLong(1, Long.MAX_VALUE),
          Duration.ofSeconds(data.consumeLong(1, 40_000_000L)))).build();
    }
    int status = ResponseGenerator.status(data);
    Instant receivedAt = Instant.ofEpochSecond(
        data.consumeLong(0, MAX_RECEIVED_EPOCH_SECOND), data.consumeInt(0, 999_999_999));
    HttpFields headers = ResponseGenerator.headers(data, 12);
    byte[] body = data.consumeBoolean() ? null : ResponseGenerator.body(data);
    SignalInvariants.check(parser, status, headers, body, receivedAt);
  }

  /**
   * The input as HTTP/1.1 response text, read leniently: a status line (or just a number), field
   * lines {@code name: value} up to a blank line, then the body. Bytes are Latin-1 characters, as
   * an HTTP client that does not reject them would hand them over.
   */
  @FuzzTest(maxDuration = "2m")
  @DictionaryEntries({"RateLimit: ", "RateLimit-Policy: ", "RateLimit-Limit: ",
      "RateLimit-Remaining: ", "RateLimit-Reset: ", "Retry-After: ", "retry-after-ms: ",
      "Date: ", "Age: ", "Content-Type: application/json", "X-RateLimit-Limit: ",
      "X-RateLimit-Remaining: ", "X-RateLimit-Reset: ", "X-RateLimit-Reset-After: ",
      "anthropic-ratelimit-tokens-reset: ", "x-ratelimit-reset-requests: ",
      "X-Shopify-Shop-Api-Call-Limit: ", "Sforce-Limit-Info: api-usage=",
      "x-ms-ratelimit-remaining-", "x-ms-user-quota-resets-after: ", ";r=", ";t=", ";q=",
      ";w=", ";pk=:", "\"retry_after\":", "\"retryAfter\":", "\"retryDelay\":\"",
      "\"violated-policies\":[", "GMT", "9999999999999999999999"})
  void httpResponses(byte[] input) {
    String text = new String(input, StandardCharsets.ISO_8859_1);
    int lineEnd = lineEnd(text, 0);
    int status = status(text.substring(0, lineEnd));
    HttpFields.Builder headers = HttpFields.builder();
    int pos = next(text, lineEnd);
    byte[] body = null;
    while (pos < text.length()) {
      int end = lineEnd(text, pos);
      if (end == pos) {
        int bodyStart = next(text, end);
        body = java.util.Arrays.copyOfRange(input, bodyStart, input.length);
        break;
      }
      String line = text.substring(pos, end);
      int colon = line.indexOf(':');
      if (colon >= 0) {
        headers.add(line.substring(0, colon).trim(), line.substring(colon + 1).trim());
      } else {
        headers.add(line, "");
      }
      pos = next(text, end);
    }
    SignalInvariants.check(DEFAULT, status, headers.build(), body,
        Instant.parse("2025-08-21T12:41:00Z"));
  }

  private static int lineEnd(String text, int from) {
    int n = text.indexOf('\n', from);
    int end = n < 0 ? text.length() : n;
    return end > from && text.charAt(end - 1) == '\r' ? end - 1 : end;
  }

  private static int next(String text, int lineEnd) {
    if (lineEnd < text.length() && text.charAt(lineEnd) == '\r') {
      lineEnd++;
    }
    return lineEnd < text.length() ? lineEnd + 1 : lineEnd;
  }

  /** "HTTP/1.1 429 Too Many Requests" or "429": the first number on the line; else 429. */
  private static int status(String line) {
    String rest = line.startsWith("HTTP/") && line.indexOf(' ') > 0
        ? line.substring(line.indexOf(' ') + 1) : line;
    int end = 0;
    while (end < rest.length() && end < 9 && Character.isDigit(rest.charAt(end))
        && rest.charAt(end) < 128) {
      end++;
    }
    return end == 0 ? 429 : Integer.parseInt(rest.substring(0, end));
  }
}
