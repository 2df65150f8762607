package dev.headway.httpclient5;

import dev.headway.HttpFields;
import dev.headway.internal.adapter.Attempt;
import dev.headway.internal.adapter.BodyHints;
import dev.headway.internal.adapter.Swallowed;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.StringJoiner;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.apache.hc.client5.http.async.AsyncExecCallback;
import org.apache.hc.client5.http.async.AsyncExecRuntime;
import org.apache.hc.core5.http.EntityDetails;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.protocol.HttpContext;
import org.apache.hc.core5.http.HttpException;
import org.apache.hc.core5.http.HttpHeaders;
import org.apache.hc.core5.http.HttpResponse;
import org.apache.hc.core5.http.nio.AsyncDataConsumer;
import org.apache.hc.core5.http.nio.CapacityChannel;
import org.jspecify.annotations.Nullable;

/**
 * One attempt of an asynchronous HttpClient 5 call: the callback the chain below the handler
 * reports to, which decides, as soon as it can, whether the response goes to the caller or is
 * held for a retry.
 *
 * <p>A response whose body the parser does not read is decided from its head, inside
 * {@code handleResponse}: not retried, it goes to the caller's callback there and then, and the
 * caller's own consumer receives the body straight from the connection. A JSON 429, 503 or 403
 * is decided once {@link Attempt#hintBytes()} of its body arrived, the body ended or all the
 * bytes its {@code Content-Length} declares arrived (not for a chunked or encoded body), or
 * {@link BodyHints#WAIT} passed (real time, on a Headway thread), whichever is first; the bytes
 * read so far then go to the caller's consumer ahead of the rest. A response to retry is held:
 * its body is taken up to {@link BodyHints#KEEP_BYTES} (then no more capacity is granted, which
 * leaves the rest on its connection) until the call either {@link #discard() discards} it (the
 * retry has its permit; a body still on its connection closes that connection) or
 * {@link #deliver() delivers} it to the caller after all, head, held bytes and then the rest.
 *
 * <p>Nothing here blocks: it runs on HttpClient's I/O threads, the pacer's scheduler and the
 * deciding thread, one event after another (guarded by this object's monitor).
 */
final class AttemptCallback implements AsyncExecCallback, AsyncDataConsumer {
  /**
   * Where a decision taken when {@link BodyHints#WAIT} ran out runs (it may hand the response to
   * the caller's callback): Headway's own daemon threads, ending after a second idle, never an
   * I/O thread nor the common pool.
   */
  private static final Executor DECIDERS = new ThreadPoolExecutor(0, Integer.MAX_VALUE,
      1, TimeUnit.SECONDS, new SynchronousQueue<>(), runnable -> {
        Thread thread = new Thread(runnable, "headway-hc5-body-decider");
        thread.setDaemon(true);
        return thread;
      });

  private enum Mode {
    /** No response yet. */
    AWAITING,
    /** Reading the body's first bytes for a hint before deciding. */
    HINTING,
    /** Held for a retry. */
    HELD,
    /** The caller's: every event goes to the caller's callback and consumer. */
    FORWARDING,
    /** Dropped: the retry went out, or the call ended. */
    DISCARDED
  }

  private final Attempt attempt;
  private final AsyncExecCallback caller;
  private final AsyncExecRuntime runtime;
  private final HttpContext context;
  /** Completes when the response is decided: held or the caller's. */
  private final CompletableFuture<AttemptCallback> decided = new CompletableFuture<>();
  /** Completes when the exchange below is over (completed or failed). */
  private final CompletableFuture<@Nullable Void> finished = new CompletableFuture<>();
  // Guarded by this:
  private Mode mode = Mode.AWAITING;
  private @Nullable HttpResponse response;
  private @Nullable EntityDetails entity;
  private @Nullable HttpFields fields;
  private final List<ByteBuffer> held = new ArrayList<>();
  private int heldBytes;
  private @Nullable CapacityChannel channel;
  private @Nullable AsyncDataConsumer consumer;
  private boolean ended;
  private @Nullable List<? extends Header> trailers;
  private boolean completed;
  private @Nullable Exception failure;

  AttemptCallback(Attempt attempt, AsyncExecCallback caller, AsyncExecRuntime runtime,
      HttpContext context) {
    this.attempt = attempt;
    this.caller = caller;
    this.runtime = runtime;
    this.context = context;
  }

  /** Completes with this attempt once its response is decided; fails if sending failed. */
  CompletableFuture<AttemptCallback> decided() {
    return decided;
  }

  /** Completes when the exchange below the handler is over. */
  CompletableFuture<@Nullable Void> finished() {
    return finished;
  }

  @Override
  public synchronized @Nullable AsyncDataConsumer handleResponse(HttpResponse head,
      @Nullable EntityDetails details) throws HttpException, IOException {
    response = head;
    entity = details;
    ended = details == null;
    HttpFields headers = HttpClient5Exchange.fields(head.getHeaders());
    fields = headers;
    if (details != null && attempt.readsBody(head.getCode(), headers)) {
      mode = Mode.HINTING;
      BodyHints.afterWait(() -> DECIDERS.execute(this::decideWithoutHint));
      return this;
    }
    if (decide(null)) {
      return this;
    }
    // The caller's: its consumer reads the body straight from the connection.
    AsyncDataConsumer own = consumer;
    mode = Mode.FORWARDING;
    consumer = null;
    return own;
  }

  @Override
  public void handleInformationResponse(HttpResponse head) throws HttpException, IOException {
    caller.handleInformationResponse(head);
  }

  @Override
  public synchronized void updateCapacity(CapacityChannel capacity) throws IOException {
    channel = capacity;
    if (mode == Mode.FORWARDING && consumer != null) {
      consumer.updateCapacity(capacity);
    } else if (mode == Mode.HINTING || mode == Mode.HELD) {
      int wanted = BodyHints.KEEP_BYTES + 1 - heldBytes;
      if (wanted > 0) {
        capacity.update(wanted);
      }
    } else if (mode == Mode.DISCARDED) {
      capacity.update(Integer.MAX_VALUE);
    }
  }

  @Override
  public synchronized void consume(ByteBuffer src) throws IOException {
    switch (mode) {
      case FORWARDING -> {
        if (consumer != null) {
          consumer.consume(src);
        }
      }
      case HINTING, HELD -> {
        int n = src.remaining();
        ByteBuffer copy = ByteBuffer.allocate(n);
        copy.put(src).flip();
        held.add(copy);
        heldBytes += n;
        if (mode == Mode.HINTING
            && (heldBytes >= attempt.hintBytes() || declaredLengthArrived())) {
          decideOrFail(hint());
        } else if (mode == Mode.HELD && heldBytes <= BodyHints.KEEP_BYTES && channel != null) {
          channel.update(n); // Past the limit no capacity is granted: the rest stays put.
        }
      }
      default -> src.position(src.limit());
    }
  }

  @Override
  public synchronized void streamEnd(@Nullable List<? extends Header> last)
      throws HttpException, IOException {
    if (mode == Mode.FORWARDING) {
      if (consumer != null) {
        consumer.streamEnd(last);
      }
      return;
    }
    ended = true;
    trailers = last;
    if (mode == Mode.HINTING) {
      decideOrFail(hint());
    }
  }

  /**
   * The exchange below completed. The attempt is over even if the caller's callback throws: what
   * waits for it (the response timeout put back on the context, a retry) goes on.
   */
  @Override
  public void completed() {
    try {
      synchronized (this) {
        if (mode == Mode.FORWARDING) {
          caller.completed();
        } else {
          completed = true;
        }
      }
    } finally {
      finished.complete(null);
    }
  }

  /** The exchange below failed; over even if the caller's callback throws, as {@link #completed}. */
  @Override
  public void failed(Exception cause) {
    try {
      synchronized (this) {
        switch (mode) {
          case FORWARDING -> caller.failed(cause);
          case AWAITING, HINTING -> {
            mode = Mode.DISCARDED;
            decided.completeExceptionally(cause); // as without Headway: the call fails with it
          }
          case HELD -> failure = cause; // the caller's only if the response is delivered
          default -> { }
        }
      }
    } finally {
      finished.complete(null);
    }
  }

  @Override
  public synchronized void releaseResources() {
    if (mode == Mode.FORWARDING && consumer != null) {
      consumer.releaseResources();
    }
  }

  /**
   * Drops a held response: the retry is going out (or the call ended). A body still arriving
   * closes its connection rather than being read to its end. Never throws.
   */
  void discard() {
    boolean close;
    synchronized (this) {
      if (mode != Mode.HELD) {
        return;
      }
      mode = Mode.DISCARDED;
      held.clear();
      close = !ended && failure == null;
    }
    if (close) {
      try {
        runtime.discardEndpoint();
      } catch (RuntimeException e) {
        Swallowed.log(RateLimitAsyncExecChainHandler.LOGGER, "closing a throttled response", e);
      }
    }
  }

  /**
   * Hands a held response to the caller after all (the retry could not get its permit): its head,
   * the bytes held, then the rest of its body as it arrives.
   */
  synchronized CompletableFuture<AttemptCallback> deliver() {
    if (mode != Mode.HELD) {
      return CompletableFuture.completedFuture(this);
    }
    try {
      forward();
    } catch (HttpException | IOException | RuntimeException e) {
      mode = Mode.DISCARDED;
      runtime.discardEndpoint();
      return CompletableFuture.failedFuture(e);
    }
    return CompletableFuture.completedFuture(this);
  }

  /** The deciding thread's turn: {@link BodyHints#WAIT} passed. */
  private void decideWithoutHint() {
    synchronized (this) {
      if (mode != Mode.HINTING) {
        return;
      }
      try {
        decideOrFail(declaredLengthArrived() ? hint() : null);
      } catch (IOException | RuntimeException e) {
        // The caller's callback failed on the response: the exchange cannot go on.
        mode = Mode.DISCARDED;
        runtime.discardEndpoint();
        caller.failed(e instanceof IOException io ? io : new IOException(e));
      }
    }
  }

  /** Decides and, if not retried, gives the caller what arrived so far. */
  private void decideOrFail(byte @Nullable [] hint) throws IOException {
    try {
      if (!decide(hint)) {
        forward();
      }
    } catch (HttpException e) {
      throw new IOException(e);
    }
  }

  /**
   * Hands the response to the attempt; returns whether it is held for a retry. If not, the
   * caller's callback has been asked for its consumer ({@link #consumer}).
   */
  private boolean decide(byte @Nullable [] hint) throws HttpException, IOException {
    HttpResponse head = response;
    Optional<Duration> delay;
    try {
      delay = attempt.complete(head.getCode(), fields, hint);
    } catch (RuntimeException | LinkageError e) {
      Swallowed.log(RateLimitAsyncExecChainHandler.LOGGER,
          "reading a response's rate-limit signals", e);
      attempt.release();
      delay = Optional.empty();
    }
    if (delay.isPresent()) {
      mode = Mode.HELD;
      if (channel != null && heldBytes <= BodyHints.KEEP_BYTES) {
        channel.update(BodyHints.KEEP_BYTES + 1 - heldBytes);
      }
      decided.complete(this);
      return true;
    }
    ThrottledLeftToHeadway.markDecided(context, head);
    consumer = caller.handleResponse(head, entity);
    decided.complete(this);
    return false;
  }

  /** Gives the caller the response, the bytes held and what happened since. */
  private void forward() throws HttpException, IOException {
    if (consumer == null && mode == Mode.HELD) {
      ThrottledLeftToHeadway.markDecided(context, response);
      consumer = caller.handleResponse(response, entity);
    }
    mode = Mode.FORWARDING;
    AsyncDataConsumer own = consumer;
    if (own != null) {
      for (ByteBuffer buffer : held) {
        own.consume(buffer);
      }
    }
    held.clear();
    if (own != null && ended) {
      own.streamEnd(trailers);
    } else if (own != null && channel != null) {
      own.updateCapacity(channel);
    }
    if (failure != null) {
      caller.failed(failure);
    } else if (completed) {
      caller.completed();
    }
  }

  /**
   * Whether as many bytes as the response's {@code Content-Length} declares have arrived: the
   * body is then whole, whether or not its end has been signalled yet (on a busy machine the I/O
   * thread can be descheduled for longer than {@link BodyHints#WAIT} between a body's last bytes
   * and its end, and a hint already received must not lose to the timer).
   */
  private boolean declaredLengthArrived() {
    EntityDetails details = entity;
    if (details == null) {
      return false;
    }
    OptionalLong declared = BodyHints.declaredLength(details.getContentLength(),
        contentEncodings(), details.isChunked());
    return declared.isPresent() && heldBytes >= declared.getAsLong();
  }

  /**
   * Returns every {@code Content-Encoding} value of the response, comma-separated: the entity's
   * details give only the first field's.
   */
  private @Nullable String contentEncodings() {
    HttpResponse head = response;
    if (head == null) {
      return null;
    }
    Header[] fields = head.getHeaders(HttpHeaders.CONTENT_ENCODING);
    if (fields.length == 0) {
      return null;
    }
    StringJoiner all = new StringJoiner(",");
    for (Header field : fields) {
      all.add(field.getValue());
    }
    return all.toString();
  }

  /** Returns the first {@link Attempt#hintBytes()} bytes held. */
  private byte[] hint() {
    int size = Math.min(heldBytes, attempt.hintBytes());
    byte[] hint = new byte[size];
    int at = 0;
    for (ByteBuffer buffer : held) {
      ByteBuffer view = buffer.duplicate();
      int n = Math.min(view.remaining(), size - at);
      view.get(hint, at, n);
      at += n;
      if (at == size) {
        break;
      }
    }
    return hint;
  }
}
