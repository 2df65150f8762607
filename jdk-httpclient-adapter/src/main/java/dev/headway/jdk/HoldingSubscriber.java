package dev.headway.jdk;

import dev.headway.HttpFields;
import dev.headway.RateLimitSignal;
import dev.headway.SignalParser;
import java.net.http.HttpResponse.BodySubscriber;
import java.net.http.HttpResponse.ResponseInfo;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;

/**
 * Holds the body of a JSON 429/503 that may be retried until the retry decision can be made from
 * it: until the body completes, or until more than {@link SignalParser#MAX_BODY_BYTES} arrived.
 * Buffers are requested one at a time meanwhile, so at most the bound plus one buffer is held.
 *
 * <p>Retried: the held buffers are dropped and the rest of the body cancelled. Delivered: the
 * caller's handler is applied now, and its subscriber receives the held buffers and then the rest
 * of the stream, as fast as it requests them — the same bytes in the same order as without
 * Headway.
 */
final class HoldingSubscriber<T> implements BodySubscriber<T> {
  private final PacedBodyHandler<T> handler;
  private final ResponseInfo info;
  private final HttpFields headers;
  private final CompletableFuture<T> body = new CompletableFuture<>();
  private final BodyPrefix prefix = new BodyPrefix(SignalParser.MAX_BODY_BYTES);
  private final ArrayDeque<List<ByteBuffer>> held = new ArrayDeque<>();
  private Flow.Subscription upstream;
  private volatile Relay relay;

  HoldingSubscriber(PacedBodyHandler<T> handler, ResponseInfo info, HttpFields headers) {
    this.handler = handler;
    this.info = info;
    this.headers = headers;
  }

  @Override
  public CompletionStage<T> getBody() {
    return body;
  }

  @Override
  public void onSubscribe(Flow.Subscription subscription) {
    upstream = subscription;
    subscription.request(1);
  }

  @Override
  public void onNext(List<ByteBuffer> item) {
    Relay r = relay;
    if (r != null) {
      r.onNext(item);
      return;
    }
    held.add(item);
    prefix.append(item);
    if (prefix.overflowed()) {
      decide(false);
    } else {
      upstream.request(1);
    }
  }

  @Override
  public void onError(Throwable throwable) {
    Relay r = relay;
    if (r != null) {
      r.onError(throwable);
      return;
    }
    handler.complete(info.statusCode(), headers, prefix.bytes());
    body.completeExceptionally(throwable);
  }

  @Override
  public void onComplete() {
    Relay r = relay;
    if (r != null) {
      r.onComplete();
      return;
    }
    decide(true);
  }

  private void decide(boolean complete) {
    RateLimitSignal signal = handler.complete(info.statusCode(), headers, prefix.bytes());
    Optional<Duration> delay = handler.retryDelayFor(signal);
    if (delay.isPresent()) {
      handler.retryAfter(delay.get());
      held.clear();
      if (!complete) {
        upstream.cancel();
      }
      body.complete(null);
      return;
    }
    BodySubscriber<T> downstream;
    try {
      downstream = handler.caller().apply(info);
    } catch (RuntimeException | Error e) {
      upstream.cancel();
      body.completeExceptionally(e);
      throw e;
    }
    downstream.getBody().whenComplete((value, failure) -> {
      if (failure != null) {
        body.completeExceptionally(failure);
      } else {
        body.complete(value);
      }
    });
    Relay r = new Relay(downstream, upstream, held, complete);
    relay = r;
    downstream.onSubscribe(r);
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
    private Throwable upstreamError;
    private boolean cancelled;
    private boolean terminated;
    private boolean draining;
    private boolean missed;

    Relay(Flow.Subscriber<? super List<ByteBuffer>> downstream, Flow.Subscription upstream,
        ArrayDeque<List<ByteBuffer>> held, boolean upstreamDone) {
      this.downstream = downstream;
      this.upstream = upstream;
      this.queue = new ArrayDeque<>(held);
      this.upstreamDone = upstreamDone;
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
