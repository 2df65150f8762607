package dev.headway.okhttp;

import dev.headway.HttpFields;
import dev.headway.RequestInfo;
import dev.headway.SignalParser;
import java.io.IOException;
import java.util.Locale;
import java.util.OptionalLong;
import okhttp3.Headers;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.jspecify.annotations.Nullable;

/** Translates OkHttp requests and responses into what the {@link dev.headway.Pacer} reads. */
final class OkHttpMessages {
  private OkHttpMessages() {}

  /** Describes {@code request}: method, absolute URI, header fields, body length if known. */
  static RequestInfo describe(Request request) {
    OptionalLong contentLength = OptionalLong.empty();
    RequestBody body = request.body();
    if (body != null) {
      try {
        long length = body.contentLength();
        if (length >= 0) {
          contentLength = OptionalLong.of(length);
        }
      } catch (IOException e) {
        // Unknown length: the cost function sees an empty OptionalLong.
      }
    }
    return new RequestInfo(request.method(), request.url().uri(), fields(request.headers()),
        contentLength);
  }

  /** Copies OkHttp headers, every line in order. */
  static HttpFields fields(Headers headers) {
    HttpFields.Builder builder = HttpFields.builder();
    for (int i = 0, n = headers.size(); i < n; i++) {
      builder.add(headers.name(i), headers.value(i));
    }
    return builder.build();
  }

  /**
   * Returns up to {@link SignalParser#MAX_BODY_BYTES} of the body of a JSON 429 or 503 response
   * without consuming it, or {@code null} for any other response or if the body cannot be read.
   */
  static byte @Nullable [] peekSignalBody(Response response) {
    int code = response.code();
    if (code != 429 && code != 503) {
      return null;
    }
    String contentType = response.header("Content-Type");
    if (contentType == null || !contentType.toLowerCase(Locale.ROOT).contains("json")) {
      return null;
    }
    try {
      return response.peekBody(SignalParser.MAX_BODY_BYTES).bytes();
    } catch (IOException | RuntimeException e) {
      return null; // The caller will see the same failure when it reads the body itself.
    }
  }

  /** Returns whether the request body can be sent a second time. */
  static boolean isReplayable(Request request) {
    RequestBody body = request.body();
    return body == null || (!body.isOneShot() && !body.isDuplex());
  }
}
