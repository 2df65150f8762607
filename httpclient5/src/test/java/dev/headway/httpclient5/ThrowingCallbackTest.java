package dev.headway.httpclient5;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
import dev.headway.testing.VirtualClock;
import java.net.InetAddress;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.io.IOException;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import org.apache.hc.client5.http.async.AsyncExecCallback;
import org.apache.hc.client5.http.async.AsyncExecChainHandler;
import org.apache.hc.client5.http.async.methods.SimpleRequestBuilder;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.async.CloseableHttpAsyncClient;
import org.apache.hc.client5.http.impl.async.HttpAsyncClients;
import org.apache.hc.client5.http.protocol.HttpClientContext;
import org.apache.hc.core5.http.EntityDetails;
import org.apache.hc.core5.http.HttpException;
import org.apache.hc.core5.http.HttpResponse;
import org.apache.hc.core5.http.nio.AsyncDataConsumer;
import org.apache.hc.core5.io.CloseMode;
import org.apache.hc.core5.util.Timeout;
import org.junit.jupiter.api.Test;

/**
 * A callback of the application's that throws when its exchange ends (an exec handler's, outside
 * Headway's), on an {@link HttpClientContext}
 * the application reuses: the response timeout Headway shortened for a call it held before the
 * server answered anything is put back all the same, so the next request on that context runs
 * with the application's timeout. Pacing time is virtual.
 */
@org.junit.jupiter.api.Timeout(30)
class ThrowingCallbackTest {
  private static final Timeout RESPONSE_TIMEOUT = Timeout.ofSeconds(5);

  /** Before: the context kept the shortened timeout (4,450 ms) after the call. */
  @Test
  void aCallbackThatThrowsLeavesTheContextsResponseTimeoutAsItWas() throws Exception {
    CountDownLatch probesIn = new CountDownLatch(2);
    CountDownLatch release = new CountDownLatch(1);
    VirtualClock clock = VirtualClock.create();
    try (MockWebServer server = new MockWebServer();
        Pacer pacer = clock.pacer().maxWait(Duration.ofSeconds(10)).build()) {
      server.setDispatcher(new Dispatcher() {
        @Override
        public MockResponse dispatch(RecordedRequest request) throws InterruptedException {
          if (request.getUrl().encodedPath().equals("/probe")) {
            probesIn.countDown();
            release.await(20, TimeUnit.SECONDS); // the first contact's probes stay unanswered
          }
          return new MockResponse.Builder().code(200).body("ok").build();
        }
      });
      server.start(InetAddress.getByName("127.0.0.1"), 0);
      CountDownLatch completed = new CountDownLatch(1);
      CloseableHttpAsyncClient client = RateLimitAsyncExecChainHandler.create(pacer)
          .addTo(HttpAsyncClients.custom()
              .addExecInterceptorFirst("application", throwingOnCompleted(completed)))
          .build();
      client.start();
      try {
        for (int i = 0; i < 2; i++) {
          client.execute(SimpleRequestBuilder.get(server.url("/probe").uri()).build(), null);
        }
        assertThat(probesIn.await(10, TimeUnit.SECONDS)).as("two probes out").isTrue();
        RequestConfig config = RequestConfig.custom().setResponseTimeout(RESPONSE_TIMEOUT).build();
        HttpClientContext context = HttpClientContext.create();
        context.setRequestConfig(config);
        int tasks = clock.pendingTasks();

        client.execute(SimpleRequestBuilder.get(server.url("/held").uri()).build(), context,
            null);
        clock.awaitPendingTasks(tasks + 1, Duration.ofSeconds(10)); // held behind the probes
        clock.advance(Duration.ofMillis(550));

        assertThat(completed.await(10, TimeUnit.SECONDS)).as("the held call answered").isTrue();
        assertThat(responseTimeoutOnceSettled(context)).isEqualTo(RESPONSE_TIMEOUT);
      } finally {
        release.countDown();
        client.close(CloseMode.IMMEDIATE);
      }
    }
  }

  /**
   * An exec handler of the application's, outside Headway's, whose callback throws when the
   * exchange ends, after passing the end on (a tracing handler whose end-of-span code fails): on
   * completion, and on the failure HttpClient then reports. Counts {@code completed} down.
   */
  private static AsyncExecChainHandler throwingOnCompleted(CountDownLatch completed) {
    return (request, entity, scope, chain, callback) -> chain.proceed(request, entity, scope,
        new AsyncExecCallback() {
          @Override
          public AsyncDataConsumer handleResponse(HttpResponse response, EntityDetails details)
              throws HttpException, IOException {
            return callback.handleResponse(response, details);
          }

          @Override
          public void handleInformationResponse(HttpResponse response)
              throws HttpException, IOException {
            callback.handleInformationResponse(response);
          }

          @Override
          public void completed() {
            callback.completed();
            completed.countDown();
            throw new IllegalStateException("the application's callback failed"); // as a bug
          }

          @Override
          public void failed(Exception cause) {
            callback.failed(cause);
            throw new IllegalStateException("the application's callback failed", cause);
          }
        });
  }

  /**
   * The context's response timeout once the exchange is over: Headway puts the configuration
   * back on the I/O thread just after the callback returns, so this looks for up to 2 s of real
   * time for it to differ from what the held attempt went out with.
   */
  private static Timeout responseTimeoutOnceSettled(HttpClientContext context)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
    Timeout timeout = context.getRequestConfig().getResponseTimeout();
    while (!RESPONSE_TIMEOUT.equals(timeout) && System.nanoTime() < deadline) {
      Thread.onSpinWait();
      timeout = context.getRequestConfig().getResponseTimeout();
    }
    return timeout;
  }
}
