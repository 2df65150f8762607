package dev.headway.httpclient5;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.headway.Jitter;
import dev.headway.Pacer;
import dev.headway.PacingStrategy;
import dev.headway.RateLimitedException;
import dev.headway.testing.VirtualClock;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import org.apache.hc.client5.http.async.methods.SimpleHttpRequest;
import org.apache.hc.client5.http.async.methods.SimpleHttpResponse;
import org.apache.hc.client5.http.async.methods.SimpleRequestBuilder;
import org.apache.hc.client5.http.impl.async.CloseableHttpAsyncClient;
import org.apache.hc.client5.http.impl.async.HttpAsyncClientBuilder;
import org.apache.hc.client5.http.impl.async.HttpAsyncClients;
import org.apache.hc.core5.io.CloseMode;
import org.apache.hc.core5.reactor.IOReactorConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link RateLimitAsyncExecChainHandler} in a real {@code CloseableHttpAsyncClient} against
 * MockWebServer, where the adapter contract does not reach: HttpClient's own retries, cancelling
 * the caller's future, a throttled body that does not arrive, and an I/O reactor of one thread.
 * Pacing time is virtual; requests are counted on the server.
 */
@Timeout(30)
class RateLimitAsyncExecChainHandlerTest {
  private static final String POLICY = "\"fixed\";q=5;w=60";

  private final MockWebServer server = new MockWebServer();
  private final VirtualClock clock = VirtualClock.create();
  private final List<CloseableHttpAsyncClient> clients = new ArrayList<>();

  @BeforeEach
  void start() throws IOException {
    server.start(InetAddress.getByName("127.0.0.1"), 0);
  }

  @AfterEach
  void stop() throws IOException {
    for (CloseableHttpAsyncClient client : clients) {
      client.close(CloseMode.IMMEDIATE);
    }
    server.close();
  }

  private Pacer pacer(UnaryOperator<Pacer.Builder> settings) {
    return settings.apply(Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .jitter(Jitter.none()).strategy(PacingStrategy.useAllThenWait())
        .maxWait(Duration.ofSeconds(10)).maxAttempts(3)).build();
  }

  private CloseableHttpAsyncClient client(HttpAsyncClientBuilder builder) {
    CloseableHttpAsyncClient client = builder.build();
    client.start();
    clients.add(client);
    return client;
  }

  private CloseableHttpAsyncClient client(RateLimitAsyncExecChainHandler handler) {
    return client(handler.addTo(HttpAsyncClients.custom()));
  }

  private void enqueue(int code, String body, String... headers) {
    MockResponse.Builder builder = new MockResponse.Builder().code(code).body(body);
    for (int i = 0; i + 1 < headers.length; i += 2) {
      builder.addHeader(headers[i], headers[i + 1]);
    }
    server.enqueue(builder.build());
  }

  private SimpleHttpRequest get(String path) {
    return SimpleRequestBuilder.get(server.url(path).uri()).build();
  }

  private static Future<SimpleHttpResponse> send(CloseableHttpAsyncClient client,
      SimpleHttpRequest request) {
    return client.execute(request, null);
  }

  /**
   * Waits for {@code future} while letting virtual time pass: whenever it has not completed for a
   * few real milliseconds, the clock moves to its next event (a scheduled wait ends).
   */
  private SimpleHttpResponse await(Future<SimpleHttpResponse> future) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (true) {
      try {
        return future.get(5, TimeUnit.MILLISECONDS);
      } catch (java.util.concurrent.TimeoutException e) {
        if (System.nanoTime() > deadline) {
          throw e;
        }
        clock.advanceToNextEvent();
      }
    }
  }

  private static String text(SimpleHttpResponse response) {
    byte[] body = response.getBodyBytes();
    return response.getCode() + " " + (body == null ? "" : new String(body,
        StandardCharsets.UTF_8));
  }

  /**
   * HttpClient's default retry strategy retries a 429 once more after its Retry-After: after
   * Headway's last attempt it would send a third request.
   */
  @Test
  void httpClientsDefaultRetryStrategyDoesNotRetryWhatHeadwayDecided() throws Exception {
    clock.autoAdvance(true);
    enqueue(429, "first", "Retry-After", "0");
    enqueue(429, "second", "Retry-After", "0");
    enqueue(200, "never");
    CloseableHttpAsyncClient client = client(RateLimitAsyncExecChainHandler
        .builder(pacer(b -> b)).maxAttempts(2).build());

    String reply = text(await(send(client, get("/a"))));

    assertThat(reply).isEqualTo("429 second");
    assertThat(server.getRequestCount()).isEqualTo(2);
  }

  /**
   * A first permit past maxWait fails at once: HttpClient's default strategy, which retries an
   * IOException once after a second, does not retry Headway's own failure.
   */
  @Test
  void aWaitPastMaxWaitIsNotRetriedByHttpClient() throws Exception {
    enqueue(200, "first", "RateLimit-Policy", POLICY, "RateLimit", "\"fixed\";r=0;t=60");
    CloseableHttpAsyncClient client = client(RateLimitAsyncExecChainHandler.create(
        pacer(b -> b)));
    send(client, get("/a")).get(10, TimeUnit.SECONDS);

    long startNanos = System.nanoTime();
    Throwable thrown = catchThrowable(() -> send(client, get("/b")).get(10, TimeUnit.SECONDS));

    assertThat(thrown).isInstanceOf(ExecutionException.class)
        .cause().isInstanceOf(RateLimitedException.class);
    assertThat(Duration.ofNanos(System.nanoTime() - startNanos))
        .isLessThan(Duration.ofMillis(900));
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  @Test
  void cancellingTheFutureWhileItWaitsForAPermitSendsNothingAndGivesThePermitBack()
      throws Exception {
    enqueue(200, "first", "RateLimit-Policy", POLICY, "RateLimit", "\"fixed\";r=0;t=5");
    enqueue(200, "never");
    Pacer pacer = pacer(b -> b);
    CloseableHttpAsyncClient client = client(RateLimitAsyncExecChainHandler.create(pacer));
    send(client, get("/a")).get(10, TimeUnit.SECONDS);

    Future<SimpleHttpResponse> waiting = send(client, get("/b"));
    clock.awaitPendingTasks(1, Duration.ofSeconds(5));
    waiting.cancel(true);
    clock.advance(Duration.ofSeconds(10));

    assertThat(waiting.isCancelled()).isTrue();
    assertThat(server.getRequestCount()).isEqualTo(1);
    assertThat(pacer.quota(server.url("/").uri()).policy("fixed").orElseThrow().inFlight())
        .isZero();
  }

  @Test
  void cancellingTheFutureWhileItWaitsToRetrySendsNothingMoreAndGivesThePermitBack()
      throws Exception {
    enqueue(429, "slow down", "Retry-After", "5", "RateLimit-Policy", POLICY,
        "RateLimit", "\"fixed\";r=3;t=60");
    enqueue(200, "never");
    Pacer pacer = pacer(b -> b);
    CloseableHttpAsyncClient client = client(RateLimitAsyncExecChainHandler.create(pacer));

    Future<SimpleHttpResponse> retrying = send(client, get("/a"));
    clock.awaitPendingTasks(1, Duration.ofSeconds(5));
    retrying.cancel(true);
    clock.advance(Duration.ofSeconds(10));

    assertThat(retrying.isCancelled()).isTrue();
    assertThat(server.getRequestCount()).isEqualTo(1);
    assertThat(pacer.quota(server.url("/").uri()).policy("fixed").orElseThrow().inFlight())
        .isZero();
  }

  /**
   * A JSON 429 whose body does not come: the call decides from the headers within the body-hint
   * bound, and the retry goes out on another connection (the held one is closed) long before the
   * body would have arrived.
   */
  @Test
  void aThrottledBodyThatDoesNotArriveIsNotWaitedFor() throws Exception {
    clock.autoAdvance(true);
    server.enqueue(new MockResponse.Builder().code(429)
        .addHeader("Content-Type", "application/json").addHeader("Retry-After", "1")
        .body("{\"retry_after\": 30}").bodyDelay(5, TimeUnit.SECONDS).build());
    enqueue(200, "ok");
    CloseableHttpAsyncClient client = client(RateLimitAsyncExecChainHandler.create(
        pacer(b -> b)));

    long startNanos = System.nanoTime();
    String reply = text(await(send(client, get("/a"))));

    assertThat(reply).isEqualTo("200 ok");
    assertThat(Duration.ofNanos(System.nanoTime() - startNanos)).isLessThan(Duration.ofSeconds(3));
    assertThat(clock.elapsed()).isGreaterThanOrEqualTo(Duration.ofSeconds(1))
        .isLessThan(Duration.ofSeconds(30));
    assertThat(server.getRequestCount()).isEqualTo(2);
  }

  /**
   * With one I/O thread, a call waiting for its permit holds no thread: another origin's call
   * goes out and completes meanwhile.
   */
  @Test
  void aWaitingCallBlocksNoIoThread() throws Exception {
    enqueue(200, "first", "RateLimit-Policy", POLICY, "RateLimit", "\"fixed\";r=0;t=5");
    enqueue(200, "second");
    try (MockWebServer other = new MockWebServer()) {
      other.start(InetAddress.getByName("127.0.0.1"), 0);
      other.enqueue(new MockResponse.Builder().code(200).body("other").build());
      RateLimitAsyncExecChainHandler handler = RateLimitAsyncExecChainHandler.create(
          pacer(b -> b));
      CloseableHttpAsyncClient client = client(handler.addTo(HttpAsyncClients.custom()
          .setIOReactorConfig(IOReactorConfig.custom().setIoThreadCount(1).build())));
      send(client, get("/a")).get(10, TimeUnit.SECONDS);

      Future<SimpleHttpResponse> waiting = send(client, get("/b"));
      String otherReply = text(send(client,
          SimpleRequestBuilder.get(other.url("/c").uri()).build()).get(10, TimeUnit.SECONDS));

      assertThat(otherReply).isEqualTo("200 other");
      assertThat(waiting.isDone()).isFalse();
      clock.advance(Duration.ofSeconds(5));
      assertThat(text(waiting.get(10, TimeUnit.SECONDS))).isEqualTo("200 second");
    }
  }
}
