package dev.headway.hostile;

import dev.headway.Pacer;
import dev.headway.httpclient5.RateLimitAsyncExecChainHandler;
import java.io.IOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.hc.client5.http.async.methods.AbstractBinResponseConsumer;
import org.apache.hc.client5.http.async.methods.SimpleRequestBuilder;
import org.apache.hc.client5.http.async.methods.SimpleRequestProducer;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.async.CloseableHttpAsyncClient;
import org.apache.hc.client5.http.impl.async.HttpAsyncClientBuilder;
import org.apache.hc.client5.http.impl.async.HttpAsyncClients;
import org.apache.hc.client5.http.impl.nio.PoolingAsyncClientConnectionManagerBuilder;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.HttpResponse;
import org.apache.hc.core5.util.Timeout;

/**
 * {@link Client#HC5_ASYNC}: Apache HttpClient 5's {@code CloseableHttpAsyncClient} with
 * {@link RateLimitAsyncExecChainHandler} added by {@code addTo}, and the same client without it,
 * set up as {@link HttpClient5Classic} is (timeouts, no retries of HttpClient's own).
 *
 * <p>The caller waits on the request's future for the response's head (at most
 * {@link Client#HARD_LIMIT}); a failure is the future's cause. The body is counted by a streaming
 * consumer, which gives up on it (throws from {@code data}, which fails the exchange and closes
 * its connection) once {@link Client#DRAIN_BYTES} arrived or {@link Client#DRAIN_LIMIT} passed;
 * a body that stops arriving is given up by cancelling the future. Cancelling alone is not enough
 * for a body that keeps arriving: HttpClient 5.6 then leaves the connection open for as long as
 * the server sends, with or without Headway (seen on the never-ending bodies of {@link Cases}).
 */
final class HttpClient5Async implements Client.External {
  private static final CloseableHttpAsyncClient PLAIN = started(builder());

  /** Loaded by {@link Client} by name. */
  HttpClient5Async() {}

  private static HttpAsyncClientBuilder builder() {
    ConnectionConfig connection = ConnectionConfig.custom()
        .setConnectTimeout(Timeout.of(Client.CONNECT_TIMEOUT))
        .setSocketTimeout(Timeout.of(Client.READ_TIMEOUT)).build();
    return HttpAsyncClients.custom()
        .setConnectionManager(PoolingAsyncClientConnectionManagerBuilder.create()
            .setDefaultConnectionConfig(connection).setMaxConnTotal(512)
            .setMaxConnPerRoute(512).build())
        .setDefaultRequestConfig(RequestConfig.custom()
            .setResponseTimeout(Timeout.of(Client.READ_TIMEOUT)).build())
        .setRetryStrategy(HttpClient5Classic.noRetries());
  }

  private static CloseableHttpAsyncClient started(HttpAsyncClientBuilder builder) {
    CloseableHttpAsyncClient client = builder.build();
    client.start();
    return client;
  }

  @Override
  public Client.Sender paced(Pacer pacer) {
    CloseableHttpAsyncClient client = started(RateLimitAsyncExecChainHandler.create(pacer)
        .addTo(builder(), HttpClient5Classic.noRetries()));
    return (uri, at) -> send(client, uri, at);
  }

  @Override
  public Client.Sender plain() {
    return (uri, at) -> send(PLAIN, uri, at);
  }

  private static int send(CloseableHttpAsyncClient client, URI uri, long[] at) throws Throwable {
    CompletableFuture<Integer> head = new CompletableFuture<>();
    Future<Integer> call = client.execute(
        SimpleRequestProducer.create(SimpleRequestBuilder.get(uri).build()),
        new AbstractBinResponseConsumer<Integer>() {
          private int status;
          private long read;

          @Override
          protected void start(HttpResponse response, ContentType contentType) {
            at[0] = System.nanoTime();
            status = response.getCode();
            head.complete(status);
          }

          @Override
          protected int capacityIncrement() {
            return Integer.MAX_VALUE;
          }

          @Override
          protected void data(ByteBuffer data, boolean endOfStream) throws IOException {
            read += data.remaining();
            data.position(data.limit());
            if (!endOfStream && (read >= Client.DRAIN_BYTES
                || System.nanoTime() - at[0] > Client.DRAIN_LIMIT.toNanos())) {
              throw new IOException("the test gives up on this body");
            }
          }

          @Override
          protected Integer buildResult() {
            return status;
          }

          @Override
          public void releaseResources() {}
        }, null);
    CompletableFuture.runAsync(() -> {
      try {
        call.get();
      } catch (ExecutionException e) {
        head.completeExceptionally(e.getCause());
      } catch (Exception e) {
        head.completeExceptionally(e);
      }
    }, Client.pool("hostile-hc5-async-waiter"));
    int status;
    try {
      status = head.get(Client.HARD_LIMIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw e.getCause();
    } catch (TimeoutException e) {
      call.cancel(true);
      throw new AssertionError("HttpClient 5 async: no outcome after " + Client.HARD_LIMIT);
    }
    try {
      call.get(Client.DRAIN_LIMIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException | ExecutionException e) {
      // The body is the server's problem and the user's: the call itself is what is checked.
      call.cancel(true);
    }
    return status;
  }

}
