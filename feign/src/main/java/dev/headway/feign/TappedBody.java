package dev.headway.feign;

import dev.headway.internal.adapter.BodyTap;
import feign.Response;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.Charset;
import org.jspecify.annotations.Nullable;

/**
 * A Feign response body whose first bytes were read ahead by a {@link BodyTap}, bounded in bytes
 * and time: it reads those bytes, then the rest of the original body. Read once, as the
 * original.
 */
final class TappedBody implements Response.Body {
  private final BodyTap tap;
  private final Response.Body original;

  TappedBody(BodyTap tap, Response.Body original) {
    this.tap = tap;
    this.original = original;
  }

  BodyTap tap() {
    return tap;
  }

  @Override
  public @Nullable Integer length() {
    return original.length();
  }

  @Override
  public boolean isRepeatable() {
    return false;
  }

  @Override
  public InputStream asInputStream() {
    return tap.stream();
  }

  @Override
  public Reader asReader(Charset charset) {
    return new InputStreamReader(tap.stream(), charset);
  }

  /**
   * Closes the body. While the read-ahead is still blocked in a read of the body (a stalled or
   * trickling body), the original is left to it: it closes the body when that read returns (at
   * the next byte, the end, or the client's read timeout).
   */
  @Override
  public void close() throws IOException {
    tap.stream().close();
    if (!tap.reading()) {
      original.close();
    }
  }
}
