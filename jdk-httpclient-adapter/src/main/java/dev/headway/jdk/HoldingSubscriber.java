package dev.headway.jdk;

import dev.headway.HttpFields;
import dev.headway.SignalParser;
import dev.headway.internal.adapter.BodyHints;
import dev.headway.internal.adapter.Swallowed;
import java.net.http.HttpHeaders;
import java.net.http.HttpResponse.BodySubscriber;
import java.net.http.HttpResponse.ResponseInfo;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
import java.util.concurrent.Executor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Holds the body of a response that may be retried: buffers are requested one at a time until
 * the body completes, more than {@link #HOLD_LIMIT} bytes arrived, or {@link BodyHints#WAIT}
 * passed since the headers (a slow, never-ending or lying body is not waited for); then, if the
 * retry was not decided from the headers already, the permit is completed with the first
 * {@link SignalParser#MAX_BODY_BYTES} if the body is whole in time (it completed, or all the
 * bytes its {@code Content-Length} declares arrived), or from the headers alone if it is not, and
 * the pacer decides. No more is requested once decided.
 *
 * <p>Not retried: the caller's handler is applied now, and its subscriber receives the held
 * buffers and then the rest of the stream, as fast as it requests them — the same bytes in the
 * same order as without Headway. Retried: the body is complete for the client ({@code null}) and
 * the response is kept — the held buffers, and past the limit the paused rest of the stream on
 * its connection — until the call knows whether the retry gets its permit: then it is either
 * {@linkplain #discard() discarded} or {@linkplain #deliver() delivered} to the caller after all.
 * Thread-safe.
 */
final class HoldingSubscriber<T> implements BodySubscriber<T> {
  /**
   * The most body bytes held before deciding, and kept while waiting to retry; a longer body
   * stays paused on its connection. 64 KiB: 429 and 503 bodies are a few hundred bytes.
   */
  static final int HOLD_LIMIT = BodyHints.KEEP_BYTES;

  /**
   * Where a decision taken when {@link BodyHints#WAIT} ran out runs (it may hand the body to the
   * caller's subscriber): Headway's own daemon threads, ending after a second idle, never the
   * common pool, which application code may keep busy.
   */
  private static final Executor DECIDERS = new ThreadPoolExecutor(0, Integer.MAX_VALUE,
      1, TimeUnit.SECONDS, new SynchronousQueue<>(), runnable -> {
        Thread thread = new Thread(runnable, "headway-body-decider");
        thread.setDaemon(true);
        return thread;
      });

  private final PacedBodyHandler<T> handler;
  private final ResponseInfo info;
  private final HttpFields headers;
  private final CompletableFuture<T> body = new CompletableFuture<>();
  private final BodyPrefix prefix = new BodyPrefix(SignalParser.MAX_BODY_BYTES);
  private final @Nullable Duration decided;
  private final OptionalLong declaredLength;
  // Guarded by this:
  private final ArrayDeque<List<ByteBuffer>> held = new ArrayDeque<>();
  private boolean deciding = true;
  private Flow.@Nullable Subscription upstream;
  private boolean upstreamDone;
  private @Nullable Throwable upstreamError;
  private @Nullable Relay relay;
  private boolean discarded;
  private boolean requested;

  /**
   * @param decided the retry delay already decided from the headers, or {@code null} to decide
   *     from the body
   */
  HoldingSubscriber(PacedBodyHandler<T> handler, ResponseInfo info, HttpFields headers,
      @Nullable Duration decided) {
    this.handler = handler;
    this.info = info;
    this.headers = headers;
    this.decided = decided;
    this.declaredLength = declaredLength(info.headers());
  }

  @Override
  public CompletionStage<T> getBody() {
    return body;
  }

  @Override
  public void onSubscribe(Flow.Subscription subscription) {
    synchronized (this) {
      upstream = subscription;
      requested = true;
    }
    // Real time: this bounds network I/O (see BodyHints). A decision already taken makes it void.
    BodyHints.afterWait(() -> DECIDERS.execute(this::decideWithoutWaiting));
    subscription.request(1);
  }

  private void decideWithoutWaiting() {
    try {
      decide();
    } catch (RuntimeException | LinkageError e) {
      Swallowed.log(RateLimitedHttpClient.LOGGER, "holding a throttled response body", e);
      // decide() completes the body future itself on every path it controls; anything else
      // thrown here is a bug that must not kill the timer thread.
      body.completeExceptionally(e);
    }
  }

  @Override
  public void onNext(List<ByteBuffer> item) {
    Relay r;
    boolean overflowed = false;
    boolean more = false;
    synchronized (this) {
      r = relay;
      if (r == null) {
        requested = false;
        if (discarded) {
          return;
        }
        held.add(item);
        prefix.append(item);
        overflowed = deciding && prefix.seen() > HOLD_LIMIT;
        more = deciding && !overflowed;
        requested = more;
      }
    }
    if (r != null) {
      r.onNext(item);
    } else if (overflowed) {
      decide();
    } else if (more) {
      upstream().request(1);
    }
  }

  @Override
  public void onError(Throwable throwable) {
    Relay r;
    boolean undecided;
    synchronized (this) {
      r = relay;
      upstreamError = throwable;
      undecided = deciding;
      deciding = false;
    }
    if (r != null) {
      r.onError(throwable);
    } else if (undecided) {
      if (decided == null) {
        handler.decide(info.statusCode(), headers, prefixBytes());
      }
      body.completeExceptionally(throwable);
    }
  }

  @Override
  public void onComplete() {
    Relay r;
    synchronized (this) {
      r = relay;
      upstreamDone = true;
    }
    if (r != null) {
      r.onComplete();
    } else {
      decide();
    }
  }

  private void decide() {
    Duration delay;
    byte @Nullable [] hint;
    synchronized (this) {
      if (!deciding) {
        return;
      }
      deciding = false;
      delay = decided;
      // The whole body, or its first bytes of a body too long to hold; never a body cut short
      // by the time limit (a JSON prefix cut anywhere is no hint). A body whose declared length
      // arrived is whole even if its end is not signalled yet: on a busy machine the client's
      // thread can be descheduled for longer than BodyHints.WAIT between the last bytes and the
      // end, and a hint already received must not lose to the timer.
      hint = upstreamDone || prefix.seen() > HOLD_LIMIT || declaredLengthArrived()
          ? prefix.bytes() : null;
    }
    if (delay == null) {
      delay = handler.decide(info.statusCode(), headers, hint).orElse(null);
    }
    if (delay != null) {
      handler.retryAfter(delay, this);
      body.complete(null);
      return;
    }
    deliver().whenComplete((value, failure) -> {
      if (failure != null) {
        body.completeExceptionally(failure);
      } else {
        body.complete(value);
      }
    });
  }

  /**
   * Gives the body to the caller's handler: its subscriber receives the held buffers, then the
   * rest of the stream. Returns the caller's body.
   */
  CompletableFuture<T> deliver() {
    BodySubscriber<T> downstream;
    try {
      downstream = handler.caller().apply(info);
    } catch (RuntimeException | Error e) {
      discard();
      return CompletableFuture.failedFuture(e);
    }
    Relay r;
    synchronized (this) {
      r = new Relay(downstream, upstream(), held, requested ? 1 : 0, upstreamDone,
          upstreamError);
      held.clear();
      relay = r;
    }
    downstream.onSubscribe(r);
    r.start();
    return downstream.getBody().toCompletableFuture();
  }

  /** Drops the kept body and cancels the rest of the stream, unless it was delivered. */
  void discard() {
    boolean cancel;
    synchronized (this) {
      if (relay != null || discarded) {
        return;
      }
      discarded = true;
      held.clear();
      cancel = !upstreamDone && upstreamError == null;
    }
    if (cancel) {
      upstream().cancel();
    }
  }

  /**
   * Whether as many bytes as the response's {@code Content-Length} declares have arrived: the
   * body is then whole, whether or not its end has been signalled yet.
   */
  private boolean declaredLengthArrived() {
    return declaredLength.isPresent() && prefix.seen() >= declaredLength.getAsLong();
  }

  /**
   * The declared length of the bytes held. The JDK client never decodes a body, so a
   * {@code Content-Encoding} does not matter: the length counts the encoded bytes it gives.
   */
  private static OptionalLong declaredLength(HttpHeaders fields) {
    List<String> lengths = fields.allValues("content-length");
    return BodyHints.declaredLength(lengths.isEmpty() ? null : String.join(",", lengths), null,
        fields.firstValue("transfer-encoding").orElse(null));
  }

  private synchronized Flow.Subscription upstream() {
    if (upstream == null) {
      throw new IllegalStateException("not subscribed");
    }
    return upstream;
  }

  private byte[] prefixBytes() {
    synchronized (this) {
      return prefix.bytes();
    }
  }

  /**
   * Replays the held buffers to the caller's subscriber, then relays the upstream, honouring the
   * caller's demand. Signals to the caller are serialised by a drain loop. Thread-safe.
   */
  private static final class Relay implements Flow.Subscription {
    private final Flow.Subscriber<? super List<ByteBuffer>> downstream;
    private final Flow.Subscription upstream;
    private final ArrayDeque<List<ByteBuffer>> queue;
    private long demand;
    private long requestedUpstream;
    private boolean upstreamDone;
    private @Nullable Throwable upstreamError;
    private boolean cancelled;
    private boolean terminated;
    private boolean started;
    private boolean draining;
    private boolean missed;

    Relay(Flow.Subscriber<? super List<ByteBuffer>> downstream, Flow.Subscription upstream,
        ArrayDeque<List<ByteBuffer>> held, long requestedUpstream, boolean upstreamDone,
        @Nullable Throwable upstreamError) {
      this.downstream = downstream;
      this.upstream = upstream;
      this.queue = new ArrayDeque<>(held);
      this.requestedUpstream = requestedUpstream;
      this.upstreamDone = upstreamDone;
      this.upstreamError = upstreamError;
    }

    /** Starts signalling, once the downstream has its subscription. */
    void start() {
      synchronized (this) {
        started = true;
      }
      drain();
    }

    @Override
    public void request(long n) {
      if (n <= 0) {
        // Reactive Streams rule 3.9: a non-positive request ends the stream with an error.
        synchronized (this) {
          queue.clear();
          upstreamError = new IllegalArgumentException("n must be positive but was " + n);
        }
        upstream.cancel();
      } else {
        synchronized (this) {
          demand = demand + n < 0 ? Long.MAX_VALUE : demand + n;
        }
      }
      drain();
    }

    @Override
    public void cancel() {
      synchronized (this) {
        cancelled = true;
        queue.clear();
      }
      upstream.cancel();
    }

    void onNext(List<ByteBuffer> item) {
      synchronized (this) {
        requestedUpstream--;
        queue.add(item);
      }
      drain();
    }

    void onError(Throwable throwable) {
      synchronized (this) {
        upstreamError = throwable;
      }
      drain();
    }

    void onComplete() {
      synchronized (this) {
        upstreamDone = true;
      }
      drain();
    }

    private void drain() {
      synchronized (this) {
        if (!started) {
          return;
        }
        if (draining) {
          missed = true;
          return;
        }
        draining = true;
      }
      while (true) {
        List<ByteBuffer> next = null;
        Throwable error = null;
        boolean complete = false;
        long toRequest = 0;
        synchronized (this) {
          if (cancelled || terminated) {
            draining = false;
            return;
          }
          if (demand > 0 && !queue.isEmpty()) {
            next = queue.poll();
            demand--;
          } else if (queue.isEmpty() && upstreamError != null) {
            terminated = true;
            error = upstreamError;
          } else if (queue.isEmpty() && upstreamDone) {
            terminated = true;
            complete = true;
          } else if (queue.isEmpty() && demand > requestedUpstream) {
            toRequest = demand - requestedUpstream;
            requestedUpstream = demand;
          } else if (missed) {
            missed = false;
            continue;
          } else {
            draining = false;
            return;
          }
        }
        if (next != null) {
          downstream.onNext(next);
        } else if (error != null) {
          downstream.onError(error);
        } else if (complete) {
          downstream.onComplete();
        } else {
          upstream.request(toRequest);
        }
      }
    }
  }
}
