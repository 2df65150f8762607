package dev.headway.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.headway.Pacer;
import dev.headway.RateLimitedException;
import dev.headway.jdk.RateLimitedHttpClient;
import dev.headway.testing.VirtualClock;
import java.io.InterruptedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.http.client.SimpleClientHttpRequestFactory;
import org.springframework.web.client.HttpClientErrorException;
import org.springframework.web.client.HttpServerErrorException;
import org.springframework.web.client.ResourceAccessException;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.RestTemplate;

/**
 * Spring's own RestClient and RestTemplate, with the interceptor, against a local server; every
 * wait passes on the virtual clock.
 */
@Timeout(30)
class RateLimitClientHttpRequestInterceptorTest {
  private final MockWebServer server = new MockWebServer();
  private final VirtualClock clock = VirtualClock.create();
  private Pacer pacer;

  @BeforeEach
  void start() throws Exception {
    server.start(java.net.InetAddress.getByName("127.0.0.1"), 0);
    pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .jitter(dev.headway.Jitter.none())
        .strategy(dev.headway.PacingStrategy.useAllThenWait())
        .maxWait(Duration.ofSeconds(10)).build();
  }

  @AfterEach
  void stop() throws Exception {
    server.close();
  }

  private String url(String path) {
    return server.url(path).toString();
  }

  private void enqueue(int code, String body, String... headers) {
    MockResponse.Builder builder = new MockResponse.Builder().code(code).body(body);
    for (int i = 0; i + 1 < headers.length; i += 2) {
      builder.addHeader(headers[i], headers[i + 1]);
    }
    server.enqueue(builder.build());
  }

  private RestClient restClient(ClientHttpRequestInterceptor... interceptors) {
    RestClient.Builder builder = RestClient.builder();
    for (ClientHttpRequestInterceptor interceptor : interceptors) {
      builder.requestInterceptor(interceptor);
    }
    return builder.build();
  }

  @Test
  void restClientRetriesA429AfterItsRetryAfter() {
    clock.autoAdvance(true);
    enqueue(429, "slow down", "Retry-After", "2");
    enqueue(200, "ok");
    RestClient client = restClient(RateLimitClientHttpRequestInterceptor.create(pacer));

    String body = client.get().uri(url("/items")).retrieve().body(String.class);

    assertThat(body).isEqualTo("ok");
    assertThat(server.getRequestCount()).isEqualTo(2);
    assertThat(clock.elapsed()).isGreaterThanOrEqualTo(Duration.ofSeconds(2));
  }

  /**
   * A 429 whose JSON body arrives slowly (1 byte per 150 ms: 3.6 s) or stalls (a byte per 20 s)
   * is retried after its Retry-After as any other, with the JDK's client and HttpURLConnection.
   * (The bound on real time is loose: a busy machine takes a second to start a client.)
   */
  @ParameterizedTest
  @CsvSource({"jdk, 150", "jdk, 20000", "simple, 150", "simple, 20000"})
  void restClientRetriesA429WhoseBodyArrivesSlowly(String factory, int millisPerByte) {
    clock.autoAdvance(true);
    server.enqueue(new MockResponse.Builder().code(429).addHeader("Retry-After", "1")
        .addHeader("Content-Type", "application/json").body("{\"error\":\"rate limited\"}")
        .throttleBody(1, millisPerByte, TimeUnit.MILLISECONDS).build());
    enqueue(200, "ok");
    RestClient client = RestClient.builder()
        .requestFactory(factory.equals("jdk") ? new JdkClientHttpRequestFactory()
            : new SimpleClientHttpRequestFactory())
        .requestInterceptor(RateLimitClientHttpRequestInterceptor.create(pacer)).build();
    long started = System.nanoTime();

    String body = client.get().uri(url("/items")).retrieve().body(String.class);

    assertThat(body).isEqualTo("ok");
    assertThat(server.getRequestCount()).isEqualTo(2);
    assertThat(clock.elapsed()).as("the server's second").isEqualTo(Duration.ofSeconds(1));
    assertThat(Duration.ofNanos(System.nanoTime() - started))
        .as("the slow body is not waited for").isLessThan(Duration.ofSeconds(3));
  }

  @Test
  void restClientWaitsForTheResetOfASpentQuotaBeforeSending() throws Exception {
    clock.autoAdvance(true);
    enqueue(200, "first", "RateLimit-Policy", "\"fixed\";q=5;w=5", "RateLimit", "\"fixed\";r=0;t=5");
    enqueue(200, "second");
    RestClient client = restClient(RateLimitClientHttpRequestInterceptor.create(pacer));

    assertThat(client.get().uri(url("/a")).retrieve().body(String.class)).isEqualTo("first");
    assertThat(clock.elapsed()).isLessThan(Duration.ofSeconds(1));
    assertThat(client.get().uri(url("/b")).retrieve().body(String.class)).isEqualTo("second");

    assertThat(clock.elapsed()).isGreaterThanOrEqualTo(Duration.ofSeconds(5));
    assertThat(pacer.quota(URI.create(url("/"))).policy("fixed")).isPresent();
  }

  @Test
  void aWaitPastMaxWaitFailsAtOnceAndSendsNothing() {
    enqueue(200, "first", "RateLimit-Policy", "\"fixed\";q=5;w=60",
        "RateLimit", "\"fixed\";r=0;t=60");
    RestClient client = restClient(RateLimitClientHttpRequestInterceptor.create(pacer));
    client.get().uri(url("/a")).retrieve().body(String.class);

    assertThatThrownBy(() -> client.get().uri(url("/b")).retrieve().body(String.class))
        .isInstanceOf(ResourceAccessException.class)
        .cause().isInstanceOf(RateLimitedException.class)
        .hasMessageContaining("would have to wait");
    assertThat(server.getRequestCount()).isEqualTo(1);
    assertThat(clock.elapsed()).isZero();
  }

  @Test
  void aRetryThatCannotFitTheBudgetReturnsThe429WithItsBody() {
    enqueue(429, "{\"error\":\"slow down\"}", "Retry-After", "60",
        "Content-Type", "application/json");
    RestClient client = restClient(RateLimitClientHttpRequestInterceptor.create(pacer));

    assertThatThrownBy(() -> client.get().uri(url("/a")).retrieve().body(String.class))
        .isInstanceOfSatisfying(HttpClientErrorException.TooManyRequests.class,
            e -> assertThat(e.getResponseBodyAsString()).isEqualTo("{\"error\":\"slow down\"}"));
    assertThat(server.getRequestCount()).isEqualTo(1);
    assertThat(pacer.quota(URI.create(url("/"))).heldFor()).isPresent();
  }

  @Test
  void aJsonBodyHintIsReadAndTheCallerStillGetsTheWholeBody() {
    clock.autoAdvance(true);
    enqueue(429, "{\"retry_after\": 3}", "Content-Type", "application/json");
    enqueue(200, "ok");
    RestClient client = restClient(RateLimitClientHttpRequestInterceptor.builder(pacer)
        .maxAttempts(1).build());

    assertThatThrownBy(() -> client.get().uri(url("/a")).retrieve().body(String.class))
        .isInstanceOfSatisfying(HttpClientErrorException.TooManyRequests.class,
            e -> assertThat(e.getResponseBodyAsString()).isEqualTo("{\"retry_after\": 3}"));
    // The hint was read from the body: the partition is held for 3 s.
    assertThat(pacer.quota(URI.create(url("/"))).heldFor()).hasValue(Duration.ofSeconds(3));
    assertThat(client.get().uri(url("/b")).retrieve().body(String.class)).isEqualTo("ok");
    assertThat(clock.elapsed()).isGreaterThanOrEqualTo(Duration.ofSeconds(3));
  }

  @Test
  void aBodyLongerThanWhatIsPeekedReachesTheCallerWhole() {
    String big = "{\"error\": \"" + "x".repeat(100_000) + "\"}";
    enqueue(503, big, "Content-Type", "application/json");
    RestClient client = restClient(RateLimitClientHttpRequestInterceptor.create(pacer));

    assertThatThrownBy(() -> client.get().uri(url("/a")).retrieve().body(String.class))
        .isInstanceOfSatisfying(HttpServerErrorException.ServiceUnavailable.class,
            e -> assertThat(e.getResponseBodyAsString()).isEqualTo(big));
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  @Test
  void restTemplateIsPacedAndRetriedToo() {
    clock.autoAdvance(true);
    enqueue(429, "", "Retry-After", "1");
    enqueue(200, "ok");
    RestTemplate template = new RestTemplate();
    template.getInterceptors().add(RateLimitClientHttpRequestInterceptor.create(pacer));

    assertThat(template.getForObject(url("/items"), String.class)).isEqualTo("ok");
    assertThat(server.getRequestCount()).isEqualTo(2);
    assertThat(clock.elapsed()).isGreaterThanOrEqualTo(Duration.ofSeconds(1));
  }

  @Test
  void aPostIsRetriedAfterA429WithItsBody() throws Exception {
    clock.autoAdvance(true);
    enqueue(429, "", "Retry-After", "1");
    enqueue(201, "created");
    RestClient client = restClient(RateLimitClientHttpRequestInterceptor.create(pacer));

    String body = client.post().uri(url("/items")).body("{\"name\":\"a\"}")
        .retrieve().body(String.class);

    assertThat(body).isEqualTo("created");
    server.takeRequest();
    assertThat(server.takeRequest().getBody().utf8()).isEqualTo("{\"name\":\"a\"}");
  }

  @Test
  void registeredLastItRetriesWithWhatEarlierInterceptorsAdded() throws Exception {
    clock.autoAdvance(true);
    enqueue(429, "", "Retry-After", "1");
    enqueue(200, "ok");
    AtomicInteger before = new AtomicInteger();
    RestClient client = restClient((request, body, execution) -> {
      before.incrementAndGet();
      request.getHeaders().set("Authorization", "Bearer token");
      return execution.execute(request, body);
    }, RateLimitClientHttpRequestInterceptor.create(pacer));

    assertThat(client.get().uri(url("/items")).retrieve().body(String.class)).isEqualTo("ok");
    assertThat(before).hasValue(1);
    assertThat(server.takeRequest().getHeaders().get("Authorization")).isEqualTo("Bearer token");
    assertThat(server.takeRequest().getHeaders().get("Authorization")).isEqualTo("Bearer token");
  }

  @Test
  void anInterruptEndsTheWaitAndNothingIsSent() throws Exception {
    enqueue(200, "first", "RateLimit-Policy", "\"fixed\";q=5;w=5",
        "RateLimit", "\"fixed\";r=0;t=5");
    RestClient client = restClient(RateLimitClientHttpRequestInterceptor.create(pacer));
    client.get().uri(url("/a")).retrieve().body(String.class);

    AtomicReference<Throwable> thrown = new AtomicReference<>();
    AtomicReference<Boolean> flag = new AtomicReference<>();
    Thread caller = new Thread(() -> {
      try {
        client.get().uri(url("/b")).retrieve().body(String.class);
      } catch (Throwable t) {
        thrown.set(t);
        flag.set(Thread.currentThread().isInterrupted());
      }
    });
    caller.start();
    clock.awaitSleepers(1, Duration.ofSeconds(10));
    caller.interrupt();
    caller.join(10_000);

    assertThat(thrown.get()).isInstanceOf(ResourceAccessException.class)
        .cause().isInstanceOf(InterruptedIOException.class);
    assertThat(flag.get()).isTrue();
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  @Test
  void theJdkRequestFactoryRouteWithARateLimitedHttpClientRetriesToo() throws Exception {
    clock.autoAdvance(true);
    enqueue(429, "", "Retry-After", "2");
    enqueue(200, "ok");
    HttpClient jdk = RateLimitedHttpClient.wrap(HttpClient.newHttpClient(), pacer);
    RestClient client = RestClient.builder()
        .requestFactory(new JdkClientHttpRequestFactory(jdk))
        .build();

    CompletableFuture<String> body = CompletableFuture.supplyAsync(
        () -> client.get().uri(url("/items")).retrieve().body(String.class));
    // sendAsync waits on the pacer's scheduler: let virtual time reach each scheduled task.
    assertThat(clock.await(body)).isEqualTo("ok");
    assertThat(server.getRequestCount()).isEqualTo(2);
    assertThat(clock.elapsed()).isGreaterThanOrEqualTo(Duration.ofSeconds(2));
  }
}
