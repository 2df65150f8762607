package dev.headway.okhttp;

import dev.headway.internal.adapter.BodyTap;
import okhttp3.MediaType;
import okhttp3.ResponseBody;
import okio.BufferedSource;
import okio.Okio;
import org.jspecify.annotations.Nullable;

/** A body read ahead by a {@link BodyTap}: the same bytes as the tapped one. */
final class TappedBody extends ResponseBody {
  final BodyTap tap;
  private final @Nullable MediaType contentType;
  private final long contentLength;
  private final BufferedSource source;

  TappedBody(BodyTap tap, ResponseBody tapped) {
    this.tap = tap;
    this.contentType = tapped.contentType();
    this.contentLength = tapped.contentLength();
    this.source = Okio.buffer(Okio.source(tap.stream()));
  }

  @Override
  public @Nullable MediaType contentType() {
    return contentType;
  }

  @Override
  public long contentLength() {
    return contentLength;
  }

  @Override
  public BufferedSource source() {
    return source;
  }
}
