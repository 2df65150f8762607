package dev.headway.okhttp;

import dev.headway.HttpFields;
import dev.headway.RequestInfo;
import dev.headway.SignalParser;
import dev.headway.internal.adapter.RequestDescriptions;
import dev.headway.internal.adapter.Swallowed;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import okhttp3.Headers;
import okhttp3.HttpUrl;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okhttp3.ResponseBody;
import org.jspecify.annotations.Nullable;

/** Translates OkHttp requests and responses into what the {@link dev.headway.Pacer} reads. */
final class OkHttpMessages {
  /**
   * The most bytes of a throttled response's body held in memory while the call waits to retry;
   * a longer body stays unread on its connection instead. 64 KiB: error bodies of 429s and 503s
   * are a few hundred bytes, and the same bound drains discarded bodies in the JDK adapter.
   */
  static final long KEEP_LIMIT = 64 * 1024;

  private OkHttpMessages() {}

  /** Describes {@code request} by the adapters' shared rule ({@link RequestDescriptions}). */
  static RequestInfo describe(Request request) {
    RequestBody body = request.body();
    long length = -1;
    if (body != null) {
      try {
        length = body.contentLength();
      } catch (IOException e) {
        length = -1; // Unknown length: the cost function sees an empty OptionalLong.
      }
    }
    return RequestDescriptions.describe(request.method(), uri(request.url()),
        fields(request.headers()), body != null, length);
  }

  /**
   * Returns {@code url} as a {@link URI}. {@link HttpUrl#uri()} rebuilds the URL to re-encode the
   * few characters OkHttp accepts and {@code java.net.URI} does not, which costs about 1.5 KB of
   * garbage per call; nearly every URL has none of them, so its canonical string (which
   * {@code toString()} returns without copying) is parsed as it is, and only a URL that
   * {@code URI} rejects goes the long way. Both give the same URI whenever the string parses:
   * every character {@code uri()} would re-encode is one {@code URI} rejects.
   */
  static URI uri(HttpUrl url) {
    try {
      return new URI(url.toString());
    } catch (URISyntaxException e) {
      return url.uri();
    }
  }

  /** Copies OkHttp headers, every line in order, into one array. */
  static HttpFields fields(Headers headers) {
    int n = headers.size();
    if (n == 0) {
      return HttpFields.empty();
    }
    HttpFields.Builder builder = HttpFields.builder(n);
    for (int i = 0; i < n; i++) {
      builder.add(headers.name(i), headers.value(i));
    }
    return builder.build();
  }

  /**
   * Returns up to {@link SignalParser#MAX_BODY_BYTES} of the body without consuming it when the
   * parser reads bodies of such a response ({@link SignalParser#readsBody}), or {@code null} for
   * any other response or if the body cannot be read.
   */
  static byte @Nullable [] peekSignalBody(Response response, HttpFields headers) {
    if (!SignalParser.readsBody(response.code(), headers)) {
      return null;
    }
    try {
      return response.peekBody(SignalParser.MAX_BODY_BYTES).bytes();
    } catch (IOException | RuntimeException e) {
      Swallowed.log(RateLimitInterceptor.LOGGER, "peeking at a response body for rate-limit hints",
          e);
      return null; // The caller will see the same failure when it reads the body itself.
    }
  }

  /**
   * Returns a response to keep while the call waits to retry, so that it can be returned if the
   * retry cannot be sent. A body of at most {@link #KEEP_LIMIT} bytes is read into memory and
   * {@code response} closed, which frees its connection during the wait; a longer body (or one
   * that fails to read) stays open on its connection and {@code response} itself is returned.
   * Either way the caller of this method owns the result and must close it if it discards it.
   */
  static Response keep(Response response) {
    ResponseBody body = response.body();
    if (body == null) {
      return response;
    }
    ResponseBody copy;
    try {
      copy = response.peekBody(KEEP_LIMIT + 1);
    } catch (IOException | RuntimeException e) {
      Swallowed.log(RateLimitInterceptor.LOGGER, "buffering a throttled response", e);
      return response;
    }
    if (copy.contentLength() > KEEP_LIMIT) {
      return response;
    }
    Response kept = response.newBuilder().body(copy).build();
    response.close();
    return kept;
  }

  /** Returns whether the request body can be sent a second time. */
  static boolean isReplayable(Request request) {
    RequestBody body = request.body();
    return body == null || (!body.isOneShot() && !body.isDuplex());
  }
}
