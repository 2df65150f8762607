package dev.headway.httpclient5;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
import dev.headway.testing.CallerThread;
import dev.headway.testing.HeldCallers;
import dev.headway.testing.ScriptedServer;
import dev.headway.testing.VirtualClock;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.hc.client5.http.async.methods.SimpleHttpRequest;
import org.apache.hc.client5.http.async.methods.SimpleHttpResponse;
import org.apache.hc.client5.http.async.methods.SimpleRequestBuilder;
import org.apache.hc.client5.http.classic.methods.HttpGet;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.async.CloseableHttpAsyncClient;
import org.apache.hc.client5.http.impl.async.HttpAsyncClientBuilder;
import org.apache.hc.client5.http.impl.async.HttpAsyncClients;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClientBuilder;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.client5.http.impl.nio.PoolingAsyncClientConnectionManagerBuilder;
import org.apache.hc.core5.concurrent.FutureCallback;
import org.apache.hc.core5.reactor.IOReactorConfig;
import org.apache.hc.core5.util.TimeValue;
import org.apache.hc.core5.util.Timeout;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Timeout.ThreadMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The response timeout ({@link RequestConfig#getResponseTimeout()}) of a call Headway held:
 * counted from the call while the server has answered nothing on its partition, whole after the
 * server answered (see {@link HeldCallers}).
 */
@org.junit.jupiter.api.Timeout(value = 60, threadMode = ThreadMode.SEPARATE_THREAD)
class HeldCallResponseTimeoutTest {
  /** A client, classic or async, that sends GETs with a response timeout. */
  private interface Client extends AutoCloseable {
    /** Starts a GET of {@code uri}; the future holds the status or fails as the call failed. */
    CompletableFuture<Integer> get(String uri);

    @Override
    void close() throws IOException;
  }

  private static Client client(String kind, Duration responseTimeout, @Nullable Pacer pacer) {
    RequestConfig config = RequestConfig.custom()
        .setResponseTimeout(Timeout.ofMilliseconds(responseTimeout.toMillis())).build();
    if (kind.equals("classic")) {
      HttpClientBuilder builder = HttpClients.custom().setDefaultRequestConfig(config)
          .setConnectionManager(PoolingHttpClientConnectionManagerBuilder.create()
              .setMaxConnPerRoute(HeldCallers.CALLERS).setMaxConnTotal(HeldCallers.CALLERS)
              .build());
      CloseableHttpClient client = pacer == null ? builder.build()
          : RateLimitExecChainHandler.create(pacer).addTo(builder).build();
      return new Client() {
        @Override
        public CompletableFuture<Integer> get(String uri) {
          return CallerThread.start(
              () -> client.execute(new HttpGet(uri), response -> response.getCode()));
        }

        @Override
        public void close() throws IOException {
          client.close();
        }
      };
    }
    HttpAsyncClientBuilder builder = HttpAsyncClients.custom().setDefaultRequestConfig(config)
        // The reactor looks at its sessions' timeouts once per select interval (1 s by default):
        // every 20 ms, a timeout fires within 20 ms of its time, with Headway or without.
        .setIOReactorConfig(IOReactorConfig.custom()
            .setSelectInterval(TimeValue.ofMilliseconds(20)).build())
        .setConnectionManager(PoolingAsyncClientConnectionManagerBuilder.create()
            .setMaxConnPerRoute(HeldCallers.CALLERS).setMaxConnTotal(HeldCallers.CALLERS)
            .build());
    CloseableHttpAsyncClient client = pacer == null ? builder.build()
        : RateLimitAsyncExecChainHandler.create(pacer).addTo(builder).build();
    client.start();
    return new Client() {
      @Override
      public CompletableFuture<Integer> get(String uri) {
        CompletableFuture<Integer> status = new CompletableFuture<>();
        SimpleHttpRequest request = SimpleRequestBuilder.get(uri).build();
        client.execute(request, new FutureCallback<SimpleHttpResponse>() {
          @Override
          public void completed(SimpleHttpResponse response) {
            status.complete(response.getCode());
          }

          @Override
          public void failed(Exception e) {
            status.completeExceptionally(e);
          }

          @Override
          public void cancelled() {
            status.cancel(false);
          }
        });
        return status;
      }

      @Override
      public void close() throws IOException {
        client.close();
      }
    };
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"classic", "async"})
  void eightCallersAgainstAServerThatNeverAnswersFailAsSoonAsWithoutHeadway(String kind)
      throws Exception {
    // Failed before: the six callers behind the two probes went 550 ms late with the whole
    // response timeout, and failed at 1.5 s and later.
    HeldCallers.failAsSoonAsWithoutHeadway("httpclient5 " + kind, "response timeout",
        (server, pacer) -> {
          try (Client client = client(kind, HeldCallers.TIMEOUT, pacer)) {
            return HeldCallers.callers(server, client::get);
          }
        }, failure -> assertThat(failure).isInstanceOf(SocketTimeoutException.class));
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"classic", "async"})
  void aWaitForASpentWindowTheServerAnnouncedLeavesTheResponseTimeoutWhole(String kind)
      throws Exception {
    VirtualClock clock = VirtualClock.create();
    try (ScriptedServer server = HeldCallers.spentWindowThenSlow();
        Pacer pacer = clock.pacer().maxWait(Duration.ofSeconds(30)).build();
        Client client = client(kind, Duration.ofSeconds(2), pacer)) {
      assertThat(client.get(server.url("/a")).get(10, TimeUnit.SECONDS)).isEqualTo(200);

      CompletableFuture<Integer> second = client.get(server.url("/b"));
      HeldCallers.passTheWindow(server, pacer, clock);

      assertThat(second.get(20, TimeUnit.SECONDS)).as("answered within the whole 2 s")
          .isEqualTo(200);
    }
  }
}
