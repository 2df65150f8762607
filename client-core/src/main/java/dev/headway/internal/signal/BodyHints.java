package dev.headway.internal.signal;

import dev.headway.HttpFields;
import dev.headway.dialect.DialectContext;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Reads the hints of a response body. The rule of which bodies are read lives here, free of any
 * JSON library, so that deciding it never loads Jackson; {@link BodyReader} does the reading with
 * Jackson. {@link SignalReader} calls the reader through this interface and turns any
 * {@link LinkageError} (an absent or incompatible Jackson) into "no body hint".
 */
@FunctionalInterface
interface BodyHints {
  /** Statuses whose bodies are read for every hint: 403, 429, 503. */
  static boolean hintStatus(int status) {
    return status == 429 || status == 503 || status == 403;
  }

  /**
   * Returns whether a response's body is read for hints: a 403, 429 or 503 whose
   * {@code Content-Type} is JSON ({@code application/json}, {@code text/json}, any {@code +json}),
   * absent, {@code text/plain} or {@code application/octet-stream} (proxies and captures drop or
   * replace the type; such a body is read only when it starts with <code>{</code>). The one rule,
   * shared by the parser and the adapters (through {@link dev.headway.SignalParser#readsBody}).
   */
  static boolean applies(int status, HttpFields headers) {
    if (!hintStatus(status)) {
      return false;
    }
    Optional<String> contentType = headers.firstValue("content-type");
    if (contentType.isEmpty()) {
      return true;
    }
    String type = mediaType(contentType.get());
    return jsonMediaType(type) || type.isEmpty() || type.equals("text/plain")
        || type.equals("application/octet-stream");
  }

  /** Returns the lower-cased media type of a Content-Type value, without parameters. */
  static String mediaType(String contentType) {
    int semicolon = contentType.indexOf(';');
    return (semicolon < 0 ? contentType : contentType.substring(0, semicolon)).trim()
        .toLowerCase(Locale.ROOT);
  }

  /** Returns whether a lower-cased media type is JSON. */
  static boolean jsonMediaType(String type) {
    return type.equals("application/json") || type.equals("text/json") || type.endsWith("+json");
  }

  /**
   * Reads a body.
   *
   * @param status the response's status
   * @param body the body or a prefix of it
   * @param headers the response's fields
   * @param context the response, for instants measured from its time
   * @param sink where policies, limits, resets and warnings go
   * @return what the body said besides what went to {@code sink}
   */
  Result read(int status, byte[] body, HttpFields headers, DialectContext context,
      SignalCollector sink);

  /**
   * What a body said.
   *
   * @param retryAfter the body's retry hint
   * @param problemType the RFC 9457 problem type
   * @param violatedPolicies the draft's {@code violated-policies}
   */
  record Result(Optional<Duration> retryAfter, Optional<String> problemType,
      List<String> violatedPolicies) {
    static final Result NONE = new Result(Optional.empty(), Optional.empty(), List.of());

    boolean isEmpty() {
      return retryAfter.isEmpty() && problemType.isEmpty() && violatedPolicies.isEmpty();
    }
  }

  /** Returns the first non-blank byte of {@code body} (a UTF-8 byte-order mark skipped), or -1. */
  static int firstByte(byte @Nullable [] body, int length) {
    if (body == null) {
      return -1;
    }
    int i = 0;
    if (length >= 3 && (body[0] & 0xff) == 0xef && (body[1] & 0xff) == 0xbb
        && (body[2] & 0xff) == 0xbf) {
      i = 3;
    }
    for (; i < length; i++) {
      byte b = body[i];
      if (b != ' ' && b != '\t' && b != '\r' && b != '\n') {
        return b & 0xff;
      }
    }
    return -1;
  }
}
