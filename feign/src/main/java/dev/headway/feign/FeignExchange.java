package dev.headway.feign;

import dev.headway.HttpFields;
import dev.headway.RequestInfo;
import dev.headway.internal.adapter.Attempt;
import dev.headway.internal.adapter.BodyHints;
import dev.headway.internal.adapter.BodyTap;
import dev.headway.internal.adapter.PacedExchange;
import dev.headway.internal.adapter.RequestDescriptions;
import feign.Client;
import feign.Request;
import feign.Response;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * One Feign request as the core's {@link PacedExchange} sees it: an attempt is the wrapped
 * client's {@code execute}, the body (a byte array) can always be sent again, and a body hint is
 * read ahead by a {@link TappedBody}. Not thread-safe: one per request.
 */
final class FeignExchange implements PacedExchange.Client<Response> {
  private final Client delegate;
  private final Request request;
  private final Request.Options options;

  FeignExchange(Client delegate, Request request, Request.Options options) {
    this.delegate = delegate;
    this.request = request;
    this.options = options;
  }

  @Override
  public RequestInfo describe() {
    byte[] body = request.body();
    return RequestDescriptions.describe(request.httpMethod().name(), URI.create(request.url()),
        fields(request.headers()), body != null, body == null ? -1 : body.length);
  }

  @Override
  public boolean replayable() {
    return true;
  }

  @Override
  public Response send(Attempt attempt) throws IOException {
    return delegate.execute(request, options(attempt));
  }

  /**
   * Returns the options {@code attempt} is sent with: the call's, or, for a call held before the
   * server answered anything, a copy whose read timeout is shortened by the time it was held
   * ({@link Attempt#timeout}). A read timeout of zero (none) is left as it is.
   */
  private Request.Options options(Attempt attempt) {
    Duration read = Duration.ofMillis(options.readTimeoutMillis());
    Duration shortened = attempt.timeout(read);
    if (shortened.equals(read)) {
      return options;
    }
    return new Request.Options(options.connectTimeout(), options.connectTimeoutUnit(),
        Math.max(1, shortened.toMillis()), TimeUnit.MILLISECONDS, options.isFollowRedirects());
  }

  @Override
  public Response read(Response response, Attempt attempt) throws IOException {
    HttpFields headers = fields(response.headers());
    int status = response.status();
    Response readable = response;
    byte[] hint = null;
    if (attempt.readsBody(status, headers)) {
      // Read as much as a kept response may hold: a retry then finds the body in memory.
      Response tapped = tap(response, BodyHints.KEEP_BYTES + 1);
      if (tapped != null) {
        readable = tapped;
        hint = ((TappedBody) tapped.body()).tap().bytes(attempt.hintBytes());
      }
    }
    attempt.complete(status, headers, hint);
    return readable;
  }

  @Override
  public Response sendUnpaced() throws IOException {
    return delegate.execute(request, options);
  }

  /**
   * Returns a response to keep while the request waits to retry: a body that arrived whole within
   * {@link BodyHints#WAIT} and is at most {@link BodyHints#KEEP_BYTES} is held in memory and the
   * original closed, which frees its connection; a longer body stays on its connection.
   */
  @Override
  public Response keep(Response response) {
    if (response.body() == null) {
      return response;
    }
    Response tapped;
    try {
      tapped = response.body() instanceof TappedBody ? response
          : tap(response, BodyHints.KEEP_BYTES + 1);
    } catch (IOException e) {
      return response; // Its body cannot be read: the caller meets the same failure.
    }
    if (tapped == null) {
      return response; // No reader free: keep it open, unread.
    }
    BodyTap tap = ((TappedBody) tapped.body()).tap();
    if (!tap.heldWhole(BodyHints.KEEP_BYTES)) {
      return tapped;
    }
    Response held = tapped.toBuilder().body(tap.bytes()).build();
    tapped.close();
    return held;
  }

  /**
   * Drops a kept response. A body the read-ahead is still reading (it trickles or stalls) is left
   * to it, which closes it when its read returns: the retry is a new {@code execute} of the
   * wrapped client and does not wait for it.
   */
  @Override
  public void discard(Response kept) {
    try {
      kept.close();
    } catch (RuntimeException e) {
      // The retry is going out: nothing to tell about a response nobody reads.
    }
  }

  /**
   * Returns {@code response} with its body read ahead, at most {@code limit} bytes within
   * {@link BodyHints#WAIT}; the caller still reads the whole body from the returned response.
   * Returns {@code null} if there is no body or no reader is free.
   */
  private static @Nullable Response tap(Response response, int limit) throws IOException {
    Response.Body body = response.body();
    if (body == null) {
      return null;
    }
    BodyTap tap = BodyTap.start(body.asInputStream(), limit, declaredLength(response, body));
    return tap == null ? null : response.toBuilder().body(new TappedBody(tap, body)).build();
  }

  /**
   * Returns the length of the bytes {@code body}, {@code response}'s, gives, or empty if unknown.
   * Feign's default client decodes a gzip or deflate body but reports the encoded length: an
   * encoded body's length is unknown.
   */
  private static OptionalLong declaredLength(Response response, Response.Body body) {
    Integer length = body.length();
    String encodings = response.headers().entrySet().stream()
        .filter(field -> field.getKey() != null
            && field.getKey().equalsIgnoreCase("Content-Encoding"))
        .flatMap(field -> field.getValue().stream())
        .collect(Collectors.joining(","));
    return BodyHints.declaredLength(length == null ? -1 : length, encodings, false);
  }

  /** Copies Feign headers, every value in order, into one array. */
  static HttpFields fields(Map<String, Collection<String>> headers) {
    if (headers.isEmpty()) {
      return HttpFields.empty();
    }
    HttpFields.Builder builder = HttpFields.builder();
    headers.forEach((name, values) -> {
      for (String value : values) {
        builder.add(name, value);
      }
    });
    return builder.build();
  }
}
