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
import java.util.concurrent.CancellationException;
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
 * the caller's future, closing the client, a throttled body that does not arrive, and an I/O
 * reactor of one thread.
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

  /** Sends {@code /a}, whose answer spends the window for 5 s: the next call waits. */
  private void spendTheWindow(CloseableHttpAsyncClient client) throws Exception {
    enqueue(200, "first", "RateLimit-Policy", POLICY, "RateLimit", "\"fixed\";r=0;t=5");
    send(client, get("/a")).get(10, TimeUnit.SECONDS);
  }

  /** Sends {@code path} on a spent window; returns once the call waits for its permit. */
  private Future<SimpleHttpResponse> waitingCall(CloseableHttpAsyncClient client, String path)
      throws InterruptedException {
    Future<SimpleHttpResponse> waiting = send(client, get(path));
    clock.awaitPendingTasks(1, Duration.ofSeconds(5));
    return waiting;
  }

  /** Sends {@code /a}, answered 429 with {@code Retry-After: 5}; returns once it waits. */
  private Future<SimpleHttpResponse> retryingCall(CloseableHttpAsyncClient client)
      throws InterruptedException {
    enqueue(429, "slow down", "Retry-After", "5", "RateLimit-Policy", POLICY,
        "RateLimit", "\"fixed\";r=3;t=60");
    enqueue(200, "never");
    Future<SimpleHttpResponse> retrying = send(client, get("/a"));
    clock.awaitPendingTasks(1, Duration.ofSeconds(5));
    return retrying;
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
    Pacer pacer = pacer(b -> b);
    CloseableHttpAsyncClient client = client(RateLimitAsyncExecChainHandler.create(pacer));
    spendTheWindow(client);
    enqueue(200, "never");

    Future<SimpleHttpResponse> waiting = waitingCall(client, "/b");
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
    Pacer pacer = pacer(b -> b);
    CloseableHttpAsyncClient client = client(RateLimitAsyncExecChainHandler.create(pacer));

    Future<SimpleHttpResponse> retrying = retryingCall(client);
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

  /** The failure HttpClient 5 gives a call it drops when it is closed, within a second. */
  private static void assertEndedByTheClose(Future<SimpleHttpResponse> call) {
    long startNanos = System.nanoTime();
    Throwable thrown = catchThrowable(() -> call.get(5, TimeUnit.SECONDS));

    assertThat(thrown).isInstanceOf(ExecutionException.class)
        .cause().isInstanceOf(CancellationException.class)
        .hasMessage("Request execution cancelled");
    assertThat(Duration.ofNanos(System.nanoTime() - startNanos))
        .isLessThan(Duration.ofSeconds(1));
  }

  /**
   * Closing the client ends a call waiting for its permit at once, as the JDK adapter's
   * {@code shutdownNow} does. Before: it waited on until {@code maxWait}. Virtual time does not
   * move until the assertions are made.
   */
  @Test
  void closingTheClientEndsACallWaitingForAPermitAndGivesThePermitBack() throws Exception {
    Pacer pacer = pacer(b -> b);
    CloseableHttpAsyncClient client = client(RateLimitAsyncExecChainHandler.create(pacer));
    spendTheWindow(client);
    enqueue(200, "never");

    Future<SimpleHttpResponse> waiting = waitingCall(client, "/b");
    assertThat(pacer.quota(server.url("/").uri()).waiting()).isEqualTo(1);
    client.close();

    assertEndedByTheClose(waiting);
    assertThat(pacer.quota(server.url("/").uri()).waiting()).isZero();
    assertThat(pacer.quota(server.url("/").uri()).inFlight()).isZero();
    clock.advance(Duration.ofSeconds(10));
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  /** Before: the call waited on until {@code maxWait}. */
  @Test
  void closingTheClientEndsACallWaitingToRetryAndGivesThePermitBack() throws Exception {
    Pacer pacer = pacer(b -> b);
    CloseableHttpAsyncClient client = client(RateLimitAsyncExecChainHandler.create(pacer));

    Future<SimpleHttpResponse> retrying = retryingCall(client);
    client.close(CloseMode.IMMEDIATE);

    assertEndedByTheClose(retrying);
    assertThat(pacer.quota(server.url("/").uri()).policy("fixed").orElseThrow().inFlight())
        .isZero();
    clock.advance(Duration.ofSeconds(10));
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  /** One handler on two clients: closing one ends its own calls only. */
  @Test
  void closingOneClientLeavesTheCallsOfAnotherWithTheSameHandler() throws Exception {
    Pacer pacer = pacer(b -> b);
    RateLimitAsyncExecChainHandler handler = RateLimitAsyncExecChainHandler.create(pacer);
    CloseableHttpAsyncClient closed = client(handler);
    CloseableHttpAsyncClient open = client(handler);
    spendTheWindow(open);
    enqueue(200, "kept");

    Future<SimpleHttpResponse> ended = waitingCall(closed, "/ended");
    Future<SimpleHttpResponse> kept = send(open, get("/kept"));
    assertThat(pacer.quota(server.url("/").uri()).waiting()).isEqualTo(2);
    closed.close();

    assertEndedByTheClose(ended);
    assertThat(kept.isDone()).isFalse();
    clock.advance(Duration.ofSeconds(5));
    assertThat(text(kept.get(5, TimeUnit.SECONDS))).isEqualTo("200 kept");
  }

  /**
   * A call started on a closed client fails as it does without Headway, without waiting for a
   * permit. Before: it waited for the spent window's permit first.
   */
  @Test
  void aCallStartedOnAClosedClientFailsAsWithoutHeadway() throws Exception {
    Pacer pacer = pacer(b -> b);
    CloseableHttpAsyncClient paced = client(RateLimitAsyncExecChainHandler.create(pacer));
    spendTheWindow(paced);
    CloseableHttpAsyncClient plain = client(HttpAsyncClients.custom());
    paced.close();
    plain.close();

    Throwable withHeadway = catchThrowable(() -> send(paced, get("/b")).get(5, TimeUnit.SECONDS));
    Throwable without = catchThrowable(() -> send(plain, get("/b")).get(5, TimeUnit.SECONDS));

    assertThat(without).isInstanceOf(ExecutionException.class);
    assertThat(withHeadway).isInstanceOf(ExecutionException.class)
        .cause().hasSameClassAs(without.getCause()).hasMessage(without.getCause().getMessage());
    assertThat(pacer.quota(server.url("/").uri()).waiting()).isZero();
    assertThat(server.getRequestCount()).isEqualTo(1);
  }
}
