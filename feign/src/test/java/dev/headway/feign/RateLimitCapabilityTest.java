package dev.headway.feign;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.headway.ClientPolicy;
import dev.headway.Jitter;
import dev.headway.Pacer;
import dev.headway.PacingStrategy;
import dev.headway.RateLimitedException;
import dev.headway.testing.VirtualClock;
import feign.AsyncFeign;
import feign.Client;
import feign.DefaultClient;
import feign.DefaultRetryer;
import feign.ExceptionPropagationPolicy;
import feign.Feign;
import feign.FeignException;
import feign.Headers;
import feign.RequestLine;
import feign.Response;
import feign.RetryableException;
import feign.Retryer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import java.util.zip.GZIPOutputStream;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import okio.Buffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link RateLimitCapability} through a real Feign interface against MockWebServer, with Feign's
 * own retryer in place: what was sent, how often, after how much (virtual) time, and what the
 * caller got.
 */
@Timeout(30)
class RateLimitCapabilityTest {
  interface Api {
    @RequestLine("GET /items")
    String items();

    @RequestLine("GET /items")
    Response itemsResponse();

    @RequestLine("POST /items")
    @Headers("Content-Type: text/plain")
    String create(String body);
  }

  /** Feign's retryer, counting how often Feign asked it. Retries at once, up to 3 attempts. */
  static final class CountingRetryer implements Retryer {
    final AtomicInteger asked;
    private final Retryer delegate;

    CountingRetryer(AtomicInteger asked) {
      this(asked, new DefaultRetryer(1, 1, 3));
    }

    private CountingRetryer(AtomicInteger asked, Retryer delegate) {
      this.asked = asked;
      this.delegate = delegate;
    }

    @Override
    public void continueOrPropagate(RetryableException e) {
      asked.incrementAndGet();
      delegate.continueOrPropagate(e);
    }

    @Override
    public Retryer clone() {
      return new CountingRetryer(asked, delegate.clone());
    }
  }

  private final MockWebServer server = new MockWebServer();
  private final VirtualClock clock = VirtualClock.create().autoAdvance(true);
  private final AtomicInteger feignRetries = new AtomicInteger();

  @BeforeEach
  void start() throws IOException {
    server.start(InetAddress.getByName("127.0.0.1"), 0);
  }

  @AfterEach
  void stop() throws IOException {
    server.close();
  }

  private Pacer pacer() {
    return pacer(b -> b);
  }

  private Pacer pacer(UnaryOperator<Pacer.Builder> settings) {
    return settings.apply(Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .jitter(Jitter.none()).strategy(PacingStrategy.useAllThenWait())
        .maxWait(Duration.ofSeconds(60)).maxAttempts(3)).build();
  }

  private Api api(RateLimitCapability capability) {
    return Feign.builder().addCapability(capability)
        .retryer(new CountingRetryer(feignRetries))
        .target(Api.class, server.url("/").toString());
  }

  private void enqueue(int code, String body, String... headers) {
    MockResponse.Builder builder = new MockResponse.Builder().code(code).body(body);
    for (int i = 0; i + 1 < headers.length; i += 2) {
      builder.addHeader(headers[i], headers[i + 1]);
    }
    server.enqueue(builder.build());
  }

  /** The body of the response a {@code FeignException} was made from, whole. */
  private static String content(FeignException thrown) {
    return thrown.getCause() instanceof FeignException decoded ? decoded.contentUTF8()
        : thrown.contentUTF8();
  }

  @Test
  void aRetryAfterOf30SecondsIsWaitedInFullNotCappedAtFeignsOneSecond() {
    enqueue(429, "slow down", "Retry-After", "30");
    enqueue(200, "ok");

    String items = api(RateLimitCapability.create(pacer())).items();

    assertThat(items).isEqualTo("ok");
    assertThat(server.getRequestCount()).isEqualTo(2);
    assertThat(clock.elapsed()).isBetween(Duration.ofSeconds(30), Duration.ofSeconds(31));
    assertThat(feignRetries).hasValue(0);
  }

  /**
   * A 429 whose JSON body arrives slowly (1 byte per 50 ms: 1.2 s) or stalls (a byte per 20 s) is
   * retried after its Retry-After as any other: the caller gets the 200, not the 429.
   */
  @ParameterizedTest
  @ValueSource(ints = {50, 20_000})
  void aThrottledResponseWhoseBodyArrivesSlowlyIsRetriedAfterItsRetryAfter(int millisPerByte) {
    server.enqueue(new MockResponse.Builder().code(429).addHeader("Retry-After", "1")
        .addHeader("Content-Type", "application/json").body("{\"error\":\"rate limited\"}")
        .throttleBody(1, millisPerByte, TimeUnit.MILLISECONDS).build());
    enqueue(200, "ok");
    long started = System.nanoTime();

    String items = api(RateLimitCapability.create(pacer())).items();

    assertThat(items).isEqualTo("ok");
    assertThat(server.getRequestCount()).isEqualTo(2);
    assertThat(clock.elapsed()).as("the server's second").isEqualTo(Duration.ofSeconds(1));
    assertThat(Duration.ofNanos(System.nanoTime() - started))
        .as("the slow body is not waited for").isLessThan(Duration.ofSeconds(1));
    assertThat(feignRetries).hasValue(0);
  }

  @Test
  void aRetryPastMaxWaitGivesFeignThe429OnceAndFeignsRetryerLeavesItAlone() {
    enqueue(429, "slow down", "Retry-After", "30");
    enqueue(200, "never");
    Api api = api(RateLimitCapability.builder(pacer()).maxWait(Duration.ofSeconds(10)).build());

    FeignException thrown = catchThrowableOfType(FeignException.class, api::items);

    assertThat(thrown.status()).isEqualTo(429);
    assertThat(content(thrown)).isEqualTo("slow down");
    assertThat(server.getRequestCount()).isEqualTo(1);
    assertThat(clock.elapsed()).isZero();
    assertThat(feignRetries).hasValue(0); // Feign's own retryer was never asked
  }

  @Test
  void aThrottledResponseThatCannotBeRetriedReachesTheCallerWhole() throws IOException {
    String body = "{\"retry_after\": 60, \"detail\": \"" + "x".repeat(5_000) + "\"}";
    enqueue(429, body, "Content-Type", "application/json");
    Pacer pacer = pacer(b -> b.maxWait(Duration.ofSeconds(10)));

    try (Response response = api(RateLimitCapability.create(pacer)).itemsResponse()) {
      assertThat(response.status()).isEqualTo(429);
      try (InputStream in = response.body().asInputStream()) {
        assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo(body);
      }
    }
    assertThat(server.getRequestCount()).isEqualTo(1);
    assertThat(pacer.quota(server.url("/").uri()).heldFor()).isPresent(); // the body said 60 s
  }

  @Test
  void aGzipThrottledResponseReachesTheCallerWholeAndItsHintIsRead() throws IOException {
    // Feign's default client decodes the body but reports its encoded length: the read-ahead
    // must not take that length for the decoded body's.
    String body = "{\"retry_after\": 60, \"detail\": \"" + "x".repeat(5_000) + "\"}";
    ByteArrayOutputStream gzipped = new ByteArrayOutputStream();
    try (GZIPOutputStream out = new GZIPOutputStream(gzipped)) {
      out.write(body.getBytes(StandardCharsets.UTF_8));
    }
    server.enqueue(new MockResponse.Builder().code(429)
        .addHeader("Content-Type", "application/json").addHeader("Content-Encoding", "gzip")
        .body(new Buffer().write(gzipped.toByteArray())).build());
    Pacer pacer = pacer(b -> b.maxWait(Duration.ofSeconds(10)));

    try (Response response = api(RateLimitCapability.create(pacer)).itemsResponse()) {
      assertThat(response.status()).isEqualTo(429);
      try (InputStream in = response.body().asInputStream()) {
        assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo(body);
      }
    }
    assertThat(server.getRequestCount()).isEqualTo(1);
    assertThat(pacer.quota(server.url("/").uri()).heldFor()).isPresent(); // the body said 60 s
  }

  @Test
  void feignsErrorDecoderReadsTheWholeBodyOfAThrottledResponseWhoseHintWasRead() {
    String body = "{\"retry_after\": 60, \"detail\": \"" + "x".repeat(5_000) + "\"}";
    enqueue(429, body, "Content-Type", "application/json");
    Api api = api(RateLimitCapability.builder(pacer()).maxWait(Duration.ofSeconds(10)).build());

    FeignException thrown = catchThrowableOfType(FeignException.class, api::items);

    assertThat(thrown.status()).isEqualTo(429);
    assertThat(content(thrown)).isEqualTo(body);
    assertThat(server.getRequestCount()).isEqualTo(1);
    assertThat(clock.elapsed()).isZero();
  }

  @Test
  void theLast429AfterMaxAttemptsIsNotRetriedAgainByFeign() {
    enqueue(429, "first", "Retry-After", "1");
    enqueue(429, "second", "Retry-After", "1");
    enqueue(200, "never");
    Api api = api(RateLimitCapability.builder(pacer()).maxAttempts(2).build());

    FeignException thrown = catchThrowableOfType(FeignException.class, api::items);

    assertThat(thrown.status()).isEqualTo(429);
    assertThat(content(thrown)).isEqualTo("second");
    assertThat(server.getRequestCount()).isEqualTo(2);
    assertThat(clock.elapsed()).isBetween(Duration.ofSeconds(1), Duration.ofSeconds(2));
    assertThat(feignRetries).hasValue(0);
  }

  @Test
  void feignsRetryerStillRetriesAnIoException() {
    enqueue(200, "ok");
    AtomicInteger sends = new AtomicInteger();
    Client failingOnce = (request, options) -> {
      if (sends.incrementAndGet() == 1) {
        throw new IOException("connection reset");
      }
      return new DefaultClient(null, null).execute(request, options);
    };
    Api api = Feign.builder().client(failingOnce)
        .addCapability(RateLimitCapability.create(pacer()))
        .retryer(new CountingRetryer(feignRetries))
        .target(Api.class, server.url("/").toString());

    assertThat(api.items()).isEqualTo("ok");
    assertThat(feignRetries).hasValue(1);
    assertThat(sends).hasValue(2);
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  @Test
  void aPostAfterA503WithRetryAfterIsRetriedByNeitherHeadwayNorFeign() {
    enqueue(503, "busy", "Retry-After", "1");
    enqueue(201, "never");
    Api api = api(RateLimitCapability.create(pacer()));

    FeignException thrown = catchThrowableOfType(FeignException.class, () -> api.create("x"));

    assertThat(thrown.status()).isEqualTo(503);
    assertThat(server.getRequestCount()).isEqualTo(1);
    assertThat(feignRetries).hasValue(0);
  }

  @Test
  void a503WithoutRetryAfterThatTheErrorDecoderMakesRetryableIsStillFeignsToRetry() {
    enqueue(503, "busy");
    enqueue(200, "ok");
    Api api = Feign.builder().addCapability(RateLimitCapability.create(pacer()))
        .retryer(new CountingRetryer(feignRetries))
        .errorDecoder((methodKey, response) -> new RetryableException(response.status(),
            "unavailable", response.request().httpMethod(), (Long) null, response.request()))
        .target(Api.class, server.url("/").toString());

    assertThat(api.items()).isEqualTo("ok");
    assertThat(feignRetries).hasValue(1);
    assertThat(server.getRequestCount()).isEqualTo(2);
  }

  @Test
  void aClosedPacerFailsWithTheClientsExceptionSendsNothingAndIsNotRetried() {
    Pacer pacer = pacer();
    Api api = api(RateLimitCapability.create(pacer));
    pacer.close();

    RetryableException thrown = catchThrowableOfType(RetryableException.class, api::items);

    assertThat(thrown.getCause()).isInstanceOf(IOException.class)
        .hasMessageContaining("open Pacer");
    assertThat(server.getRequestCount()).isZero();
    assertThat(feignRetries).hasValue(0); // Feign's own retryer was never asked
  }

  @Test
  void aThrowingPartitionResolverSendsTheRequestUnpaced() {
    enqueue(200, "ok");
    Pacer pacer = pacer(b -> b.partitionKeyResolver(request -> {
      throw new IllegalStateException("a bug in the user's resolver");
    }));

    assertThat(api(RateLimitCapability.create(pacer)).items()).isEqualTo("ok");
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  interface CheckedApi {
    @RequestLine("GET /items")
    String items() throws IOException;
  }

  @Test
  void withUnwrapACallerDeclaringIoExceptionCatchesRateLimitedExceptionItself() throws Exception {
    enqueue(200, "first", "RateLimit-Policy", "\"fixed\";q=5;w=60",
        "RateLimit", "\"fixed\";r=0;t=60");
    CheckedApi api = Feign.builder()
        .addCapability(RateLimitCapability.builder(pacer()).maxWait(Duration.ofSeconds(10)).build())
        .exceptionPropagationPolicy(ExceptionPropagationPolicy.UNWRAP)
        .target(CheckedApi.class, server.url("/").toString());
    api.items();

    assertThatThrownBy(api::items).isInstanceOf(RateLimitedException.class);
    assertThat(server.getRequestCount()).isEqualTo(1);
    assertThat(clock.elapsed()).isZero();
  }

  interface AsyncApi {
    @RequestLine("GET /items")
    CompletableFuture<String> items();
  }

  @Test
  void anAsyncFeignClientWithTheCapabilityFailsToBuildAndSaysWhy() {
    RateLimitCapability capability = RateLimitCapability.create(pacer());

    assertThatThrownBy(() -> AsyncFeign.builder().addCapability(capability)
        .target(AsyncApi.class, server.url("/").toString()))
        .hasStackTraceContaining("not AsyncFeign");
    assertThat(server.getRequestCount()).isZero();
  }

  @Test
  void theBuilderRejectsANonPositiveMaxWaitAndNamesIt() {
    RateLimitCapability.Builder builder = RateLimitCapability.builder(pacer());

    assertThatThrownBy(() -> builder.maxWait(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxWait");
    assertThatThrownBy(() -> builder.maxAttempts(0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxAttempts");
  }

  @Test
  void withoutSettingsTheCapabilityTakesThePacersLimits() {
    RateLimitCapability capability = RateLimitCapability.create(pacer());

    assertThat(capability.maxWait()).isEqualTo(Duration.ofSeconds(60));
    assertThat(capability.maxAttempts()).isEqualTo(3);
  }

  /**
   * The capability added twice to one client (the Spring Boot starter's bean and one the
   * application declares as feign.md showed) paces each request once: two calls within a
   * declared quota of two per minute go at once, and a 429 is retried once, not once per copy.
   */
  @Test
  void addedTwiceTheCapabilityPacesEachRequestOnce() {
    Pacer pacer = pacer(b -> b.declare(ClientPolicy.tokenBucket("two", 2, Duration.ofMinutes(1))));
    Api api = Feign.builder()
        .addCapability(RateLimitCapability.create(pacer))
        .addCapability(RateLimitCapability.create(pacer))
        .retryer(new CountingRetryer(feignRetries))
        .target(Api.class, server.url("/").toString());
    enqueue(200, "one");
    enqueue(200, "two");

    assertThat(api.items()).isEqualTo("one");
    assertThat(api.items()).isEqualTo("two");

    assertThat(server.getRequestCount()).isEqualTo(2);
    assertThat(clock.elapsed()).as("two units for two requests: no wait").isZero();
    assertThat(feignRetries).hasValue(0);
  }
}
