package dev.headway.spring.webflux;

import dev.headway.HttpFields;
import dev.headway.RequestInfo;
import dev.headway.internal.adapter.Attempt;
import dev.headway.internal.adapter.BodyHints;
import dev.headway.internal.adapter.PacedExchange;
import dev.headway.internal.adapter.RequestDescriptions;
import dev.headway.internal.adapter.Swallowed;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Subscription;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.web.reactive.function.BodyExtractors;
import org.springframework.web.reactive.function.BodyInserters;
import org.springframework.web.reactive.function.client.ClientRequest;
import org.springframework.web.reactive.function.client.ClientResponse;
import org.springframework.web.reactive.function.client.ExchangeFunction;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.SignalType;
import reactor.util.context.ContextView;

/**
 * One {@code WebClient} request as the core's {@link PacedExchange} sees it: an attempt is
 * {@code next.exchange(request)} (subscribed with the caller's Reactor context), the first
 * attempt's body is recorded ({@link RecordedBody}) and a retry sends the recording, and a body
 * hint is read ahead without blocking ({@link ReadAhead}), waiting at most
 * {@link BodyHints#WAIT} on Reactor's parallel scheduler. Thread-safe for the exchange's steps,
 * which run one after another on the connector's and the pacer's threads.
 */
final class WebClientExchange implements PacedExchange.AsyncClient<ClientResponse> {
  static final String LOGGER = "dev.headway.spring.webflux";

  private final ClientRequest request;
  private final ExchangeFunction next;
  private final ContextView context;
  /** Whether the request has no body at all: sent as it is by every attempt. */
  private final boolean bodiless;
  private final RecordedBody recorded = new RecordedBody();
  /** The read-ahead of the last attempt's body; null when its body was not read ahead. */
  private volatile @Nullable ReadAhead ahead;
  /** The last attempt's response headers, read once by {@link #readAhead}; null if not read. */
  private volatile @Nullable HttpFields responseFields;

  WebClientExchange(ClientRequest request, ExchangeFunction next, ContextView context) {
    this.request = request;
    this.next = next;
    this.context = context;
    this.bodiless = request.body() == BodyInserters.empty();
  }

  @Override
  public RequestInfo describe() {
    long length = bodiless ? 0 : request.headers().getContentLength();
    return RequestDescriptions.describe(request.method().name(), request.url(),
        fields(request.headers()), !bodiless, length);
  }

  /**
   * Every request can be retried as far as the exchange knows: its body is recorded as the first
   * attempt writes it. One whose body could not be recorded whole is caught in {@link #keep}:
   * its throttled response goes to the caller ({@link #stillReading}).
   */
  @Override
  public boolean replayable() {
    return true;
  }

  @Override
  public CompletableFuture<ClientResponse> send(Attempt attempt) {
    ahead = null;
    responseFields = null;
    ClientRequest sent;
    if (bodiless) {
      sent = request; // nothing to record: every attempt sends it as it is
    } else if (attempt.number() > 1) {
      sent = recorded.replay(request);
    } else if (attempt.mayRetry()) {
      sent = recorded.recording(request);
    } else {
      sent = request; // maxAttempts 1: there will be no retry to record the body for
    }
    return subscribe(next.exchange(sent).flatMap(response -> readAhead(response, attempt)));
  }

  @Override
  public CompletableFuture<ClientResponse> sendUnpaced() {
    return subscribe(next.exchange(request));
  }

  /**
   * Reads ahead the body of a response whose body the parser reads (a JSON 429, 503 or 403), up
   * to what a kept response may hold, waiting for it at most {@link BodyHints#WAIT}. A failure in
   * here is Headway's: the response goes on unread.
   */
  private Mono<ClientResponse> readAhead(ClientResponse response, Attempt attempt) {
    ReadAhead started;
    ClientResponse readable;
    try {
      HttpHeaders raw = response.headers().asHttpHeaders();
      HttpFields headers = fields(raw);
      responseFields = headers;
      if (!attempt.readsBody(response.statusCode().value(), headers)) {
        return Mono.just(response);
      }
      OptionalLong declared = BodyHints.declaredLength(
          String.join(",", raw.getValuesAsList(HttpHeaders.CONTENT_LENGTH)),
          String.join(",", raw.getValuesAsList(HttpHeaders.CONTENT_ENCODING)),
          raw.getFirst(HttpHeaders.TRANSFER_ENCODING));
      started = ReadAhead.start(response.body(BodyExtractors.toDataBuffers()),
          BodyHints.KEEP_BYTES + 1, declared);
      readable = response.mutate().body(unused -> started.body()).build();
    } catch (RuntimeException | LinkageError e) {
      Swallowed.log(LOGGER, "reading ahead a response's body", e);
      return Mono.just(response);
    }
    ahead = started;
    return started.filled().timeout(BodyHints.WAIT, Mono.empty())
        .onErrorResume(e -> Mono.empty())
        .thenReturn(readable)
        .doFinally(signal -> {
          if (signal == SignalType.CANCEL) {
            started.drop(); // the call ended before its response: nobody will read the body
          }
        });
  }

  @Override
  public ClientResponse read(ClientResponse response, Attempt attempt) {
    HttpFields known = responseFields;
    HttpFields headers = known != null ? known : fields(response.headers().asHttpHeaders());
    ReadAhead readAhead = ahead;
    byte[] hint = readAhead == null ? null : readAhead.bytes(attempt.hintBytes());
    attempt.complete(response.statusCode().value(), headers, hint);
    return response;
  }

  /**
   * Keeps a throttled response while the call waits: a body that arrived whole within
   * {@link BodyHints#KEEP_BYTES} is copied to memory and its connection freed; otherwise its
   * body is read ahead up to that size in the background, and dropped when the retry goes.
   */
  @Override
  public ClientResponse keep(ClientResponse response) {
    ReadAhead read = ahead;
    if (read == null) {
      ReadAhead started = ReadAhead.start(response.body(BodyExtractors.toDataBuffers()),
          BodyHints.KEEP_BYTES + 1, OptionalLong.empty());
      ahead = started;
      return response.mutate().body(unused -> started.body()).build();
    }
    byte[] whole = read.whole(BodyHints.KEEP_BYTES);
    if (whole == null) {
      return response;
    }
    read.drop(); // the body ended: this releases the buffers held, the connection is free
    ahead = null;
    return response.mutate()
        .body(unused -> Flux.defer(() -> Flux.just(DefaultDataBufferFactory.sharedInstance
            .wrap(whole))))
        .build();
  }

  /**
   * Returns whether the throttled response must go to the caller as it is: the request's body
   * was not recorded whole, so a retry could not send it again.
   */
  @Override
  public boolean stillReading(ClientResponse kept) {
    return !bodiless && !recorded.complete();
  }

  /** Drops a kept response without reading the rest of its body (its connection is closed). */
  @Override
  public void discard(ClientResponse kept) {
    ReadAhead read = ahead;
    ahead = null;
    try {
      if (read != null) {
        read.drop();
      } else {
        kept.body(BodyExtractors.toDataBuffers()).subscribe(new Dropping());
      }
    } catch (RuntimeException | LinkageError e) {
      Swallowed.log(LOGGER, "dropping a throttled response", e);
    }
  }

  /**
   * Subscribes to {@code exchange} with the caller's context; cancelling the future cancels the
   * subscription, and a response that arrives after the future was cancelled is dropped.
   */
  private CompletableFuture<ClientResponse> subscribe(Mono<ClientResponse> exchange) {
    CompletableFuture<ClientResponse> future = new CompletableFuture<>();
    AtomicBoolean answered = new AtomicBoolean();
    BaseSubscriber<ClientResponse> subscriber = new BaseSubscriber<>() {
      @Override
      protected void hookOnNext(ClientResponse response) {
        answered.set(true);
        if (!future.complete(response)) {
          response.body(BodyExtractors.toDataBuffers()).subscribe(new Dropping());
        }
      }

      @Override
      protected void hookOnError(Throwable failure) {
        future.completeExceptionally(failure);
      }

      @Override
      protected void hookOnComplete() {
        if (!answered.get()) {
          future.completeExceptionally(new IllegalStateException("no response"));
        }
      }
    };
    future.whenComplete((response, failure) -> {
      if (future.isCancelled()) {
        subscriber.dispose();
      }
    });
    exchange.contextWrite(context).subscribe(subscriber);
    return future;
  }

  /** Copies Spring headers, every value in order; {@code forEach} is the same on 6 and 7. */
  static HttpFields fields(HttpHeaders headers) {
    HttpFields.Builder builder = HttpFields.builder();
    headers.forEach((String name, List<String> values) -> {
      for (String value : values) {
        builder.add(name, value);
      }
    });
    return builder.build();
  }

  /** Cancels a body at once: its connection is closed rather than drained. */
  private static final class Dropping extends BaseSubscriber<DataBuffer> {
    @Override
    protected void hookOnSubscribe(Subscription subscription) {
      subscription.cancel();
    }
  }
}
