package dev.headway.okhttp;

import dev.headway.HttpFields;
import dev.headway.RequestInfo;
import dev.headway.internal.adapter.BodyHints;
import dev.headway.internal.adapter.BodyTap;
import dev.headway.internal.adapter.RequestDescriptions;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.OptionalLong;
import okhttp3.Headers;
import okhttp3.HttpUrl;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okhttp3.ResponseBody;
import org.jspecify.annotations.Nullable;

/** Translates OkHttp requests and responses into what the {@link dev.headway.Pacer} reads. */
final class OkHttpMessages {
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
   * Returns {@code response} with its body read ahead, at most {@code limit} bytes within
   * {@link BodyHints#WAIT}, by a {@link BodyTap}; the caller still reads the whole body from the
   * returned response. Returns {@code null} if there is no body or no reader is free.
   */
  static @Nullable Response tap(Response response, int limit) {
    ResponseBody body = response.body();
    if (body == null) {
      return null;
    }
    long length = body.contentLength();
    BodyTap tap = BodyTap.start(body.byteStream(), limit,
        length < 0 ? OptionalLong.empty() : OptionalLong.of(length));
    if (tap == null) {
      return null;
    }
    return response.newBuilder().body(new TappedBody(tap, body)).build();
  }

  /** Returns the tap whose body {@code response} carries, or {@code null}. */
  static @Nullable BodyTap tapOf(Response response) {
    return response.body() instanceof TappedBody tapped ? tapped.tap : null;
  }

  /**
   * Returns a response to keep while the call waits to retry, so that it can be returned if the
   * retry cannot be sent. A body that arrived whole within {@link BodyHints#WAIT} and is at most
   * {@link BodyHints#KEEP_BYTES} is held in memory and {@code response} closed, which frees its
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
    Response tapped = tapOf(response) != null ? response
        : tap(response, BodyHints.KEEP_BYTES + 1);
    if (tapped == null) {
      return response; // No reader free: keep it open, unread.
    }
    BodyTap tap = tapOf(tapped);
    if (tap == null || !tap.heldWhole(BodyHints.KEEP_BYTES)) {
      return tapped;
    }
    Response kept = tapped.newBuilder()
        .body(ResponseBody.create(tap.bytes(), body.contentType()))
        .build();
    tapped.close();
    return kept;
  }

  /** Returns whether {@code response}'s body is still being read by a {@link BodyTap}. */
  static boolean stillReading(Response response) {
    BodyTap tap = tapOf(response);
    return tap != null && tap.reading();
  }

  /** Returns whether the request body can be sent a second time. */
  static boolean isReplayable(Request request) {
    RequestBody body = request.body();
    return body == null || (!body.isOneShot() && !body.isDuplex());
  }
}
