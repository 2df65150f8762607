package dev.headway.okhttp.testing;

import java.util.ArrayList;
import java.util.List;

/**
 * A response the test server sends.
 *
 * @param status the status code
 * @param headers header lines as alternating names and values
 * @param body the body, as UTF-8
 */
public record Reply(int status, List<String> headers, String body) {
  /** Copies the header list. */
  public Reply {
    headers = List.copyOf(headers);
  }

  /** Returns a reply with {@code status}, no headers and an empty body. */
  public static Reply status(int status) {
    return new Reply(status, List.of(), "");
  }

  /** Returns a copy with one more header line. */
  public Reply header(String name, String value) {
    List<String> copy = new ArrayList<>(headers);
    copy.add(name);
    copy.add(value);
    return new Reply(status, copy, body);
  }

  /** Returns a copy with more header lines, given as alternating names and values. */
  public Reply headers(String... namesAndValues) {
    Reply reply = this;
    for (int i = 0; i < namesAndValues.length; i += 2) {
      reply = reply.header(namesAndValues[i], namesAndValues[i + 1]);
    }
    return reply;
  }

  /** Returns a copy with {@code body}. */
  public Reply body(String body) {
    return new Reply(status, headers, body);
  }
}
