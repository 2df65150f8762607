package dev.headway.jdk;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;

/**
 * A bounded copy of the first bytes of a response body, taken without moving the buffers the
 * body's real subscriber reads. Not thread-safe: fed from one subscriber's serial signals.
 */
final class BodyPrefix {
  private final byte[] bytes;
  private int size;
  private long seen;

  BodyPrefix(int limit) {
    this.bytes = new byte[limit];
  }

  /** Copies what still fits of {@code buffers}; their positions and limits are unchanged. */
  void append(List<ByteBuffer> buffers) {
    for (ByteBuffer buffer : buffers) {
      int remaining = buffer.remaining();
      seen += remaining;
      int n = Math.min(remaining, bytes.length - size);
      if (n > 0) {
        buffer.duplicate().get(bytes, size, n);
        size += n;
      }
    }
  }

  /** Returns the number of body bytes seen, including those past the limit. */
  long seen() {
    return seen;
  }

  /** Returns whether more bytes were seen than the prefix holds. */
  boolean overflowed() {
    return seen > bytes.length;
  }

  /** Returns a copy of the bytes kept. */
  byte[] bytes() {
    return Arrays.copyOf(bytes, size);
  }

  static long remaining(List<ByteBuffer> buffers) {
    long total = 0;
    for (ByteBuffer buffer : buffers) {
      total += buffer.remaining();
    }
    return total;
  }
}
