package dev.headway.okhttp;

import dev.headway.internal.adapter.BodyHints;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import okhttp3.MediaType;
import okhttp3.Response;
import okhttp3.ResponseBody;
import okio.Buffer;
import okio.BufferedSource;
import okio.Okio;
import okio.Source;
import okio.Timeout;
import org.jspecify.annotations.Nullable;

/**
 * Reads the first bytes of a response body for the interceptor, bounded in bytes and in time,
 * while the caller still receives the whole body, byte for byte.
 *
 * <p>An OkHttp body read blocks until bytes arrive, and the only way to bound it, the source's
 * {@link Timeout}, closes the socket when it fires, which would break the caller's body. So the
 * bytes are read by a helper thread into a buffer, and the response is given a body that serves
 * that buffer first and the rest of the stream after. The interceptor waits for the helper at most
 * {@link BodyHints#WAIT} (real time): a body that is not complete (or past the limit) by then is
 * not waited for, and {@link #bytes()} is {@code null}. The helper stops at the limit or the end of
 * the body; while it is still blocked in a read, the caller's first read waits for that read (which
 * the caller's own read timeout bounds, as it would bound the caller's read), and a close by the
 * caller takes effect when that read returns.
 *
 * <p>Helpers come from one small bounded pool of daemon threads that end after a second idle; when
 * all are busy, nothing is read and the call goes on without a hint.
 *
 * <p>Thread-safe.
 */
final class BodyTap {
  /** At most this many bodies are read at once; more go without a hint. */
  static final int MAX_READERS = 32;

  private static final ThreadPoolExecutor READERS = new ThreadPoolExecutor(0, MAX_READERS,
      1, TimeUnit.SECONDS, new SynchronousQueue<>(), runnable -> {
        Thread thread = new Thread(runnable, "headway-body-reader");
        thread.setDaemon(true);
        return thread;
      });

  private final BufferedSource upstream;
  private final long limit;
  // Guarded by this:
  private final Buffer head = new Buffer();
  private long read;
  private boolean reading = true;
  private boolean ended;
  private @Nullable IOException failure;
  private boolean closed;
  private byte @Nullable [] decided;
  private boolean complete;
  private @Nullable Response response;

  private BodyTap(BufferedSource upstream, long limit) {
    this.upstream = upstream;
    this.limit = limit;
  }

  /**
   * Starts reading at most {@code limit} bytes of {@code response}'s body and waits for them at
   * most {@link BodyHints#WAIT}. Returns the tap, whose {@link #response()} the caller must use
   * from now on instead of {@code response}; or {@code null} if the response has no body or no
   * helper is free (then {@code response} is untouched).
   */
  static @Nullable BodyTap start(Response response, long limit) {
    ResponseBody body = response.body();
    if (body == null) {
      return null;
    }
    BodyTap tap = new BodyTap(body.source(), limit);
    try {
      READERS.execute(tap::fill);
    } catch (RejectedExecutionException e) {
      return null;
    }
    tap.response = response.newBuilder()
        .body(new TappedBody(tap, body.contentType(), body.contentLength()))
        .build();
    tap.awaitFill();
    return tap;
  }


  /** Returns the tap whose body {@code response} carries, or {@code null}. */
  static @Nullable BodyTap of(Response response) {
    return response.body() instanceof TappedBody tapped ? tapped.tap : null;
  }

  /** Returns the response to use instead of the one tapped: same body bytes, same headers. */
  Response response() {
    Response r = response;
    if (r == null) {
      throw new IllegalStateException("not started");
    }
    return r;
  }

  /**
   * Returns the bytes read within the time limit: the whole body if {@link #complete()}, else its
   * first {@code limit} bytes; or {@code null} if the body was neither complete nor past the limit
   * in time, or failed to read.
   */
  synchronized byte @Nullable [] bytes() {
    return decided;
  }

  /** Returns whether {@link #bytes()} is the whole body. */
  synchronized boolean complete() {
    return complete;
  }

  private void awaitFill() {
    long deadline = System.nanoTime() + BodyHints.WAIT.toNanos();
    boolean interrupted = false;
    synchronized (this) {
      for (long left = BodyHints.WAIT.toNanos(); reading && left > 0;
          left = deadline - System.nanoTime()) {
        try {
          TimeUnit.NANOSECONDS.timedWait(this, left);
        } catch (InterruptedException e) {
          interrupted = true;
          break;
        }
      }
      if (!reading && failure == null) {
        decided = head.snapshot().toByteArray();
        complete = ended;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  /** The helper: reads until the limit, the end of the body, a failure or a close. */
  private void fill() {
    Buffer chunk = new Buffer();
    try {
      while (true) {
        synchronized (this) {
          if (closed || read >= limit) {
            break;
          }
        }
        long n = upstream.read(chunk, 8192);
        synchronized (this) {
          if (n == -1) {
            ended = true;
            break;
          }
          head.write(chunk, n);
          read += n;
          notifyAll();
        }
      }
    } catch (IOException e) {
      synchronized (this) {
        failure = e;
      }
    } catch (RuntimeException | Error e) {
      synchronized (this) {
        failure = new IOException(e);
      }
    } finally {
      boolean closeNow;
      synchronized (this) {
        reading = false;
        closeNow = closed;
        notifyAll();
      }
      if (closeNow) {
        closeQuietly();
      }
    }
  }

  private void closeQuietly() {
    try {
      upstream.close();
    } catch (IOException | RuntimeException e) {
      // The caller is gone: nobody to tell.
    }
  }

  /** What the caller reads: the helper's buffer, then the rest of the stream. */
  private long readForCaller(Buffer sink, long byteCount) throws IOException {
    synchronized (this) {
      while (head.size() == 0 && reading && !closed) {
        try {
          wait();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new InterruptedIOException("interrupted while reading the body");
        }
      }
      if (closed) {
        throw new IOException("closed");
      }
      if (head.size() > 0) {
        return head.read(sink, Math.min(byteCount, head.size()));
      }
      if (failure != null) {
        throw failure;
      }
      if (ended) {
        return -1;
      }
    }
    return upstream.read(sink, byteCount);
  }

  /**
   * Closes the body. The upstream source is not thread-safe: if the helper is blocked in a read,
   * it closes the upstream itself once that read returns (at the next byte, the end of the body,
   * or the caller's read timeout), and the connection is held until then.
   */
  private void close() throws IOException {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      head.clear();
      notifyAll();
      if (reading) {
        return;
      }
    }
    upstream.close();
  }

  /** Returns whether the helper is still blocked reading (the body is neither done nor capped). */
  synchronized boolean reading() {
    return reading;
  }

  /** The body the caller gets: the same bytes as the tapped one. */
  private static final class TappedBody extends ResponseBody {
    private final BodyTap tap;
    private final BufferedSource source;
    private final @Nullable MediaType contentType;
    private final long contentLength;

    TappedBody(BodyTap tap, @Nullable MediaType contentType, long contentLength) {
      this.tap = tap;
      this.contentType = contentType;
      this.contentLength = contentLength;
      this.source = Okio.buffer(new Source() {
        @Override
        public long read(Buffer sink, long byteCount) throws IOException {
          if (byteCount < 0) {
            throw new IllegalArgumentException("byteCount < 0: " + byteCount);
          }
          return byteCount == 0 ? 0 : tap.readForCaller(sink, byteCount);
        }

        @Override
        public Timeout timeout() {
          return tap.upstream.timeout();
        }

        @Override
        public void close() throws IOException {
          tap.close();
        }
      });
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
}
