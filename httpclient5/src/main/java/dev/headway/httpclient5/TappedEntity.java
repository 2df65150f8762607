package dev.headway.httpclient5;

import dev.headway.internal.adapter.BodyHints;
import dev.headway.internal.adapter.BodyTap;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import org.apache.hc.core5.http.ClassicHttpResponse;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.HttpEntity;
import org.apache.hc.core5.http.io.entity.ByteArrayEntity;
import org.apache.hc.core5.http.io.entity.HttpEntityWrapper;
import org.jspecify.annotations.Nullable;

/**
 * A response entity whose first bytes were read ahead by a {@link BodyTap}, bounded in bytes and
 * time: its content is those bytes, then the rest of the original content. Closing it closes the
 * original (which releases the connection).
 */
final class TappedEntity extends HttpEntityWrapper {
  private final BodyTap tap;

  private TappedEntity(HttpEntity original, BodyTap tap) {
    super(original);
    this.tap = tap;
  }

  /**
   * Starts reading up to {@code limit} bytes of {@code response}'s entity and puts the tapped
   * entity in its place; returns it, or {@code null} if the response has no entity or no reader
   * is free ({@code response} is untouched).
   */
  static @Nullable TappedEntity tap(ClassicHttpResponse response, int limit) throws IOException {
    if (response.getEntity() instanceof TappedEntity tapped) {
      return tapped;
    }
    HttpEntity entity = response.getEntity();
    if (entity == null) {
      return null;
    }
    InputStream content = entity.getContent();
    if (content == null) {
      return null;
    }
    // The classic client's decoded entity has no length (-1): its length is that of what content
    // gives, whatever its Content-Encoding says.
    BodyTap tap = BodyTap.start(content, limit,
        BodyHints.declaredLength(entity.getContentLength(), null, false));
    if (tap == null) {
      return null;
    }
    TappedEntity tapped = new TappedEntity(entity, tap);
    response.setEntity(tapped);
    return tapped;
  }

  /**
   * Prepares {@code response} to be kept while the request waits to retry: a body that arrived
   * whole within {@link BodyHints#WAIT} and is at most {@link BodyHints#KEEP_BYTES} is held in
   * memory and the original entity closed, which frees its connection; a longer body stays on its
   * connection. Returns whether the connection was freed (or the response had no body).
   */
  static boolean keep(ClassicHttpResponse response) {
    if (response.getEntity() == null) {
      return true;
    }
    TappedEntity tapped;
    try {
      tapped = tap(response, BodyHints.KEEP_BYTES + 1);
    } catch (IOException e) {
      return false; // Its body cannot be read: the caller meets the same failure.
    }
    if (tapped == null || !tapped.tap.heldWhole(BodyHints.KEEP_BYTES)) {
      return false;
    }
    byte[] body = tapped.tap.bytes();
    response.setEntity(new ByteArrayEntity(body, 0, body.length,
        ContentType.parseLenient(tapped.getContentType()),
        tapped.getContentEncoding(), tapped.isChunked()));
    try {
      tapped.close();
    } catch (IOException e) {
      // The whole body is in memory: nothing more to read from the connection.
    }
    return true;
  }

  BodyTap tap() {
    return tap;
  }

  @Override
  public InputStream getContent() {
    return tap.stream();
  }

  @Override
  public boolean isRepeatable() {
    return false;
  }

  @Override
  public void writeTo(OutputStream out) throws IOException {
    try (InputStream in = tap.stream()) {
      in.transferTo(out);
    }
  }

  /**
   * Closes the body. While the read-ahead is still blocked in a read (a stalled or trickling
   * body), the original is left to it: it closes the content when that read returns. Closing the
   * original here would drain the same stream on this thread too, and of two readers parked on
   * one stream only one wakes when it is closed.
   */
  @Override
  public void close() throws IOException {
    try {
      tap.stream().close();
    } catch (IOException e) {
      // Closing: nothing more to read, nothing to tell.
    }
    if (!tap.reading()) {
      super.close();
    }
  }
}
