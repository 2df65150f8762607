package dev.headway.internal.adapter;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.util.Arrays;
import java.util.OptionalLong;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Reads the first bytes of a response body for the paced exchange, bounded in bytes and in time,
 * while the caller still receives the whole body, byte for byte, from {@link #stream()}.
 *
 * <p>A blocking body read cannot be bounded in time without closing the connection, which would
 * break the caller's body. So the bytes are read by a helper thread into a buffer, and the caller
 * reads that buffer first and the rest of the stream after. The adapter waits for the helper at
 * most {@link BodyHints#WAIT} (real time: it bounds network I/O, whatever clock paces the calls).
 * A body that has not arrived by then is not waited for, and {@link #bytes()} is {@code null}. A
 * body has arrived once it ended, once the limit was read, or once as many bytes as its declared
 * length (the response's {@code Content-Length}) were read: on a busy machine the client's thread
 * can be descheduled for longer than the wait between a body's last bytes and its end, and a hint
 * already received must not lose to the timer. A body of unknown length (a
 * {@code Transfer-Encoding}, no {@code Content-Length}) has arrived only once it ended or the
 * limit was read. The helper stops there; the caller reads the rest of the stream, its end
 * included, itself. While the helper is still blocked in a read, the caller's first read waits
 * for that read (which the client's own read timeout bounds, as it would bound the caller's
 * read), and a close by the caller takes effect when that read returns.
 *
 * <p>Helpers are daemon threads that end after a second idle. At most {@link #MAX_READERS}
 * bodies are read at once for calls that still want them; when that many are, nothing is read
 * ({@link #start} returns {@code null}) and the call goes on without a hint. A body closed while
 * its helper is blocked in a read (the retry went out; the body stalls) no longer counts: its
 * helper stays blocked until that read returns, which only the server or the client's read
 * timeout decides (a blocking stream cannot be closed from another thread), and it must not keep
 * later calls from having their bodies read. Past {@link #MAX_THREADS} helpers in all, blocked
 * ones included, bodies go without a hint.
 *
 * <p>Thread-safe.
 */
public final class BodyTap {
  /** At most this many bodies are read at once for their calls; more go without a hint. */
  static final int MAX_READERS = 32;

  /**
   * At most this many helper threads in all: those reading for their calls and those left
   * blocked on bodies their calls gave up on. Past it, bodies go without a hint, as when all
   * {@link #MAX_READERS} are busy.
   */
  static final int MAX_THREADS = 2 * MAX_READERS;

  /** One permit per body read for a call: taken by {@link #start}, given back by {@link #done}. */
  private static final Semaphore READING = new Semaphore(MAX_READERS);

  private static final ThreadPoolExecutor READERS = new ThreadPoolExecutor(0, MAX_THREADS,
      1, TimeUnit.SECONDS, new SynchronousQueue<>(), runnable -> {
        Thread thread = new Thread(runnable, "headway-body-reader");
        thread.setDaemon(true);
        return thread;
      });

  private final InputStream upstream;
  private final int limit;
  /** The body's declared length in bytes, or -1 if it is unknown. */
  private final long declaredLength;
  private final InputStream stream = new TappedStream();
  // Guarded by this:
  private byte[] head = new byte[0];
  private int size;
  private int served;
  private boolean reading = true;
  private boolean ended;
  private @Nullable IOException failure;
  private boolean closed;
  private byte @Nullable [] decided;
  private boolean complete;
  private boolean counted = true;

  private BodyTap(InputStream upstream, int limit, long declaredLength) {
    this.upstream = upstream;
    this.limit = limit;
    this.declaredLength = declaredLength;
  }

  /**
   * Starts reading at most {@code limit} bytes of {@code body} and waits for them at most
   * {@link BodyHints#WAIT}. {@code declaredLength} is the length the response declares for
   * {@code body} (its {@code Content-Length}), empty if unknown; it must be the length of the
   * bytes {@code body} gives (not of the bytes on the wire before a client decoded them). Returns
   * the tap, whose {@link #stream()} the caller must read from now on instead of {@code body}; or
   * {@code null} if no helper is free ({@code body} is untouched).
   */
  public static @Nullable BodyTap start(InputStream body, int limit, OptionalLong declaredLength) {
    if (!READING.tryAcquire()) {
      return null;
    }
    BodyTap tap = new BodyTap(body, limit, declaredLength.orElse(-1));
    try {
      READERS.execute(tap::fill);
    } catch (RejectedExecutionException | OutOfMemoryError e) {
      // Every helper is taken (some by bodies their calls gave up on), or no thread could be made.
      tap.done();
      return null;
    }
    tap.awaitFill();
    return tap;
  }

  /**
   * Returns whether no helper is busy and no body is counted as read for a call: every read-ahead
   * has returned. For tests that leave stalled bodies behind and must not leave the helpers taken
   * for the tests after them.
   */
  static boolean idle() {
    return READING.availablePermits() == MAX_READERS && READERS.getActiveCount() == 0;
  }

  /** Returns the body the caller reads: the bytes read ahead, then the rest of the stream. */
  public InputStream stream() {
    return stream;
  }

  /**
   * Returns the bytes read within the time limit: the whole body if {@link #complete()}, else its
   * first {@code limit} bytes; or {@code null} if the body had not arrived in time (it neither
   * ended, nor gave its declared length, nor reached the limit), or failed to read.
   */
  public synchronized byte @Nullable [] bytes() {
    return decided;
  }

  /** Returns at most the first {@code max} bytes of {@link #bytes()}, or {@code null}. */
  public byte @Nullable [] bytes(int max) {
    byte[] bytes = bytes();
    return bytes == null || bytes.length <= max ? bytes : Arrays.copyOf(bytes, max);
  }

  /**
   * Returns whether {@link #bytes()} is the whole body: the body ended, or gave all the bytes of
   * its declared length, in time.
   */
  public synchronized boolean complete() {
    return complete;
  }

  /**
   * Returns whether the helper is still blocked reading (the body has neither ended, nor given its
   * declared length, nor reached the limit).
   */
  public synchronized boolean reading() {
    return reading;
  }

  /**
   * Returns whether the whole body is in memory and at most {@code max} bytes long: the response
   * can then be kept without its connection.
   */
  public boolean heldWhole(int max) {
    byte[] bytes = bytes();
    return complete() && bytes != null && bytes.length <= max;
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
        decided = Arrays.copyOf(head, size);
        complete = ended || size == declaredLength;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * The helper: reads until the limit, the declared length, the end of the body, a failure or a
   * close. It never reads past the declared length, so that those bytes are the whole body.
   */
  private void fill() {
    byte[] chunk = new byte[8192];
    try {
      while (true) {
        int want;
        synchronized (this) {
          long upTo = declaredLength < 0 ? limit : Math.min(limit, declaredLength);
          if (closed || size >= upTo) {
            break;
          }
          want = (int) Math.min(chunk.length, upTo - size);
        }
        int n = upstream.read(chunk, 0, want);
        synchronized (this) {
          if (n == -1) {
            ended = true;
            break;
          }
          if (size + n > head.length) {
            head = Arrays.copyOf(head, Math.min(limit, Math.max(size + n, 2 * head.length)));
          }
          System.arraycopy(chunk, 0, head, size, n);
          size += n;
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
        closeNow = closed;
        if (!closeNow) {
          reading = false; // a close from now on closes the upstream itself
          notifyAll();
        }
        done();
      }
      if (closeNow) {
        // Closed while this read was under way: the close is this helper's to do, and it is not
        // done reading (touching the upstream) until the upstream is closed.
        closeQuietly();
        synchronized (this) {
          reading = false;
          notifyAll();
        }
      }
    }
  }

  /** Gives back this body's permit, once: its helper stopped, or its call gave up on it. */
  private synchronized void done() {
    if (counted) {
      counted = false;
      READING.release();
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
  private int readForCaller(byte[] into, int offset, int length) throws IOException {
    synchronized (this) {
      while (size == served && reading && !closed) {
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
      int buffered = size - served;
      if (buffered > 0) {
        int n = Math.min(length, buffered);
        System.arraycopy(head, served, into, offset, n);
        served += n;
        return n;
      }
      if (failure != null) {
        throw failure;
      }
      if (ended) {
        return -1;
      }
    }
    return upstream.read(into, offset, length);
  }

  /**
   * Closes the body. The upstream stream is not thread-safe: if the helper is blocked in a read,
   * it closes the upstream itself once that read returns (at the next byte, the end of the body,
   * or the client's read timeout), and the connection is held until then.
   */
  private void close() throws IOException {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      head = new byte[0];
      size = 0;
      served = 0;
      notifyAll();
      if (reading) {
        done(); // the helper closes the upstream when its read returns; nobody waits for it
        return;
      }
    }
    upstream.close();
  }

  /** The caller's view of the tapped body. */
  private final class TappedStream extends InputStream {
    @Override
    public int read() throws IOException {
      byte[] one = new byte[1];
      int n = read(one, 0, 1);
      return n == -1 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      java.util.Objects.checkFromIndexSize(off, len, b.length);
      return len == 0 ? 0 : readForCaller(b, off, len);
    }

    @Override
    public void close() throws IOException {
      BodyTap.this.close();
    }
  }
}
