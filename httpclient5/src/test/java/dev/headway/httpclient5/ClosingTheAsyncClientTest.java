package dev.headway.httpclient5;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.headway.Jitter;
import dev.headway.Pacer;
import dev.headway.PacingStrategy;
import dev.headway.QuotaSnapshot;
import dev.headway.testing.VirtualClock;
import java.io.IOException;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import org.apache.hc.client5.http.async.methods.SimpleHttpRequest;
import org.apache.hc.client5.http.async.methods.SimpleHttpResponse;
import org.apache.hc.client5.http.async.methods.SimpleRequestBuilder;
import org.apache.hc.client5.http.impl.async.CloseableHttpAsyncClient;
import org.apache.hc.client5.http.impl.async.HttpAsyncClientBuilder;
import org.apache.hc.client5.http.impl.async.HttpAsyncClients;
import org.apache.hc.core5.io.CloseMode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Closing a {@code CloseableHttpAsyncClient} built with {@link RateLimitAsyncExecChainHandler}
 * ends the calls that wait for a permit or for a retry at once, as the JDK adapter's
 * {@code shutdownNow} does; it used to leave them waiting until {@code maxWait}. Pacing time is
 * virtual and never advanced before the assertions: a call that ends, ends because of the close.
 */
@Timeout(30)
class ClosingTheAsyncClientTest {
  private static final String POLICY = "\"fixed\";q=5;w=60";

  private final MockWebServer server = new MockWebServer();
  private final VirtualClock clock = VirtualClock.create();
  private final Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
      .jitter(Jitter.none()).strategy(PacingStrategy.useAllThenWait())
      .maxWait(Duration.ofSeconds(10)).maxAttempts(3).build();
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

  private CloseableHttpAsyncClient client(HttpAsyncClientBuilder builder) {
    CloseableHttpAsyncClient client = builder.build();
    client.start();
    clients.add(client);
    return client;
  }

  private void enqueue(int code, String... headers) {
    MockResponse.Builder builder = new MockResponse.Builder().code(code).body("body");
    for (int i = 0; i + 1 < headers.length; i += 2) {
      builder.addHeader(headers[i], headers[i + 1]);
    }
    server.enqueue(builder.build());
  }

  private SimpleHttpRequest get(String path) {
    return SimpleRequestBuilder.get(server.url(path).uri()).build();
  }

  private QuotaSnapshot quota() {
    return pacer.quota(server.url("/").uri());
  }

  /** Sends a first call whose answer spends the window for 5 s: the next call waits. */
  private void spendTheWindow(CloseableHttpAsyncClient client) throws Exception {
    enqueue(200, "RateLimit-Policy", POLICY, "RateLimit", "\"fixed\";r=0;t=5");
    client.execute(get("/first"), null).get(10, TimeUnit.SECONDS);
  }

  /** The failure HttpClient 5 gives a call it drops when it is closed. */
  private static void assertEndedByTheClose(Future<SimpleHttpResponse> call) {
    long startNanos = System.nanoTime();
    Throwable thrown = catchThrowable(() -> call.get(5, TimeUnit.SECONDS));

    assertThat(thrown).isInstanceOf(ExecutionException.class)
        .cause().isInstanceOf(CancellationException.class)
        .hasMessage("Request execution cancelled");
    assertThat(Duration.ofNanos(System.nanoTime() - startNanos))
        .isLessThan(Duration.ofSeconds(1));
  }

  @Test
  void aCallWaitingForAPermitFailsAtOnceAndGivesItsPermitBack() throws Exception {
    CloseableHttpAsyncClient client = client(RateLimitAsyncExecChainHandler.create(pacer)
        .addTo(HttpAsyncClients.custom()));
    spendTheWindow(client);
    enqueue(200);

    Future<SimpleHttpResponse> waiting = client.execute(get("/waiting"), null);
    clock.awaitPendingTasks(1, Duration.ofSeconds(5));
    assertThat(quota().waiting()).isEqualTo(1);
    client.close();

    assertEndedByTheClose(waiting);
    assertThat(quota().waiting()).isZero();
    assertThat(quota().inFlight()).isZero();
    clock.advance(Duration.ofSeconds(10));
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  @Test
  void aCallWaitingToRetryFailsAtOnceAndGivesItsPermitBack() throws Exception {
    CloseableHttpAsyncClient client = client(RateLimitAsyncExecChainHandler.create(pacer)
        .addTo(HttpAsyncClients.custom()));
    enqueue(429, "Retry-After", "5", "RateLimit-Policy", POLICY, "RateLimit",
        "\"fixed\";r=3;t=60");
    enqueue(200);

    Future<SimpleHttpResponse> retrying = client.execute(get("/retrying"), null);
    clock.awaitPendingTasks(1, Duration.ofSeconds(5));
    client.close(CloseMode.IMMEDIATE);

    assertEndedByTheClose(retrying);
    assertThat(quota().inFlight()).isZero();
    assertThat(quota().policy("fixed").orElseThrow().inFlight()).isZero();
    clock.advance(Duration.ofSeconds(10));
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  /** One handler shared by two clients: closing one ends only its own calls. */
  @Test
  void closingOneClientLeavesTheCallsOfAnotherWithTheSameHandler() throws Exception {
    RateLimitAsyncExecChainHandler handler = RateLimitAsyncExecChainHandler.create(pacer);
    CloseableHttpAsyncClient closed = client(handler.addTo(HttpAsyncClients.custom()));
    CloseableHttpAsyncClient open = client(handler.addTo(HttpAsyncClients.custom()));
    spendTheWindow(open);
    enqueue(200);
    enqueue(200, "RateLimit-Policy", POLICY, "RateLimit", "\"fixed\";r=3;t=60");

    Future<SimpleHttpResponse> ended = closed.execute(get("/ended"), null);
    Future<SimpleHttpResponse> kept = open.execute(get("/kept"), null);
    clock.awaitPendingTasks(1, Duration.ofSeconds(5));
    assertThat(quota().waiting()).isEqualTo(2);
    closed.close();

    assertEndedByTheClose(ended);
    assertThat(kept.isDone()).isFalse();
    clock.advance(Duration.ofSeconds(5));
    assertThat(kept.get(5, TimeUnit.SECONDS).getCode()).isEqualTo(200);
    assertThat(server.getRequestCount()).isEqualTo(2);
  }

  /** A call started on a closed client fails as it does without Headway, and takes no permit. */
  @Test
  void aCallStartedAfterTheCloseFailsAsWithoutHeadway() throws Exception {
    CloseableHttpAsyncClient paced = client(RateLimitAsyncExecChainHandler.create(pacer)
        .addTo(HttpAsyncClients.custom()));
    spendTheWindow(paced);
    CloseableHttpAsyncClient plain = client(HttpAsyncClients.custom());
    paced.close();
    plain.close();

    Throwable withHeadway = catchThrowable(
        () -> paced.execute(get("/late"), null).get(5, TimeUnit.SECONDS));
    Throwable without = catchThrowable(
        () -> plain.execute(get("/late"), null).get(5, TimeUnit.SECONDS));

    assertThat(without).isInstanceOf(ExecutionException.class);
    assertThat(withHeadway).isInstanceOf(ExecutionException.class)
        .cause().hasSameClassAs(without.getCause()).hasMessage(without.getCause().getMessage());
    assertThat(quota().waiting()).isZero();
    assertThat(quota().inFlight()).isZero();
    assertThat(server.getRequestCount()).isEqualTo(1);
  }
}
