package dev.headway.spring;

import dev.headway.internal.adapter.BodyHints;
import dev.headway.internal.adapter.BodyTap;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.client.ClientHttpResponse;

/**
 * A response whose first bytes were read ahead by a {@link BodyTap}, bounded in bytes and time:
 * its body is those bytes, then the rest of the original body. Closing it closes the original.
 */
final class TappedResponse implements ClientHttpResponse {
  private final ClientHttpResponse original;
  private final BodyTap tap;

  private TappedResponse(ClientHttpResponse original, BodyTap tap) {
    this.original = original;
    this.tap = tap;
  }

  /**
   * Starts reading up to {@code limit} bytes of {@code response}'s body; returns the response to
   * use from now on, or {@code null} if no reader is free ({@code response} is untouched).
   */
  static @Nullable TappedResponse tap(ClientHttpResponse response, int limit) throws IOException {
    HttpHeaders headers = response.getHeaders();
    OptionalLong declared = BodyHints.declaredLength(
        String.join(",", headers.getValuesAsList(HttpHeaders.CONTENT_LENGTH)),
        String.join(",", headers.getValuesAsList(HttpHeaders.CONTENT_ENCODING)),
        headers.getFirst(HttpHeaders.TRANSFER_ENCODING));
    BodyTap tap = BodyTap.start(response.getBody(), limit, declared);
    return tap == null ? null : new TappedResponse(response, tap);
  }

  /**
   * Returns a response to keep while the request waits to retry: a body that arrived whole within
   * {@link BodyHints#WAIT} and is at most {@link BodyHints#KEEP_BYTES} is held in memory and the
   * original closed, which frees its connection; a longer body stays on its connection.
   */
  static ClientHttpResponse keep(ClientHttpResponse response) {
    TappedResponse tapped;
    try {
      tapped = response instanceof TappedResponse t ? t
          : tap(response, BodyHints.KEEP_BYTES + 1);
    } catch (IOException e) {
      return response; // Its body cannot be read: the caller meets the same failure.
    }
    if (tapped == null || !tapped.tap.heldWhole(BodyHints.KEEP_BYTES)) {
      return tapped == null ? response : tapped;
    }
    Held held = new Held(tapped.original, tapped.tap.bytes());
    tapped.original.close();
    return held;
  }

  BodyTap tap() {
    return tap;
  }

  @Override
  public HttpStatusCode getStatusCode() throws IOException {
    return original.getStatusCode();
  }

  @Override
  public String getStatusText() throws IOException {
    return original.getStatusText();
  }

  @Override
  public HttpHeaders getHeaders() {
    return original.getHeaders();
  }

  @Override
  public InputStream getBody() {
    return tap.stream();
  }

  /**
   * Closes the body. While the read-ahead is still blocked in a read of the body (a stalled or
   * trickling body), the original is left to it: it closes the body when that read returns (at the
   * next byte, the end, or the client's read timeout). Closing the original here would read the
   * same stream on this thread too (Spring drains a body before closing it), and of two readers
   * parked on one stream only one wakes when it is closed.
   */
  @Override
  public void close() {
    try {
      tap.stream().close();
    } catch (IOException e) {
      // Closing: nothing more to read, nothing to tell.
    }
    if (!tap.reading()) {
      original.close();
    }
  }

  /** A response whose whole body is in memory, after the original was closed. */
  private static final class Held implements ClientHttpResponse {
    private final HttpStatusCode status;
    private final String statusText;
    private final HttpHeaders headers;
    private final byte[] body;

    Held(ClientHttpResponse response, byte[] body) {
      try {
        this.status = response.getStatusCode();
        this.statusText = response.getStatusText();
      } catch (IOException e) {
        throw new IllegalStateException("status was read before", e);
      }
      this.headers = response.getHeaders();
      this.body = body;
    }

    @Override
    public HttpStatusCode getStatusCode() {
      return status;
    }

    @Override
    public String getStatusText() {
      return statusText;
    }

    @Override
    public HttpHeaders getHeaders() {
      return headers;
    }

    @Override
    public InputStream getBody() {
      return new ByteArrayInputStream(body);
    }

    @Override
    public void close() {}
  }
}
