package dev.headway.contract;

import dev.headway.Pacer;
import dev.headway.httpclient5.RateLimitAsyncExecChainHandler;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.hc.client5.http.async.methods.SimpleHttpResponse;
import org.apache.hc.client5.http.async.methods.SimpleResponseConsumer;
import org.apache.hc.client5.http.impl.async.CloseableHttpAsyncClient;
import org.apache.hc.client5.http.impl.async.HttpAsyncClients;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.nio.AsyncEntityProducer;
import org.apache.hc.core5.http.nio.entity.AsyncEntityProducers;
import org.apache.hc.core5.http.nio.support.AsyncRequestBuilder;
import org.apache.hc.core5.io.CloseMode;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;

/**
 * The contract on Apache HttpClient 5's asynchronous client, built with
 * {@code HttpAsyncClients.custom()} and the handler added with {@code addTo}, as the docs say; the
 * caller waits on the request's future ({@code get}) and reads the body with a
 * {@link SimpleResponseConsumer}. Failures arrive as the future's cause. An interrupt ends the
 * caller's {@code get} ({@link InterruptedException}, flag cleared), and the caller cancels the
 * future, as a user giving up would: nothing more is sent. A one-shot body is an entity producer
 * that is not repeatable ({@link OneShotProducer}).
 */
class HttpClient5AsyncContractTest extends AdapterContract {
  private @Nullable CloseableHttpAsyncClient client;

  @AfterEach
  void closeClient() {
    if (client != null) {
      client.close(CloseMode.IMMEDIATE);
    }
  }

  @Override
  Caller caller(Pacer pacer) {
    CloseableHttpAsyncClient built = RateLimitAsyncExecChainHandler.create(pacer)
        .addTo(HttpAsyncClients.custom()).build();
    built.start();
    client = built;
    return new Caller() {
      @Override
      public Reply send(String method, URI uri, @Nullable String body, boolean oneShot)
          throws Exception {
        AsyncRequestBuilder request = AsyncRequestBuilder.create(method).setUri(uri);
        if (body != null) {
          AsyncEntityProducer entity = AsyncEntityProducers.create(body, ContentType.TEXT_PLAIN);
          request.setEntity(oneShot ? new OneShotProducer(entity) : entity);
        }
        Future<SimpleHttpResponse> future =
            built.execute(request.build(), SimpleResponseConsumer.create(), null);
        SimpleHttpResponse response;
        try {
          response = future.get();
        } catch (InterruptedException e) {
          future.cancel(true);
          throw e;
        }
        String text = response.getBodyBytes() == null ? ""
            : new String(response.getBodyBytes(), StandardCharsets.UTF_8);
        return new Reply(response.getCode(), text);
      }

      @Override
      public Class<? extends Exception> interrupted() {
        return InterruptedException.class;
      }

      @Override
      public boolean interruptFlagKept() {
        return false;
      }

      @Override
      public Throwable cause(Throwable thrown) {
        return thrown instanceof ExecutionException && thrown.getCause() != null
            ? thrown.getCause() : thrown;
      }
    };
  }

  /** An entity producer that can produce its content once: not repeatable. */
  static final class OneShotProducer implements AsyncEntityProducer {
    private final AsyncEntityProducer delegate;

    OneShotProducer(AsyncEntityProducer delegate) {
      this.delegate = delegate;
    }

    @Override
    public boolean isRepeatable() {
      return false;
    }

    @Override
    public void failed(Exception cause) {
      delegate.failed(cause);
    }

    @Override
    public long getContentLength() {
      return delegate.getContentLength();
    }

    @Override
    public String getContentType() {
      return delegate.getContentType();
    }

    @Override
    public String getContentEncoding() {
      return delegate.getContentEncoding();
    }

    @Override
    public boolean isChunked() {
      return delegate.isChunked();
    }

    @Override
    public java.util.Set<String> getTrailerNames() {
      return delegate.getTrailerNames();
    }

    @Override
    public int available() {
      return delegate.available();
    }

    @Override
    public void produce(org.apache.hc.core5.http.nio.DataStreamChannel channel)
        throws IOException {
      delegate.produce(channel);
    }

    @Override
    public void releaseResources() {
      delegate.releaseResources();
    }
  }
}
