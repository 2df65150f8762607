package dev.headway.signal;

import dev.headway.HttpFields;
import dev.headway.RateLimitSignal;
import dev.headway.SignalParser;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;

/**
 * A recorded HTTP response head (and body) as {@code curl -si} prints it, loaded from
 * {@code src/test/resources/dialects/}: a status line ({@code HTTP/1.1 429 Too Many Requests} or
 * {@code HTTP/2 429}), header lines, optionally an empty line and a body.
 */
record Fixture(String name, int status, HttpFields headers, byte[] body) {

  /** The receipt time used when a fixture has no {@code Date}: 2025-01-01T00:00:00Z. */
  static final Instant RECEIVED_AT = Instant.parse("2025-01-01T00:00:00Z");

  static Fixture load(String name) {
    try (InputStream in = Fixture.class.getResourceAsStream("/dialects/" + name)) {
      if (in == null) {
        throw new IllegalArgumentException("no fixture " + name);
      }
      return parse(name, in.readAllBytes());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static Fixture parse(String name, byte[] bytes) {
    int headEnd = indexOf(bytes, "\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
    int bodyStart = headEnd < 0 ? -1 : headEnd + 4;
    if (headEnd < 0) {
      headEnd = indexOf(bytes, "\n\n".getBytes(StandardCharsets.ISO_8859_1));
      bodyStart = headEnd < 0 ? -1 : headEnd + 2;
    }
    String head = new String(bytes, 0, headEnd < 0 ? bytes.length : headEnd,
        StandardCharsets.ISO_8859_1);
    String[] lines = head.split("\r?\n");
    String[] statusLine = lines[0].split(" ");
    int status = Integer.parseInt(statusLine[1]);
    HttpFields.Builder headers = HttpFields.builder();
    for (int i = 1; i < lines.length; i++) {
      if (lines[i].isEmpty()) {
        continue;
      }
      int colon = lines[i].indexOf(':');
      headers.add(lines[i].substring(0, colon), lines[i].substring(colon + 1).strip());
    }
    byte[] body = bodyStart < 0 ? new byte[0] : Arrays.copyOfRange(bytes, bodyStart, bytes.length);
    return new Fixture(name, status, headers.build(), body);
  }

  /** Parses this response with the default parser, received at {@link #RECEIVED_AT}. */
  RateLimitSignal parse() {
    return SignalParser.create().parse(status, headers, body, RECEIVED_AT);
  }

  private static int indexOf(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= haystack.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }
}
