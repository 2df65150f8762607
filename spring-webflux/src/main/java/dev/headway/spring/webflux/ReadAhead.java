package dev.headway.spring.webflux;

import dev.headway.internal.adapter.BodyHints;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Subscription;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * Reads the first bytes of a response body ahead of the caller, without blocking, while the
 * caller still receives the whole body, buffer for buffer, from {@link #body()}.
 *
 * <p>How: it subscribes to the body itself and asks for one buffer at a time until it holds
 * {@code limit} bytes or the body ends, then asks for nothing more until the caller subscribes to
 * {@link #body()}: the caller's demand is then passed on. The buffers read ahead wait in a unicast
 * sink, so the caller gets them first, in order, then the rest. At most {@code limit} bytes plus
 * one buffer are held before the caller asks. {@link #filled()} completes when the limit is
 * reached, the body ended (or failed), or as many bytes as its declared length arrived; the
 * adapter waits for it at most {@link BodyHints#WAIT}. A body whose declared length arrived is
 * whole even if its end is not signalled yet: on a busy machine the connector's thread can be
 * descheduled for longer than the wait between a body's last bytes and its end, and a hint
 * already received must not lose to the timer. A body of unknown length (chunked, no
 * {@code Content-Length}, or encoded) is whole only once it ended.
 * {@link #drop()} drops the body: the connection is closed, buffers held are released.
 *
 * <p>Thread-safe: the body's signals arrive one after another; the caller's on its own threads.
 */
final class ReadAhead extends BaseSubscriber<DataBuffer> {
  private final int limit;
  /** The body's declared length in bytes, or -1 if unknown. */
  private final long declared;
  private final Sinks.Many<DataBuffer> sink = Sinks.many().unicast().onBackpressureBuffer();
  private final Sinks.Empty<Void> filled = Sinks.empty();
  private final AtomicBoolean handedOver = new AtomicBoolean();
  // Guarded by this:
  private final ByteArrayOutputStream head = new ByteArrayOutputStream();
  private long size;
  private boolean ended;

  private ReadAhead(int limit, long declared) {
    this.limit = limit;
    this.declared = declared;
  }

  /**
   * Starts reading at most about {@code limit} bytes of {@code body} ahead. {@code declared} is
   * the length the response declares for {@code body} (its {@code Content-Length}), empty if
   * unknown; it must be the length of the bytes {@code body} gives, not of encoded bytes.
   */
  static ReadAhead start(Flux<DataBuffer> body, int limit, OptionalLong declared) {
    ReadAhead ahead = new ReadAhead(limit, declared.orElse(-1));
    body.subscribe(ahead);
    return ahead;
  }

  /** Returns the whole body for the caller: the buffers read ahead, then the rest. */
  Flux<DataBuffer> body() {
    return sink.asFlux()
        .doOnSubscribe(subscription -> handedOver.set(true))
        .doOnRequest(this::request)
        .doOnCancel(this::cancel)
        .doOnDiscard(DataBuffer.class, DataBufferUtils::release);
  }

  /**
   * Completes when {@code limit} bytes were read, the body ended or failed, or its declared
   * length arrived.
   */
  Mono<Void> filled() {
    return filled.asMono();
  }

  /**
   * Returns the first {@code max} bytes of the body read so far, if the body ended, its declared
   * length arrived, or at least {@code max} bytes arrived; {@code null} otherwise (the hint is not
   * complete).
   */
  synchronized byte @Nullable [] bytes(int max) {
    if (!ended && size < max && !declaredLengthArrived()) {
      return null;
    }
    byte[] all = head.toByteArray();
    if (all.length <= max) {
      return all;
    }
    byte[] prefix = new byte[max];
    System.arraycopy(all, 0, prefix, 0, max);
    return prefix;
  }

  /** Returns the whole body if it ended within {@code max} bytes; {@code null} otherwise. */
  synchronized byte @Nullable [] whole(int max) {
    return ended && size <= max ? head.toByteArray() : null;
  }

  /**
   * Drops the body: asks for nothing more (the connection is closed if the body had not ended)
   * and releases the buffers held for a caller who never subscribed.
   */
  void drop() {
    cancel();
    filled.tryEmitEmpty();
    sink.tryEmitComplete();
    if (handedOver.compareAndSet(false, true)) {
      sink.asFlux().subscribe(DataBufferUtils::release, e -> { }, () -> { });
    }
  }

  /** Whether as many bytes as the body's declared length arrived. Guarded by this. */
  private boolean declaredLengthArrived() {
    return declared >= 0 && size >= declared;
  }

  @Override
  protected void hookOnSubscribe(Subscription subscription) {
    subscription.request(1);
  }

  @Override
  protected void hookOnNext(DataBuffer buffer) {
    boolean more;
    synchronized (this) {
      int count = buffer.readableByteCount();
      int copy = (int) Math.max(0, Math.min(count, limit - size));
      if (copy > 0) {
        ByteBuffer bytes = ByteBuffer.allocate(copy);
        buffer.toByteBuffer(buffer.readPosition(), bytes, 0, copy);
        head.write(bytes.array(), 0, copy);
      }
      size += count;
      more = size < limit && !declaredLengthArrived();
    }
    if (sink.tryEmitNext(buffer).isFailure()) {
      DataBufferUtils.release(buffer);
    }
    if (!more) {
      filled.tryEmitEmpty();
    }
    if (more && !handedOver.get()) {
      request(1);
    }
  }

  @Override
  protected void hookOnComplete() {
    synchronized (this) {
      ended = true;
    }
    filled.tryEmitEmpty();
    sink.tryEmitComplete();
  }

  @Override
  protected void hookOnError(Throwable failure) {
    filled.tryEmitEmpty();
    sink.tryEmitError(failure);
  }
}
