package dev.headway.okhttp;

import dev.headway.HttpFields;
import dev.headway.RequestInfo;
import dev.headway.SignalParser;
import dev.headway.internal.adapter.BodyHints;
import dev.headway.internal.adapter.RequestDescriptions;
import dev.headway.internal.adapter.Swallowed;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Arrays;
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
    return describe(request, uri(request.url()));
  }

  /** Describes {@code request}, whose URL is {@code uri}. */
  static RequestInfo describe(Request request, URI uri) {
    RequestBody body = request.body();
    long length = -1;
    if (body != null) {
      try {
        length = body.contentLength();
      } catch (IOException e) {
        length = -1; // Unknown length: the cost function sees an empty OptionalLong.
      }
    }
    return RequestDescriptions.describe(request.method(), uri,
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
   * Returns the first {@link SignalParser#MAX_BODY_BYTES} the tap read in time, or {@code null}
   * if the body was not there in time (the hint is skipped).
   */
  static byte @Nullable [] hint(BodyTap tap) {
    byte[] bytes = tap.bytes();
    if (bytes == null || bytes.length <= SignalParser.MAX_BODY_BYTES) {
      return bytes;
    }
    return Arrays.copyOf(bytes, SignalParser.MAX_BODY_BYTES);
  }

  /**
   * Returns a response to keep while the call waits to retry, so that it can be returned if the
   * retry cannot be sent. A body that arrived whole within {@link BodyHints#WAIT} and is at most
   * {@link #KEEP_LIMIT} bytes is held in memory and {@code response} closed, which frees its
   * connection during the wait; a longer body stays open on its connection. A body still
   * arriving ({@link #stillReading}) cannot be let go of without waiting for it: the response is
   * returned with it, and must not be retried. Either way the caller of this method owns the
   * result, instead of {@code response}, and must close it if it discards it.
   */
  static Response keep(Response response) {
    ResponseBody body = response.body();
    if (body == null) {
      return response;
    }
    BodyTap tap = BodyTap.of(response);
    if (tap == null) {
      tap = BodyTap.start(response, KEEP_LIMIT + 1);
      if (tap == null) {
        return response; // No reader free: keep it open, unread.
      }
    }
    Response tapped = tap.response();
    byte[] bytes = tap.bytes();
    if (!tap.complete() || bytes == null || bytes.length > KEEP_LIMIT) {
      return tapped;
    }
    Response kept = tapped.newBuilder().body(ResponseBody.create(bytes, body.contentType()))
        .build();
    tapped.close();
    return kept;
  }

  /** Returns whether {@code response}'s body is still being read by a {@link BodyTap}. */
  static boolean stillReading(Response response) {
    BodyTap tap = BodyTap.of(response);
    return tap != null && tap.reading();
  }

  /** Returns whether the request body can be sent a second time. */
  static boolean isReplayable(Request request) {
    RequestBody body = request.body();
    return body == null || (!body.isOneShot() && !body.isDuplex());
  }
}
