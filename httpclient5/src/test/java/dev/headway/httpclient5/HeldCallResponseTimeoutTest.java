package dev.headway.httpclient5;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
import dev.headway.testing.ScriptedServer;
import dev.headway.testing.ScriptedServer.Reply;
import dev.headway.testing.VirtualClock;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
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
import org.junit.jupiter.api.Timeout.ThreadMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The response timeout ({@link RequestConfig#getResponseTimeout()}) of a call Headway held:
 * counted from the call while the server has answered nothing on its partition (the probes of
 * first contact hold the others back), whole after the server answered. Real server, real time
 * for the hanging server (what is measured is when each call fails, from the call); the bounds
 * lean the way that cannot flake on a loaded machine (a call never fails before its timeout; the
 * margin after it is 350 ms, against the 550 ms or more a held caller lost before: 1.5 s and
 * later).
 */
@org.junit.jupiter.api.Timeout(value = 60, threadMode = ThreadMode.SEPARATE_THREAD)
class HeldCallResponseTimeoutTest {
  private static final int CALLERS = 8;
  private static final Duration TIMEOUT = Duration.ofSeconds(1);
  private static final Duration MARGIN = Duration.ofMillis(350);

  /** When one call failed, from its call, and how. */
  private record Failure(Duration after, Throwable failure) {}

  /** A client, classic or async, that sends GETs with a response timeout. */
  private interface Client extends AutoCloseable {
    /** Starts a GET of {@code uri}; the future holds the status or fails as the call failed. */
    CompletableFuture<Integer> get(String uri);

    @Override
    void close() throws IOException;
  }

  private static Client client(String kind, Duration responseTimeout, Pacer pacer) {
    RequestConfig config = RequestConfig.custom()
        .setResponseTimeout(Timeout.ofMilliseconds(responseTimeout.toMillis())).build();
    if (kind.equals("classic")) {
      HttpClientBuilder builder = HttpClients.custom().setDefaultRequestConfig(config)
          .setConnectionManager(PoolingHttpClientConnectionManagerBuilder.create()
              .setMaxConnPerRoute(CALLERS).setMaxConnTotal(CALLERS).build());
      CloseableHttpClient client = pacer == null ? builder.build()
          : RateLimitExecChainHandler.create(pacer).addTo(builder).build();
      return new Client() {
        @Override
        public CompletableFuture<Integer> get(String uri) {
          CompletableFuture<Integer> status = new CompletableFuture<>();
          Thread caller = new Thread(() -> {
            try {
              status.complete(client.execute(new HttpGet(uri), response -> response.getCode()));
            } catch (Throwable t) {
              status.completeExceptionally(t);
            }
          }, "test-caller");
          caller.setDaemon(true);
          caller.start();
          return status;
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
            .setMaxConnPerRoute(CALLERS).setMaxConnTotal(CALLERS).build());
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
    try (ScriptedServer server = ScriptedServer.hanging();
        Pacer pacer = Pacer.builder().maxWait(Duration.ofSeconds(30)).build()) {
      List<Failure> without;
      try (Client client = client(kind, TIMEOUT, null)) {
        without = callers(client, server);
      }
      List<Failure> failures;
      try (Client client = client(kind, TIMEOUT, pacer)) {
        failures = callers(client, server);
      }
      System.out.printf("httpclient5 %s: %d callers, response timeout %d ms; failed after (ms)"
          + " without Headway %s, with Headway %s: the last at %.2fx the timeout (%.2fx"
          + " without)%n", kind, CALLERS, TIMEOUT.toMillis(), millis(without), millis(failures),
          ratio(failures), ratio(without));
      assertThat(server.requestCount()).isEqualTo(2 * CALLERS);
      for (Failure failure : failures) {
        assertThat(failure.failure()).isInstanceOf(SocketTimeoutException.class);
        assertThat(failure.after()).as("failed %s after its call", failure.after())
            .isGreaterThanOrEqualTo(TIMEOUT.minus(Duration.ofMillis(20)))
            .isLessThan(TIMEOUT.plus(MARGIN));
      }
    }
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"classic", "async"})
  void aWaitForASpentWindowTheServerAnnouncedLeavesTheResponseTimeoutWhole(String kind)
      throws Exception {
    VirtualClock clock = VirtualClock.create();
    try (ScriptedServer server = ScriptedServer.start(n -> Optional.of(n == 1
            ? Reply.ok(Duration.ZERO,
                "RateLimit-Policy: \"default\";q=1;w=2\r\nRateLimit: \"default\";r=0;t=2\r\n")
            : Reply.ok(Duration.ofMillis(1200), ""))); // slower than 2 s less the wait
        Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
            .maxWait(Duration.ofSeconds(30)).build();
        Client client = client(kind, Duration.ofSeconds(2), pacer)) {
      assertThat(client.get(server.url("/a")).get(10, TimeUnit.SECONDS)).isEqualTo(200);

      CompletableFuture<Integer> second = client.get(server.url("/b"));
      URI origin = URI.create(server.url("/"));
      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (pacer.quota(origin).waiting() == 0 && System.nanoTime() < end) {
        Thread.sleep(5); // real time: waiting for the caller to reach the pacer
      }
      assertThat(pacer.quota(origin).waiting()).as("the second caller waits").isEqualTo(1);
      while (server.requestCount() < 2 && System.nanoTime() < end) {
        clock.advance(Duration.ofMillis(100)); // virtual: to the window's reset, and its jitter
        Thread.sleep(5); // real time: for the caller to send
      }
      assertThat(clock.elapsed()).as("it waited for the window")
          .isGreaterThan(Duration.ofMillis(1500));

      assertThat(second.get(20, TimeUnit.SECONDS)).as("answered within the whole 2 s")
          .isEqualTo(200);
    }
  }

  private static List<Failure> callers(Client client, ScriptedServer server) throws Exception {
    List<CompletableFuture<Failure>> calls = new ArrayList<>();
    for (int i = 0; i < CALLERS; i++) {
      long start = System.nanoTime();
      calls.add(client.get(server.url("/items/" + i)).handle((status, failure) -> {
        Throwable cause = failure instanceof java.util.concurrent.CompletionException
            ? failure.getCause() : failure;
        return new Failure(Duration.ofNanos(System.nanoTime() - start),
            cause != null ? cause : new AssertionError("answered: " + status));
      }));
    }
    List<Failure> failures = new ArrayList<>();
    for (CompletableFuture<Failure> call : calls) {
      failures.add(call.get(20, TimeUnit.SECONDS));
    }
    return failures;
  }

  private static List<Long> millis(List<Failure> failures) {
    return failures.stream().map(f -> f.after().toMillis()).sorted().toList();
  }

  private static double ratio(List<Failure> failures) {
    return failures.stream().mapToLong(f -> f.after().toNanos()).max().orElseThrow()
        / (double) TIMEOUT.toNanos();
  }
}
