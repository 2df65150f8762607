package dev.headway.jdk;

import static java.net.http.HttpResponse.BodyHandlers.ofString;
import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.HttpFields;
import dev.headway.Permit;
import dev.headway.RequestInfo;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Regression tests from the adapter review, each on {@code send} and {@code sendAsync}: bodies
 * that only look replayable, a retry that would turn a 429 into an exception, the body-hint rule,
 * shutdown racing a new call, a permit left in flight by an abandoned body, and the request
 * description.
 */
class ThrottledResponseTest {
  private static final String[] RETRY_AFTER_5_RESET_60 = {
      "Retry-After", "5",
      "RateLimit-Policy", "\"default\";q=10;w=60",
      "RateLimit", "\"default\";r=0;t=60"};

  private static String[] with(String[] headers, String... more) {
    String[] all = new String[headers.length + more.length];
    System.arraycopy(headers, 0, all, 0, headers.length);
    System.arraycopy(more, 0, all, headers.length, more.length);
    return all;
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void aBodyOfByteArraysFromAnIterableIsNotRetried(Mode mode) throws Exception {
    try (Harness h = new Harness()) {
      h.enqueue(429, "Retry-After", "1", "slow down");
      h.enqueue(200, "ok");
      // An Iterable may hand out the same iterator every time: a second send would be empty.
      Iterator<byte[]> once = List.of("pay".getBytes(StandardCharsets.UTF_8),
          "load".getBytes(StandardCharsets.UTF_8)).iterator();
      HttpRequest post = HttpRequest.newBuilder(h.uri("/"))
          .POST(HttpRequest.BodyPublishers.ofByteArrays(() -> once)).build();

      HttpResponse<String> response = h.call(mode, post);

      assertThat(response.statusCode()).isEqualTo(429);
      assertThat(h.requests()).isEqualTo(1);
      assertThat(h.server.takeRequest().getBody().utf8()).isEqualTo("payload");
    }
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void aPublisherMarkedReplayableIsRetriedWithTheSameBody(Mode mode) throws Exception {
    try (Harness h = new Harness()) {
      h.enqueue(429, "Retry-After", "1", "slow down");
      h.enqueue(200, "ok");
      HttpRequest post = HttpRequest.newBuilder(h.uri("/"))
          .POST(RateLimitedHttpClient.replayable(HttpRequest.BodyPublishers.ofByteArrays(
              List.of("pay".getBytes(StandardCharsets.UTF_8),
                  "load".getBytes(StandardCharsets.UTF_8)))))
          .build();

      assertThat(h.call(mode, post).body()).isEqualTo("ok");

      assertThat(h.server.takeRequest().getBody().utf8()).isEqualTo("payload");
      assertThat(h.server.takeRequest().getBody().utf8()).isEqualTo("payload");
    }
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void aRetryWhosePermitIsPastTheBudgetReturnsThe429InsteadOfFailing(Mode mode)
      throws Exception {
    try (Harness h = new Harness(b -> b.maxWait(Duration.ofSeconds(30)))) {
      h.enqueue(429, with(RETRY_AFTER_5_RESET_60, "slow down"));
      h.enqueue(200, "ok");

      HttpResponse<String> response = h.call(mode, h.get("/"));

      assertThat(h.clock.elapsed()).isLessThanOrEqualTo(Duration.ofSeconds(30));
      if (response.statusCode() == 429) {
        assertThat(response.body()).isEqualTo("slow down");
        assertThat(response.headers().firstValue("Retry-After")).hasValue("5");
        assertThat(h.requests()).isEqualTo(1);
      } else {
        // A pacer that lets a probe through after Retry-After (draft section 7) may retry.
        assertThat(response.body()).isEqualTo("ok");
        assertThat(h.clock.elapsed()).isGreaterThanOrEqualTo(Duration.ofSeconds(5));
      }
    }
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void aRetryWhosePermitIsRefusedAfterTheDelayReturnsTheKept429(Mode mode) throws Exception {
    assertRefusedRetryReturns429(mode, "slow down");
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void aKept429LargerThanTheHoldLimitStaysPausedAndReachesTheCallerWhole(Mode mode)
      throws Exception {
    assertRefusedRetryReturns429(mode, "w".repeat(200 * 1024));
  }

  private static void assertRefusedRetryReturns429(Mode mode, String body) throws Exception {
    try (Harness h = new Harness(b -> b.maxWait(Duration.ofSeconds(30)))) {
      // A request of someone else's, in flight before the call starts.
      Permit other = h.pacer.acquire(RequestInfo.get(h.uri("/other")));
      h.enqueue(429, "Retry-After", "5", body);
      h.enqueue(200, "ok");
      Mode.Call<InputStream> call = mode.start(h.client, h.get("/"),
          HttpResponse.BodyHandlers.ofInputStream());
      h.awaitWaiting(mode, 1); // the call waits 5 s to retry
      // Meanwhile the other request's answer holds the partition for an hour: the forecast the
      // retry delay was based on is wrong, and the retry's permit is refused.
      other.complete(429, HttpFields.of("Retry-After", "3600"), null);

      HttpResponse<InputStream> response = h.drive(call);

      assertThat(response.statusCode()).isEqualTo(429);
      try (InputStream in = response.body()) {
        assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo(body);
      }
      assertThat(h.requests()).isEqualTo(1);
      assertThat(h.clock.elapsed()).isBetween(Duration.ofSeconds(5), Duration.ofSeconds(30));
    }
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void aKept429LargerThanTheHoldLimitReachesTheCallerWhole(Mode mode) throws Exception {
    String big = "z".repeat(200 * 1024);
    try (Harness h = new Harness(b -> b.maxWait(Duration.ofSeconds(30)))) {
      h.enqueue(429, with(RETRY_AFTER_5_RESET_60, big));
      h.enqueue(200, "ok");

      HttpResponse<InputStream> response = h.drive(mode.start(h.client, h.get("/"),
          HttpResponse.BodyHandlers.ofInputStream()));

      try (InputStream in = response.body()) {
        String body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        assertThat(body).isEqualTo(response.statusCode() == 429 ? big : "ok");
      }
    }
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void aLarge429ThatIsRetriedIsDiscardedAndTheRetrySucceeds(Mode mode) throws Exception {
    try (Harness h = new Harness()) {
      h.enqueue(429, "Retry-After", "2", "q".repeat(200 * 1024));
      h.enqueue(200, "ok");

      HttpResponse<String> response = h.call(mode, h.get("/"));

      assertThat(response.body()).isEqualTo("ok");
      assertThat(h.requests()).isEqualTo(2);
    }
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void aServerAlwaysAnswering429NeverHoldsTheCallPastMaxWait(Mode mode) throws Exception {
    try (Harness h = new Harness(b -> b.maxWait(Duration.ofSeconds(30)).maxAttempts(6))) {
      h.server.setDispatcher(new Dispatcher() {
        @Override
        public MockResponse dispatch(RecordedRequest request) {
          return new MockResponse.Builder().code(429).addHeader("Retry-After", "25")
              .body("no").build();
        }
      });

      HttpResponse<String> response = h.call(mode, h.get("/"));

      assertThat(response.statusCode()).isEqualTo(429);
      assertThat(response.body()).isEqualTo("no");
      assertThat(h.clock.elapsed()).isLessThanOrEqualTo(Duration.ofSeconds(30));
      assertThat(h.requests()).isBetween(1, 2);
    }
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void aTextJson429IsRetriedAfterItsBodyHint(Mode mode) throws Exception {
    try (Harness h = new Harness()) {
      h.enqueue(429, "Content-Type", "text/json", "{\"retry_after\": 7}");
      h.enqueue(200, "ok");

      HttpResponse<String> response = h.call(mode, h.get("/"));

      assertThat(response.body()).isEqualTo("ok");
      assertThat(h.requests()).isEqualTo(2);
      assertThat(h.clock.elapsed()).isBetween(Duration.ofSeconds(7), Duration.ofSeconds(30));
    }
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void theBodyHintOfAGitHubStyleJson403IsRead(Mode mode) throws Exception {
    try (Harness h = new Harness()) {
      h.enqueue(403, "Content-Type", "application/json; charset=utf-8",
          "X-RateLimit-Limit", "60", "X-RateLimit-Remaining", "0",
          "X-RateLimit-Resource", "core",
          "{\"message\": \"API rate limit exceeded\", \"retry_after\": 7}");
      h.enqueue(200, "ok");

      HttpResponse<String> response = h.call(mode, h.get("/"));

      assertThat(response.body()).isEqualTo("ok");
      assertThat(h.requests()).isEqualTo(2);
      assertThat(h.clock.elapsed()).isBetween(Duration.ofSeconds(7), Duration.ofSeconds(30));
    }
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void aShutdownDuringTheStartOfACallWaitsForThatCall(Mode mode) throws Exception {
    try (Harness h = new Harness()) {
      h.enqueue(200, "ok");
      AtomicReference<RateLimitedHttpClient> client = new AtomicReference<>();
      AtomicBoolean first = new AtomicBoolean(true);
      AtomicReference<Boolean> terminatedDuringTheCall = new AtomicReference<>();
      HttpRequest real = h.get("/");
      // Shuts the client down while the call is being set up: the call was accepted, so the
      // client must not report itself terminated until it ends.
      HttpRequest request = new ForwardingRequest(real) {
        @Override
        public String method() {
          if (first.getAndSet(false)) {
            client.get().shutdown();
            terminatedDuringTheCall.set(client.get().isTerminated());
          }
          return super.method();
        }
      };
      client.set(h.client);

      HttpResponse<String> response = h.call(mode, request);

      assertThat(terminatedDuringTheCall.get()).as("terminated while a call ran").isFalse();
      assertThat(response.body()).isEqualTo("ok");
      assertThat(h.client.isTerminated()).isTrue();
    }
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void aFinalJson429WhoseBodyTheCallerNeverReadsLeavesNoPermitInFlight(Mode mode)
      throws Exception {
    try (Harness h = new Harness(b -> b.maxAttempts(1))) {
      h.enqueue(200, "RateLimit-Policy", "\"default\";q=100;w=60",
          "RateLimit", "\"default\";r=50;t=60", "first");
      h.enqueue(429, "Content-Type", "application/json", "Retry-After", "1",
          "{\"retry_after\": 1, \"pad\": \"" + "p".repeat(100_000) + "\"}");
      h.call(mode, h.get("/a"));

      HttpResponse<InputStream> abandoned = h.drive(mode.start(h.client, h.get("/b"),
          HttpResponse.BodyHandlers.ofInputStream()));

      assertThat(abandoned.statusCode()).isEqualTo(429);
      assertThat(h.pacer.quota(h.uri("/")).policies()).isNotEmpty()
          .allSatisfy(p -> assertThat(p.inFlight()).as("units in flight").isZero());
      abandoned.body().close();
    }
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void theRequestDescriptionGivesZeroForNoBodyAndEmptyForAnUnknownLength(Mode mode)
      throws Exception {
    List<RequestInfo> seen = new CopyOnWriteArrayList<>();
    try (Harness h = new Harness(b -> b.cost(request -> {
      seen.add(request);
      return 1;
    }))) {
      h.enqueue(200, "a");
      h.enqueue(200, "b");
      h.enqueue(200, "c");

      h.call(mode, h.get("/get"));
      h.call(mode, HttpRequest.newBuilder(h.uri("/post"))
          .POST(HttpRequest.BodyPublishers.ofString("12345")).build());
      h.call(mode, HttpRequest.newBuilder(h.uri("/post"))
          .POST(HttpRequest.BodyPublishers.ofInputStream(
              () -> new ByteArrayInputStream(new byte[3]))).build());

      assertThat(seen.stream().distinct().map(RequestInfo::contentLength)).containsExactly(
          OptionalLong.of(0), OptionalLong.of(5), OptionalLong.empty());
    }
  }

  /** An {@link HttpRequest} of the test's own that forwards to a real one. */
  private static class ForwardingRequest extends HttpRequest {
    private final HttpRequest real;

    ForwardingRequest(HttpRequest real) {
      this.real = real;
    }

    @Override
    public Optional<BodyPublisher> bodyPublisher() {
      return real.bodyPublisher();
    }

    @Override
    public String method() {
      return real.method();
    }

    @Override
    public Optional<Duration> timeout() {
      return real.timeout();
    }

    @Override
    public boolean expectContinue() {
      return real.expectContinue();
    }

    @Override
    public URI uri() {
      return real.uri();
    }

    @Override
    public Optional<HttpClient.Version> version() {
      return real.version();
    }

    @Override
    public HttpHeaders headers() {
      return real.headers();
    }
  }
}
