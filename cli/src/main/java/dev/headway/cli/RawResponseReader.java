package dev.headway.cli;

import dev.headway.HttpFields;
import dev.headway.SignalParser;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Reads the text {@code curl -si} prints into a {@link RawResponse}.
 *
 * <p>The input is one or more response heads, each a status line ({@code HTTP/1.1 429 Too Many
 * Requests}, {@code HTTP/2 429}) followed by field lines and an empty line, and then optionally
 * the body of the last response. Several heads appear when curl saw interim responses
 * ({@code 100 Continue}), a proxy's {@code CONNECT} answer, or followed redirects ({@code -L}):
 * the last head is the one explained. Lines may end in CRLF or LF; obsolete line folding
 * (RFC 9112 section 5.2) is joined with one space. Field lines are decoded as ISO-8859-1, so every
 * octet survives. Lenient by design: a line that is not a field line is ignored with a note
 * rather than rejected, because the point is to explain what a client would see.
 *
 * <p>Stateless and thread-safe.
 */
final class RawResponseReader {
  private static final Pattern STATUS_LINE =
      Pattern.compile("HTTP/\\d+(?:\\.\\d+)?[ \\t]+(\\d{3})(?:[ \\t].*)?", Pattern.CASE_INSENSITIVE);
  /** RFC 9110 section 5.6.2 token characters. */
  private static final Pattern TOKEN = Pattern.compile("[!#$%&'*+\\-.^_`|~0-9A-Za-z]+");
  private static final int MAX_SHOWN = 60;

  private RawResponseReader() {}

  /**
   * Returns the last response in {@code input}.
   *
   * @throws CliException if the input is empty or does not start with a status line
   */
  static RawResponse read(byte[] input) throws CliException {
    Cursor cursor = new Cursor(input);
    cursor.skipBom();
    String first = cursor.nextNonBlankLine();
    if (first == null) {
      throw new CliException("no input: pipe a response into it, e.g. curl -si URL | headway"
          + " explain");
    }
    Matcher status = STATUS_LINE.matcher(first);
    if (!status.matches()) {
      throw new CliException("not an HTTP response: expected a status line such as 'HTTP/1.1 429"
          + " Too Many Requests' but the input starts with '" + shown(first) + "'");
    }
    while (true) {
      int code = Integer.parseInt(status.group(1));
      if (code < 100) {
        throw new CliException("not an HTTP response: status code " + status.group(1)
            + " is not in [100, 999]");
      }
      List<String> notes = new ArrayList<>();
      HttpFields fields = readFields(cursor, notes);
      int bodyStart = cursor.position();
      String next = cursor.nextNonBlankLine();
      if (next != null) {
        Matcher nextStatus = STATUS_LINE.matcher(next);
        if (nextStatus.matches()) {
          status = nextStatus;
          continue;
        }
      }
      int bodyEnd = Math.min(input.length, bodyStart + SignalParser.MAX_BODY_BYTES);
      byte[] body = Arrays.copyOfRange(input, Math.min(bodyStart, bodyEnd), bodyEnd);
      return new RawResponse(code, fields, body, notes);
    }
  }

  /** Reads field lines up to and including the empty line that ends a head, or to the end. */
  private static HttpFields readFields(Cursor cursor, List<String> notes) {
    List<String[]> lines = new ArrayList<>();
    for (String line = cursor.nextLine(); line != null && !line.isEmpty();
        line = cursor.nextLine()) {
      int lineNumber = cursor.lineNumber();
      if (line.charAt(0) == ' ' || line.charAt(0) == '\t') {
        if (lines.isEmpty()) {
          notes.add("input: line " + lineNumber + " is a continuation line with no field before"
              + " it; ignored");
        } else {
          String[] previous = lines.get(lines.size() - 1);
          String folded = line.strip();
          previous[1] = previous[1].isEmpty() ? folded : previous[1] + " " + folded;
          notes.add(lower(previous[0]) + ": obsolete line folding on line " + lineNumber
              + " joined with a space");
        }
        continue;
      }
      int colon = line.indexOf(':');
      String name = colon < 0 ? "" : line.substring(0, colon).strip();
      if (colon < 0 || !TOKEN.matcher(name).matches()) {
        notes.add("input: line " + lineNumber + " is not a field line ('" + shown(line)
            + "'); ignored");
        continue;
      }
      lines.add(new String[] {name, line.substring(colon + 1).strip()});
    }
    HttpFields.Builder builder = HttpFields.builder();
    for (String[] field : lines) {
      builder.add(field[0], field[1]);
    }
    return builder.build();
  }

  private static String lower(String name) {
    return name.toLowerCase(Locale.ROOT);
  }

  /** Returns a line shortened and with control characters replaced, safe to quote in a message. */
  static String shown(String line) {
    String clipped = line.length() > MAX_SHOWN ? line.substring(0, MAX_SHOWN) + "..." : line;
    return Printable.of(clipped);
  }

  /** Walks the input line by line, keeping byte offsets so that the body is returned verbatim. */
  private static final class Cursor {
    private final byte[] input;
    private int position;
    private int lineNumber;

    Cursor(byte[] input) {
      this.input = input;
    }

    void skipBom() {
      if (input.length >= 3 && (input[0] & 0xff) == 0xef && (input[1] & 0xff) == 0xbb
          && (input[2] & 0xff) == 0xbf) {
        position = 3;
      }
    }

    int position() {
      return position;
    }

    int lineNumber() {
      return lineNumber;
    }

    /** Returns the next line without its CRLF or LF, or null at the end of the input. */
    @Nullable String nextLine() {
      if (position >= input.length) {
        return null;
      }
      int end = position;
      while (end < input.length && input[end] != '\n') {
        end++;
      }
      int contentEnd = end > position && input[end - 1] == '\r' ? end - 1 : end;
      String line = new String(input, position, contentEnd - position, StandardCharsets.ISO_8859_1);
      position = Math.min(input.length, end + 1);
      lineNumber++;
      return line;
    }

    /** Returns the next line that is not blank, or null at the end of the input. */
    @Nullable String nextNonBlankLine() {
      for (String line = nextLine(); line != null; line = nextLine()) {
        if (!line.isBlank()) {
          return line;
        }
      }
      return null;
    }
  }
}
