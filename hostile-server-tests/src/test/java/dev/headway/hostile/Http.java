package dev.headway.hostile;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** Raw HTTP/1.1 response bytes, written exactly as given: nothing is validated or escaped. */
final class Http {
  private final int status;
  private final List<String> lines = new ArrayList<>();

  private Http(int status) {
    this.status = status;
  }

  static Http status(int status) {
    return new Http(status);
  }

  /** Adds a header line as is (a value may hold anything, control characters included). */
  Http header(String name, String value) {
    lines.add(name + ": " + value);
    return this;
  }

  /** Returns the status line and header lines, with {@code Connection: close}, no blank line. */
  String headLines() {
    StringBuilder head = new StringBuilder("HTTP/1.1 ").append(status).append(' ')
        .append(reason(status)).append("\r\n");
    for (String line : lines) {
      head.append(line).append("\r\n");
    }
    return head.append("Connection: close\r\n").toString();
  }

  /** Returns the whole head, ending with the blank line, for a body sent some other way. */
  byte[] head() {
    return (headLines() + "\r\n").getBytes(StandardCharsets.ISO_8859_1);
  }

  /** Returns a complete response with a true {@code Content-Length}. */
  byte[] body(String body) {
    return body(body.getBytes(StandardCharsets.UTF_8));
  }

  byte[] body(byte[] body) {
    byte[] head = (headLines() + "Content-Length: " + body.length + "\r\n\r\n")
        .getBytes(StandardCharsets.ISO_8859_1);
    byte[] all = new byte[head.length + body.length];
    System.arraycopy(head, 0, all, 0, head.length);
    System.arraycopy(body, 0, all, head.length, body.length);
    return all;
  }

  private static String reason(int status) {
    return switch (status) {
      case 200 -> "OK";
      case 403 -> "Forbidden";
      case 429 -> "Too Many Requests";
      case 503 -> "Service Unavailable";
      default -> "Whatever";
    };
  }
}
