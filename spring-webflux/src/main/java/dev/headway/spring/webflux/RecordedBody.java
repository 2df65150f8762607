package dev.headway.spring.webflux;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.reactivestreams.Publisher;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.http.HttpHeaders;
import org.springframework.http.client.reactive.ClientHttpRequest;
import org.springframework.http.client.reactive.ClientHttpRequestDecorator;
import org.springframework.web.reactive.function.BodyInserter;
import org.springframework.web.reactive.function.client.ClientRequest;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The body of a request as its first attempt wrote it, so that a retry sends the same bytes with
 * the same headers.
 *
 * <p>Why record rather than run the request's {@link BodyInserter} again: an inserter may write a
 * publisher that can be subscribed only once (a {@code Flux} over an {@code InputStream}, a hot
 * source, a resource read once), and Headway cannot tell such an inserter from one that writes a
 * value. Recording what the first attempt actually wrote is safe for every inserter: the retry
 * writes exactly those bytes, with the headers the inserter set then ({@code Content-Type},
 * {@code Content-Length}). A body is recorded up to {@link #MAX_BYTES}; a longer one, one written
 * with {@code writeAndFlushWith} (a streaming body), or one that had not been written to its end
 * when the response arrived is not recorded, and its throttled response goes to the caller as it
 * came, not retried.
 *
 * <p>Thread-safe: written by the connector's threads, read by the exchange's afterwards.
 */
final class RecordedBody {
  /** The longest request body held in memory for a retry: 1 MiB. */
  static final int MAX_BYTES = 1024 * 1024;

  private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
  private final List<Map.Entry<String, List<String>>> headers = new ArrayList<>();
  private boolean complete;
  private boolean failed;

  /** Returns {@code request} with its body recorded as it is written. */
  ClientRequest recording(ClientRequest request) {
    BodyInserter<?, ? super ClientHttpRequest> inserter = request.body();
    return ClientRequest.from(request)
        .body((message, context) -> inserter.insert(new Recorder(message), context))
        .build();
  }

  /**
   * Returns whether the whole body was recorded: a retry can send it again. A request whose
   * inserter wrote nothing at all (no body) counts as recorded.
   */
  synchronized boolean complete() {
    return complete && !failed;
  }

  /** Returns {@code request} with the recorded body and headers instead of its inserter's. */
  ClientRequest replay(ClientRequest request) {
    byte[] body;
    List<Map.Entry<String, List<String>>> written;
    synchronized (this) {
      body = bytes.toByteArray();
      written = List.copyOf(headers);
    }
    return ClientRequest.from(request)
        .body((message, context) -> {
          HttpHeaders target = message.getHeaders();
          for (Map.Entry<String, List<String>> header : written) {
            if (target.getFirst(header.getKey()) == null) {
              target.addAll(header.getKey(), header.getValue());
            }
          }
          if (body.length == 0) {
            return message.setComplete();
          }
          return message.writeWith(Mono.fromSupplier(() -> message.bufferFactory().wrap(body)));
        })
        .build();
  }

  private synchronized void headers(HttpHeaders written) {
    headers.clear();
    written.forEach((String name, List<String> values) ->
        headers.add(Map.entry(name, List.copyOf(values))));
  }

  private synchronized void add(DataBuffer buffer) {
    int count = buffer.readableByteCount();
    if (failed || bytes.size() + (long) count > MAX_BYTES) {
      failed = true;
      bytes.reset();
      return;
    }
    ByteBuffer copy = ByteBuffer.allocate(count);
    buffer.toByteBuffer(buffer.readPosition(), copy, 0, count);
    bytes.write(copy.array(), 0, count);
  }

  private synchronized void ended() {
    complete = true;
  }

  private synchronized void fail() {
    failed = true;
  }

  /** The outgoing message of the first attempt, copying what is written to it. */
  private final class Recorder extends ClientHttpRequestDecorator {
    Recorder(ClientHttpRequest delegate) {
      super(delegate);
    }

    @Override
    public Mono<Void> writeWith(Publisher<? extends DataBuffer> body) {
      headers(getHeaders());
      return super.writeWith(Flux.from(body)
          .doOnNext(RecordedBody.this::add)
          .doOnError(e -> fail())
          .doOnCancel(RecordedBody.this::fail)
          .doOnComplete(RecordedBody.this::ended));
    }

    @Override
    public Mono<Void> writeAndFlushWith(
        Publisher<? extends Publisher<? extends DataBuffer>> body) {
      fail(); // a streaming body, flushed as it goes: not held for a retry
      return super.writeAndFlushWith(body);
    }

    @Override
    public Mono<Void> setComplete() {
      headers(getHeaders());
      ended();
      return super.setComplete();
    }
  }
}
