package dev.headway.hostile;

import dev.headway.Pacer;
import dev.headway.httpclient5.RateLimitExecChainHandler;
import java.io.IOException;
import java.net.URI;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.hc.client5.http.classic.methods.HttpGet;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.DefaultHttpRequestRetryStrategy;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClientBuilder;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.core5.http.ClassicHttpResponse;
import org.apache.hc.core5.http.HttpEntity;
import org.apache.hc.core5.util.TimeValue;
import org.apache.hc.core5.util.Timeout;

/**
 * {@link Client#HC5_CLASSIC}: Apache HttpClient 5's classic {@code CloseableHttpClient} with
 * {@link RateLimitExecChainHandler} added by {@code addTo}, and the same client without it.
 *
 * <p>Set up as a user would: a pooling connection manager with a connect timeout of
 * {@link Client#CONNECT_TIMEOUT} and a socket (read) timeout of {@link Client#READ_TIMEOUT}, and a
 * response timeout of the same. HttpClient's own retry strategy is told to retry nothing
 * ({@code DefaultHttpRequestRetryStrategy(0, 0)}, given to {@code addTo}): by default it sends an
 * idempotent request again after an I/O failure, one second later, so the requests the server
 * counts per call would no longer be Headway's alone. The body is read as the other clients'
 * are, for at most {@link Client#DRAIN_LIMIT}, then the response is closed under the reader
 * (which closes its connection).
 */
final class HttpClient5Classic implements Client.External {
  private static final CloseableHttpClient PLAIN = builder().build();

  /** Loaded by {@link Client} by name. */
  HttpClient5Classic() {}

  static DefaultHttpRequestRetryStrategy noRetries() {
    return new DefaultHttpRequestRetryStrategy(0, TimeValue.ZERO_MILLISECONDS);
  }

  private static HttpClientBuilder builder() {
    ConnectionConfig connection = ConnectionConfig.custom()
        .setConnectTimeout(Timeout.of(Client.CONNECT_TIMEOUT))
        .setSocketTimeout(Timeout.of(Client.READ_TIMEOUT)).build();
    return HttpClients.custom()
        .setConnectionManager(PoolingHttpClientConnectionManagerBuilder.create()
            .setDefaultConnectionConfig(connection).setMaxConnTotal(512)
            .setMaxConnPerRoute(512).build())
        .setDefaultRequestConfig(RequestConfig.custom()
            .setResponseTimeout(Timeout.of(Client.READ_TIMEOUT)).build())
        .setRetryStrategy(noRetries());
  }

  @Override
  public Client.Sender paced(Pacer pacer) {
    CloseableHttpClient client = RateLimitExecChainHandler.create(pacer)
        .addTo(builder(), noRetries()).build();
    return (uri, at) -> send(client, uri, at);
  }

  @Override
  public Client.Sender plain() {
    return (uri, at) -> send(PLAIN, uri, at);
  }

  /** Sends one GET on a thread of its own, so that a call that never returns fails the case. */
  private static int send(CloseableHttpClient client, URI uri, long[] at) throws Throwable {
    CompletableFuture<Integer> sent = new CompletableFuture<>();
    Thread caller = new Thread(() -> {
      try {
        sent.complete(call(client, uri, at));
      } catch (Throwable t) {
        sent.completeExceptionally(t);
      }
    }, "hostile-hc5-caller");
    caller.setDaemon(true);
    caller.start();
    try {
      return sent.get(Client.HARD_LIMIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw e.getCause();
    } catch (TimeoutException e) {
      Throwable where = new Throwable("where the caller was");
      where.setStackTrace(caller.getStackTrace());
      caller.interrupt();
      throw new AssertionError("HttpClient 5: no outcome after " + Client.HARD_LIMIT, where);
    }
  }

  private static int call(CloseableHttpClient client, URI uri, long[] at) throws IOException {
    ClassicHttpResponse response = client.executeOpen(null, new HttpGet(uri), null);
    at[0] = System.nanoTime();
    int status = response.getCode();
    ScheduledFuture<?> stop = Client.WATCHDOG.schedule(() -> close(response),
        Client.DRAIN_LIMIT.toMillis(), TimeUnit.MILLISECONDS);
    try (response) {
      HttpEntity entity = response.getEntity();
      if (entity != null) {
        Client.drain(entity.getContent());
      }
    } catch (IOException | RuntimeException e) {
      // The body is the server's problem and the user's: the call itself is what is checked.
    } finally {
      stop.cancel(false);
    }
    return status;
  }

  private static void close(ClassicHttpResponse response) {
    try {
      response.close();
    } catch (IOException e) {
      // Giving up on it anyway.
    }
  }
}
