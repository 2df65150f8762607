package dev.headway.httpclient5;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Jitter;
import dev.headway.Pacer;
import dev.headway.PacingStrategy;
import dev.headway.testing.VirtualClock;
import java.net.InetAddress;
import java.time.Duration;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import org.apache.hc.client5.http.async.methods.SimpleHttpResponse;
import org.apache.hc.client5.http.async.methods.SimpleRequestBuilder;
import org.apache.hc.client5.http.classic.methods.HttpGet;
import org.apache.hc.client5.http.impl.async.CloseableHttpAsyncClient;
import org.apache.hc.client5.http.impl.async.HttpAsyncClients;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.core5.io.CloseMode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code addTo} called twice on one builder (two pieces of configuration that each add Headway):
 * each request is paced once, by the first handler in the chain, classic and async. Time is
 * virtual.
 */
@Timeout(30)
class AddedTwiceTest {
  private final MockWebServer server = new MockWebServer();
  private final VirtualClock clock = VirtualClock.create();
  private Pacer pacer;

  @BeforeEach
  void start() throws Exception {
    server.start(InetAddress.getByName("127.0.0.1"), 0);
    pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .jitter(Jitter.none()).strategy(PacingStrategy.useAllThenWait())
        .maxWait(Duration.ofSeconds(10)).maxAttempts(3).build();
    for (int i = 0; i < 12; i++) {
      server.enqueue(new MockResponse.Builder().code(429).addHeader("Retry-After", "1")
          .body("slow down").build());
    }
  }

  @AfterEach
  void stop() throws Exception {
    server.close();
  }

  /** Before: the server saw 9 requests, the inner handler's 3 for each of the outer one's 3. */
  @Test
  void classicAServerThatAnswers429EveryTimeSeesMaxAttemptsRequests() throws Exception {
    clock.autoAdvance(true);
    try (CloseableHttpClient client = RateLimitExecChainHandler.create(pacer)
        .addTo(RateLimitExecChainHandler.create(pacer).addTo(HttpClients.custom())).build()) {
      int status = client.execute(new HttpGet(server.url("/a").uri()), response -> {
        return response.getCode();
      });

      assertThat(status).isEqualTo(429);
      assertThat(server.getRequestCount()).isEqualTo(3);
    }
  }

  /** Before: the server saw 9 requests. */
  @Test
  void asyncAServerThatAnswers429EveryTimeSeesMaxAttemptsRequests() throws Exception {
    CloseableHttpAsyncClient client = RateLimitAsyncExecChainHandler.create(pacer)
        .addTo(RateLimitAsyncExecChainHandler.create(pacer).addTo(HttpAsyncClients.custom()))
        .build();
    client.start();
    try {
      Future<SimpleHttpResponse> call = client.execute(
          SimpleRequestBuilder.get(server.url("/a").uri()).build(), null);

      assertThat(await(call).getCode()).isEqualTo(429);
      assertThat(server.getRequestCount()).isEqualTo(3);
    } finally {
      client.close(CloseMode.IMMEDIATE);
    }
  }

  /** Waits for {@code future}, moving the clock to its next event whenever nothing happens. */
  private SimpleHttpResponse await(Future<SimpleHttpResponse> future) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (true) {
      try {
        return future.get(5, TimeUnit.MILLISECONDS);
      } catch (TimeoutException e) {
        if (System.nanoTime() > deadline) {
          throw e;
        }
        clock.advanceToNextEvent();
      }
    }
  }
}
