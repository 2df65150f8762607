package dev.headway.httpclient5;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.headway.Jitter;
import dev.headway.Pacer;
import dev.headway.PacingStrategy;
import dev.headway.PartitionKeyResolver;
import dev.headway.RateLimitedException;
import dev.headway.testing.VirtualClock;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import org.apache.hc.client5.http.HttpRequestRetryStrategy;
import org.apache.hc.client5.http.classic.methods.HttpGet;
import org.apache.hc.client5.http.impl.ChainElement;
import org.apache.hc.client5.http.classic.methods.HttpPost;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClientBuilder;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManager;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.core5.http.ClassicHttpRequest;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.HttpRequest;
import org.apache.hc.core5.http.HttpResponse;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.apache.hc.core5.http.io.entity.InputStreamEntity;
import org.apache.hc.core5.http.protocol.HttpContext;
import org.apache.hc.core5.util.TimeValue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The handler in a real {@code CloseableHttpClient} built with {@code HttpClients.custom()},
 * against MockWebServer; every wait passes on a virtual clock that advances when a caller sleeps.
 * Requests are counted on the server.
 */
@Timeout(30)
class RateLimitExecChainHandlerTest {
  private final MockWebServer server = new MockWebServer();
  private final VirtualClock clock = VirtualClock.create();
  private final List<CloseableHttpClient> clients = new ArrayList<>();

  @BeforeEach
  void start() throws IOException {
    server.start(InetAddress.getByName("127.0.0.1"), 0);
  }

  @AfterEach
  void stop() throws IOException {
    for (CloseableHttpClient client : clients) {
      client.close();
    }
    server.close();
  }

  private Pacer pacer() {
    return pacer(b -> b);
  }

  private Pacer pacer(UnaryOperator<Pacer.Builder> settings) {
    return settings.apply(Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .jitter(Jitter.none()).strategy(PacingStrategy.useAllThenWait())
        .maxWait(Duration.ofSeconds(10)).maxAttempts(3)).build();
  }

  private CloseableHttpClient client(RateLimitExecChainHandler handler) {
    return client(handler.addTo(HttpClients.custom()));
  }

  private CloseableHttpClient client(HttpClientBuilder builder) {
    CloseableHttpClient client = builder.build();
    clients.add(client);
    return client;
  }

  private void enqueue(int code, String body, String... headers) {
    MockResponse.Builder builder = new MockResponse.Builder().code(code).body(body);
    for (int i = 0; i + 1 < headers.length; i += 2) {
      builder.addHeader(headers[i], headers[i + 1]);
    }
    server.enqueue(builder.build());
  }

  private String url(String path) {
    return server.url(path).toString();
  }

  /** Sends {@code request} and returns "status body". */
  private static String call(CloseableHttpClient client, ClassicHttpRequest request)
      throws IOException {
    return client.execute(request, response -> response.getCode() + " "
        + (response.getEntity() == null ? ""
            : EntityUtils.toString(response.getEntity(), StandardCharsets.UTF_8)));
  }

  @Test
  void retriesA429AfterItsRetryAfter() throws Exception {
    clock.autoAdvance(true);
    enqueue(429, "slow down", "Retry-After", "2");
    enqueue(200, "ok");

    String reply = call(client(RateLimitExecChainHandler.create(pacer())), new HttpGet(url("/a")));

    assertThat(reply).isEqualTo("200 ok");
    assertThat(server.getRequestCount()).isEqualTo(2);
    assertThat(clock.elapsed()).isGreaterThanOrEqualTo(Duration.ofSeconds(2));
  }

  /**
   * A 429 whose JSON body arrives slowly (1 byte per 50 ms: 1.2 s) or stalls (a byte per 20 s) is
   * retried after its Retry-After as any other: its connection is closed, not drained, and goes
   * back to the pool.
   */
  @ParameterizedTest
  @ValueSource(ints = {50, 20_000})
  void aThrottledResponseWhoseBodyArrivesSlowlyIsRetriedAfterItsRetryAfter(int millisPerByte)
      throws Exception {
    clock.autoAdvance(true);
    server.enqueue(new MockResponse.Builder().code(429).addHeader("Retry-After", "1")
        .addHeader("Content-Type", "application/json").body("{\"error\":\"rate limited\"}")
        .throttleBody(1, millisPerByte, TimeUnit.MILLISECONDS).build());
    enqueue(200, "ok");
    PoolingHttpClientConnectionManager pool = PoolingHttpClientConnectionManagerBuilder.create()
        .build();
    CloseableHttpClient client = client(RateLimitExecChainHandler.create(pacer())
        .addTo(HttpClients.custom().setConnectionManager(pool)));
    long started = System.nanoTime();

    String reply = call(client, new HttpGet(url("/a")));

    assertThat(reply).isEqualTo("200 ok");
    assertThat(server.getRequestCount()).isEqualTo(2);
    assertThat(clock.elapsed()).as("the server's second").isEqualTo(Duration.ofSeconds(1));
    assertThat(Duration.ofNanos(System.nanoTime() - started))
        .as("the slow body is not waited for").isLessThan(Duration.ofSeconds(1));
    assertThat(pool.getTotalStats().getLeased()).isZero();
  }

  /**
   * HttpClient's default retry strategy retries a 429 once more after its Retry-After, sleeping
   * in real time: after Headway's last attempt it would send a third request.
   */
  @Test
  void httpClientsDefaultRetryStrategyDoesNotRetryWhatHeadwayDecided() throws Exception {
    clock.autoAdvance(true);
    enqueue(429, "first", "Retry-After", "1");
    enqueue(429, "second", "Retry-After", "1");
    enqueue(200, "never");
    RateLimitExecChainHandler handler = RateLimitExecChainHandler.builder(pacer())
        .maxAttempts(2).build();

    String reply = call(client(handler), new HttpGet(url("/a")));

    assertThat(reply).isEqualTo("429 second");
    assertThat(server.getRequestCount()).isEqualTo(2);
  }

  /**
   * What {@code addTo}'s retry strategy prevents: the same handler added by hand, with
   * HttpClient's default strategy left in place, sees the 429 it gave up on retried once more
   * (here at once: {@code Retry-After: 0}).
   */
  @Test
  void addedByHandWithTheDefaultStrategyAThrottledResponseIsRetriedTwice() throws Exception {
    assertThat(sentForTwo429sThenA200(false)).isEqualTo(3);
    assertThat(sentForTwo429sThenA200(true)).isEqualTo(2);
  }

  /** Returns the requests sent for one GET answered 429, 429, 200, with or without addTo. */
  private int sentForTwo429sThenA200(boolean addTo) throws Exception {
    clock.autoAdvance(true);
    int before = server.getRequestCount();
    enqueue(429, "first", "Retry-After", "0");
    enqueue(429, "second", "Retry-After", "0");
    enqueue(200, "third");
    RateLimitExecChainHandler handler = RateLimitExecChainHandler.builder(pacer())
        .maxAttempts(2).build();
    HttpClientBuilder builder = addTo ? handler.addTo(HttpClients.custom())
        : HttpClients.custom().addExecInterceptorBefore(ChainElement.PROTOCOL.name(),
            RateLimitExecChainHandler.NAME, handler);

    String reply = call(client(builder), new HttpGet(url("/" + addTo)));

    assertThat(reply).isEqualTo(addTo ? "429 second" : "200 third");
    int sent = server.getRequestCount() - before;
    server.setDispatcher(new mockwebserver3.QueueDispatcher()); // drops what was not taken
    return sent;
  }

  /** A retry past the budget: Headway returns the 429, and HttpClient neither waits nor resends. */
  @Test
  void aRetryHeadwayGaveUpOnIsNotRetriedNorWaitedForByHttpClient() throws Exception {
    enqueue(429, "slow down", "Retry-After", "5");
    enqueue(200, "never");
    Pacer pacer = pacer(b -> b.maxWait(Duration.ofSeconds(1)));

    long startNanos = System.nanoTime();
    String reply = call(client(RateLimitExecChainHandler.create(pacer)), new HttpGet(url("/a")));

    assertThat(reply).isEqualTo("429 slow down");
    assertThat(server.getRequestCount()).isEqualTo(1);
    assertThat(Duration.ofNanos(System.nanoTime() - startNanos)).isLessThan(Duration.ofSeconds(4));
  }

  @Test
  void theGivenRetryStrategyStillDecidesOtherStatuses() throws Exception {
    enqueue(502, "bad gateway");
    enqueue(200, "ok");
    HttpRequestRetryStrategy retry502 = new HttpRequestRetryStrategy() {
      @Override
      public boolean retryRequest(HttpRequest request, IOException exception, int execCount,
          HttpContext context) {
        return false;
      }

      @Override
      public boolean retryRequest(HttpResponse response, int execCount, HttpContext context) {
        return response.getCode() == 502 && execCount < 2;
      }

      @Override
      public TimeValue getRetryInterval(HttpResponse response, int execCount,
          HttpContext context) {
        return TimeValue.ZERO_MILLISECONDS;
      }
    };
    CloseableHttpClient client = client(RateLimitExecChainHandler.create(pacer())
        .addTo(HttpClients.custom(), retry502));

    assertThat(call(client, new HttpGet(url("/a")))).isEqualTo("200 ok");
    assertThat(server.getRequestCount()).isEqualTo(2);
  }

  @Test
  void aNonRepeatableEntityIsNeverSentTwice() throws Exception {
    clock.autoAdvance(true);
    enqueue(429, "slow down", "Retry-After", "1");
    enqueue(201, "created");
    HttpPost post = new HttpPost(url("/items"));
    byte[] body = "payload".getBytes(StandardCharsets.UTF_8);
    post.setEntity(new InputStreamEntity(new ByteArrayInputStream(body), body.length,
        ContentType.TEXT_PLAIN));

    String reply = call(client(RateLimitExecChainHandler.create(pacer())), post);

    assertThat(reply).isEqualTo("429 slow down");
    assertThat(server.getRequestCount()).isEqualTo(1);
    assertThat(server.takeRequest().getBody().string(StandardCharsets.UTF_8))
        .isEqualTo("payload");
  }

  /** Waits (real time) until a caller waits on the virtual clock, sleeping or as a task. */
  private void awaitWaiter() throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (clock.sleepers() + clock.pendingTasks() == 0) {
      assertThat(System.nanoTime()).as("a caller waits").isLessThan(deadline);
      Thread.sleep(5);
    }
  }

  /**
   * HttpClient's own way to abort a call, {@code HttpUriRequestBase.cancel()} (an SDK's per-call
   * deadline, a user giving up), ends a wait for a permit at once: nothing is sent, the caller
   * gets HttpClient's "Request aborted", the thread is not left interrupted.
   */
  @Test
  void cancellingTheRequestEndsItsWaitForAPermitAndSendsNothing() throws Exception {
    enqueue(429, "slow down", "Retry-After", "5");
    CloseableHttpClient client = client(
        RateLimitExecChainHandler.create(pacer(b -> b.maxAttempts(1))));
    assertThat(call(client, new HttpGet(url("/a")))).isEqualTo("429 slow down");
    HttpGet get = new HttpGet(url("/b"));
    ExecutorService caller = Executors.newSingleThreadExecutor();
    try {
      Future<Object> outcome = caller.submit(() -> {
        try {
          return call(client, get);
        } catch (IOException e) {
          return e.getClass().getSimpleName() + " interrupted=" + Thread.interrupted();
        }
      });
      awaitWaiter();

      get.cancel();

      assertThat(outcome.get(2, TimeUnit.SECONDS))
          .isEqualTo("RequestFailedException interrupted=false");
      assertThat(server.getRequestCount()).isEqualTo(1);
      assertThat(clock.elapsed()).isZero();
    } finally {
      clock.autoAdvance(true);
      caller.shutdownNow();
    }
  }

  /** A cancel after the call ended (a deadline timer firing late) leaves the thread alone. */
  @Test
  void aCancelAfterTheCallFailedDoesNotInterruptTheThread() throws Exception {
    enqueue(200, "first", "RateLimit-Policy", "\"fixed\";q=5;w=60",
        "RateLimit", "\"fixed\";r=0;t=60");
    CloseableHttpClient client = client(RateLimitExecChainHandler.create(pacer()));
    call(client, new HttpGet(url("/a")));
    HttpGet get = new HttpGet(url("/b"));

    assertThatThrownBy(() -> call(client, get)).isInstanceOf(RateLimitedException.class);
    get.cancel();

    assertThat(Thread.interrupted()).isFalse();
  }

  /** The same while the call waits to retry a throttled response: the retry is never sent. */
  @Test
  void cancellingTheRequestEndsItsWaitToRetry() throws Exception {
    enqueue(429, "slow down", "Retry-After", "5");
    enqueue(200, "never");
    CloseableHttpClient client = client(RateLimitExecChainHandler.create(pacer()));
    HttpGet get = new HttpGet(url("/a"));
    ExecutorService caller = Executors.newSingleThreadExecutor();
    try {
      Future<Object> outcome = caller.submit(() -> {
        try {
          return call(client, get);
        } catch (IOException e) {
          return e.getClass().getSimpleName();
        }
      });
      awaitWaiter();

      get.cancel();

      assertThat(outcome.get(2, TimeUnit.SECONDS)).isEqualTo("RequestFailedException");
      assertThat(server.getRequestCount()).isEqualTo(1);
    } finally {
      clock.autoAdvance(true);
      caller.shutdownNow();
    }
  }

  @Test
  void aClosedPacerFailsWithAnIoExceptionAndSendsNothing() {
    Pacer pacer = pacer();
    CloseableHttpClient client = client(RateLimitExecChainHandler.create(pacer));
    pacer.close();

    Throwable thrown = catchThrowable(() -> call(client, new HttpGet(url("/a"))));

    assertThat(thrown).isInstanceOf(IOException.class).hasMessageContaining("open Pacer");
    assertThat(server.getRequestCount()).isZero();
  }

  /**
   * A first permit past maxWait fails at once. HttpClient's default strategy retries an
   * IOException it does not know once, a second later (sleeping the caller), where Headway would
   * only refuse again: it leaves Headway's own failures alone.
   */
  @Test
  void aWaitPastMaxWaitIsNotRetriedNorWaitedForByHttpClient() throws Exception {
    enqueue(200, "first", "RateLimit-Policy", "\"fixed\";q=5;w=60",
        "RateLimit", "\"fixed\";r=0;t=60");
    CloseableHttpClient client = client(RateLimitExecChainHandler.create(pacer()));
    call(client, new HttpGet(url("/a")));

    long startNanos = System.nanoTime();
    Throwable thrown = catchThrowable(() -> call(client, new HttpGet(url("/b"))));

    assertThat(thrown).isInstanceOf(RateLimitedException.class);
    assertThat(Duration.ofNanos(System.nanoTime() - startNanos))
        .isLessThan(Duration.ofMillis(900));
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  @Test
  void aThrowingResolverSendsTheRequestUnpaced() throws Exception {
    enqueue(200, "ok");
    Pacer pacer = pacer(b -> b.partitionKeyResolver(request -> {
      throw new IllegalStateException("a bug in the user's resolver");
    }));

    assertThat(call(client(RateLimitExecChainHandler.create(pacer)), new HttpGet(url("/a"))))
        .isEqualTo("200 ok");
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  /**
   * Six threads share a pool of two connections; the first requests of three of them are
   * throttled and retried. Every call succeeds, and every connection goes back to the pool.
   */
  @Test
  void manyThreadsShareASmallPoolAndEveryConnectionGoesBack() throws Exception {
    clock.autoAdvance(true);
    Set<String> throttledOnce = ConcurrentHashMap.newKeySet();
    server.setDispatcher(new Dispatcher() {
      @Override
      public MockResponse dispatch(RecordedRequest request) {
        String path = request.getUrl().encodedPath();
        boolean throttle = path.compareTo("/items/3") < 0 && throttledOnce.add(path);
        return throttle
            ? new MockResponse.Builder().code(429).body("slow down")
                .addHeader("Retry-After", "1").build()
            : new MockResponse.Builder().code(200).body("ok").build();
      }
    });
    PoolingHttpClientConnectionManager pool = PoolingHttpClientConnectionManagerBuilder.create()
        .setMaxConnTotal(2).setMaxConnPerRoute(2).build();
    // A partition per path: each call's pacing is its own, the pool and the handler are shared.
    List<Object> events = Collections.synchronizedList(new ArrayList<>());
    Pacer pacer = pacer(b -> b.listener(events::add)
        .partitionKeyResolver(PartitionKeyResolver.originAndPathPrefix(2)));
    CloseableHttpClient client = client(RateLimitExecChainHandler.create(pacer)
        .addTo(HttpClients.custom().setConnectionManager(pool)));
    ExecutorService threads = Executors.newFixedThreadPool(6);
    try {
      List<Future<String>> replies = new ArrayList<>();
      for (int i = 0; i < 6; i++) {
        String path = "/items/" + i;
        replies.add(threads.submit(() -> call(client, new HttpGet(url(path)))));
      }
      for (Future<String> reply : replies) {
        assertThat(reply.get()).as(events.toString()).isEqualTo("200 ok");
      }
    } finally {
      threads.shutdownNow();
    }

    assertThat(server.getRequestCount()).isEqualTo(9);
    assertThat(pool.getTotalStats().getLeased()).isZero();
  }

  @Test
  void builderTakesAZeroMaxWaitAndRejectsANegativeOne() {
    RateLimitExecChainHandler.builder(pacer()).maxWait(Duration.ZERO).build(); // never waits
    assertThatThrownBy(() -> RateLimitExecChainHandler.builder(pacer())
        .maxWait(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxWait");
  }
}
