package dev.headway.jdk;

import static java.net.http.HttpResponse.BodyHandlers.ofString;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.headway.RateLimitedException;
import java.io.ByteArrayInputStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandler;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** What a caller of {@link RateLimitedHttpClient} observes, on {@code send} and {@code sendAsync}. */
class RateLimitedHttpClientTest {
  private static final String[] NONE_LEFT_FOR_10S = {
      "RateLimit-Policy", "\"default\";q=1;w=10", "RateLimit", "\"default\";r=0;t=10"};

  private static String[] with(String[] headers, String... more) {
    String[] all = new String[headers.length + more.length];
    System.arraycopy(headers, 0, all, 0, headers.length);
    System.arraycopy(more, 0, all, headers.length, more.length);
    return all;
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void waitsUntilTheResetBeforeSendingWhenNoUnitRemains(Mode mode) throws Exception {
    try (Harness h = new Harness()) {
      h.enqueue(200, with(NONE_LEFT_FOR_10S, "first"));
      h.enqueue(200, "second");
      assertThat(h.call(mode, h.get("/a")).body()).isEqualTo("first");

      Mode.Call<String> second = mode.start(h.client, h.get("/b"), ofString());
      h.awaitWaiting(mode, 1);
      assertThat(h.requests()).as("sent while waiting").isEqualTo(1);

      assertThat(h.drive(second).body()).isEqualTo("second");
      assertThat(h.requests()).isEqualTo(2);
      assertThat(h.clock.elapsed()).isGreaterThanOrEqualTo(Duration.ofSeconds(10));
    }
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void retriesA429AfterItsRetryAfterAndReturnsOnlyTheFinalResponse(Mode mode) throws Exception {
    try (Harness h = new Harness()) {
      h.enqueue(429, "Retry-After", "20", "slow down");
      h.enqueue(200, "ok");
      CountingHandler handler = new CountingHandler();

      HttpResponse<String> response = h.drive(mode.start(h.client, h.get("/"), handler));

      assertThat(response.statusCode()).isEqualTo(200);
      assertThat(response.body()).isEqualTo("ok");
      assertThat(handler.applied.get()).as("caller's handler applied").isEqualTo(1);
      assertThat(h.requests()).isEqualTo(2);
      assertThat(h.clock.elapsed()).isBetween(Duration.ofSeconds(20), Duration.ofSeconds(30));
    }
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void retriesAJson429AfterTheDelayItsBodyGives(Mode mode) throws Exception {
    try (Harness h = new Harness()) {
      h.enqueue(429, "Content-Type", "application/json", "{\"retry_after\": 3}");
      h.enqueue(200, "ok");
      CountingHandler handler = new CountingHandler();

      HttpResponse<String> response = h.drive(mode.start(h.client, h.get("/"), handler));

      assertThat(response.body()).isEqualTo("ok");
      assertThat(handler.applied.get()).isEqualTo(1);
      assertThat(h.requests()).isEqualTo(2);
      assertThat(h.clock.elapsed()).isBetween(Duration.ofSeconds(3), Duration.ofSeconds(30));
    }
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void neverRetriesARequestWhoseBodyCannotBeReplayed(Mode mode) throws Exception {
    try (Harness h = new Harness()) {
      h.enqueue(429, "Retry-After", "1", "slow down");
      h.enqueue(200, "ok");
      HttpRequest post = HttpRequest.newBuilder(h.uri("/"))
          .POST(HttpRequest.BodyPublishers.ofInputStream(
              () -> new ByteArrayInputStream("payload".getBytes(StandardCharsets.UTF_8))))
          .build();

      HttpResponse<String> response = h.call(mode, post);

      assertThat(response.statusCode()).isEqualTo(429);
      assertThat(response.body()).isEqualTo("slow down");
      assertThat(h.requests()).isEqualTo(1);
    }
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void retriesAPostWhoseBodyIsAString(Mode mode) throws Exception {
    try (Harness h = new Harness()) {
      h.enqueue(429, "Retry-After", "1", "slow down");
      h.enqueue(200, "ok");
      HttpRequest post = HttpRequest.newBuilder(h.uri("/"))
          .POST(HttpRequest.BodyPublishers.ofString("payload")).build();

      assertThat(h.call(mode, post).body()).isEqualTo("ok");

      assertThat(h.server.takeRequest().getBody().utf8()).isEqualTo("payload");
      assertThat(h.server.takeRequest().getBody().utf8()).isEqualTo("payload");
    }
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void interruptOrCancelDuringAWaitSendsNothing(Mode mode) throws Exception {
    try (Harness h = new Harness()) {
      h.enqueue(200, with(NONE_LEFT_FOR_10S, "first"));
      h.enqueue(200, "later");
      h.call(mode, h.get("/a"));

      Mode.Call<String> waiting = mode.start(h.client, h.get("/b"), ofString());
      h.awaitWaiting(mode, 1);
      waiting.abort();

      if (mode == Mode.SYNC) {
        assertThatThrownBy(() -> h.drive(waiting)).isInstanceOf(InterruptedException.class);
        assertThat(waiting.interruptFlagAfterFailure().getAsBoolean())
            .as("interrupt flag cleared, as HttpClient.send leaves it").isFalse();
      } else {
        assertThat(waiting.future()).isCancelled();
      }
      h.clock.advance(Duration.ofMinutes(5));
      assertThat(h.requests()).as("requests sent").isEqualTo(1);

      // The abandoned permit was released: a later call goes through at once.
      assertThat(h.call(mode, h.get("/c")).body()).isEqualTo("later");
      assertThat(h.requests()).isEqualTo(2);
    }
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void failsFastWithRateLimitedExceptionWhenTheResetIsBeyondMaxWait(Mode mode) throws Exception {
    try (Harness h = new Harness(b -> b.maxWait(Duration.ofSeconds(30)))) {
      h.enqueue(200, "RateLimit-Policy", "\"default\";q=1;w=86400",
          "RateLimit", "\"default\";r=0;t=86400", "first");
      h.call(mode, h.get("/a"));
      Duration before = h.clock.elapsed();

      assertThatThrownBy(() -> h.call(mode, h.get("/b")))
          .isInstanceOf(RateLimitedException.class);

      assertThat(h.requests()).isEqualTo(1);
      assertThat(h.clock.elapsed()).isEqualTo(before);
    }
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void aServerThatAlwaysAsksForRetriesNeverHoldsACallPastMaxWait(Mode mode) throws Exception {
    try (Harness h = new Harness(b -> b.maxWait(Duration.ofSeconds(30)).maxAttempts(10))) {
      h.server.setDispatcher(new Dispatcher() {
        @Override
        public MockResponse dispatch(RecordedRequest request) {
          return new MockResponse.Builder().code(429).addHeader("Retry-After", "20")
              .body("no").build();
        }
      });

      HttpResponse<String> response = h.call(mode, h.get("/"));

      assertThat(response.statusCode()).isEqualTo(429);
      assertThat(h.clock.elapsed()).isLessThanOrEqualTo(Duration.ofSeconds(30));
      assertThat(h.requests()).isBetween(1, 2);
    }
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void aTenYearRetryAfterIsNeverWaitedFor(Mode mode) throws Exception {
    try (Harness h = new Harness(b -> b.maxWait(Duration.ofSeconds(30)))) {
      h.server.setDispatcher(new Dispatcher() {
        @Override
        public MockResponse dispatch(RecordedRequest request) {
          return new MockResponse.Builder().code(429).addHeader("Retry-After", "315360000")
              .addHeader("RateLimit", "\"default\";r=0;t=315360000").body("no").build();
        }
      });

      HttpResponse<String> first = h.call(mode, h.get("/"));
      assertThat(first.statusCode()).isEqualTo(429);
      assertThat(h.clock.elapsed()).isLessThanOrEqualTo(Duration.ofSeconds(30));

      // The partition is held past maxWait: the next call fails at once and sends nothing.
      Duration before = h.clock.elapsed();
      assertThatThrownBy(() -> h.call(mode, h.get("/")))
          .isInstanceOfSatisfying(RateLimitedException.class, e ->
              assertThat(e.requiredWait()).isGreaterThan(Duration.ofSeconds(30)));
      assertThat(h.clock.elapsed()).isEqualTo(before);
      assertThat(h.requests()).isEqualTo(1);
    }
  }

  @org.junit.jupiter.api.Test
  void theClientsExecutorStaysFreeWhileAnAsyncCallWaits() throws Exception {
    // Only sendAsync can be shown this way: send waits on its caller's thread by contract.
    Mode mode = Mode.ASYNC;
    ExecutorService single = Executors.newSingleThreadExecutor();
    try (Harness h = new Harness(b -> b, HttpClient.newBuilder().executor(single))) {
      h.enqueue(200, with(NONE_LEFT_FOR_10S, "first"));
      h.enqueue(200, "second");
      h.call(mode, h.get("/a"));

      Mode.Call<String> waiting = mode.start(h.client, h.get("/b"), ofString());
      h.awaitWaiting(mode, 1);
      Future<String> probe = single.submit(() -> "ran");

      assertThat(probe.get(Harness.REAL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS))
          .isEqualTo("ran");
      assertThat(waiting.future()).isNotDone();
      assertThat(h.requests()).isEqualTo(1);
      assertThat(h.drive(waiting).body()).isEqualTo("second");
    } finally {
      single.shutdownNow();
    }
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void aHeldJson503BodyLargerThanTheBoundReachesTheCallerByteForByte(Mode mode)
      throws Exception {
    // A JSON 503 that could be retried is held until the decision; without Retry-After it is
    // not throttled, so the held 16 KiB and the rest of the stream are replayed to the caller.
    String body = "{\"retry_after\": 3600, \"pad\": \"" + "x".repeat(40_000) + "\"}";
    try (Harness h = new Harness()) {
      h.enqueue(503, "Content-Type", "application/problem+json", body);
      CountingHandler handler = new CountingHandler();

      HttpResponse<String> response = h.drive(mode.start(h.client, h.get("/"), handler));

      assertThat(response.statusCode()).isEqualTo(503);
      assertThat(response.body()).isEqualTo(body);
      assertThat(handler.applied.get()).isEqualTo(1);
      assertThat(h.requests()).isEqualTo(1);
    }
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void aHeldSmallJson503BodyReachesAStreamingHandlerByteForByte(Mode mode) throws Exception {
    String body = "{\"type\": \"https://iana.org/assignments/http-problem-types#"
        + "temporary-reduced-capacity\"}";
    try (Harness h = new Harness()) {
      h.enqueue(503, "Content-Type", "application/problem+json", body);

      HttpResponse<java.io.InputStream> response = h.drive(mode.start(h.client, h.get("/"),
          HttpResponse.BodyHandlers.ofInputStream()));

      try (java.io.InputStream in = response.body()) {
        assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo(body);
      }
    }
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void aJson429OnTheLastAttemptReachesAStreamingHandlerByteForByte(Mode mode) throws Exception {
    String body = "{\"retryAfter\": 1, \"pad\": \"" + "y".repeat(30_000) + "\"}";
    try (Harness h = new Harness(b -> b.maxAttempts(1))) {
      h.enqueue(429, "Content-Type", "application/json", body);

      HttpResponse<java.io.InputStream> response = h.drive(mode.start(h.client, h.get("/"),
          HttpResponse.BodyHandlers.ofInputStream()));

      try (java.io.InputStream in = response.body()) {
        assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo(body);
      }
      assertThat(h.requests()).isEqualTo(1);
    }
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void aClientShutDownRejectsNewRequestsWithoutSendingThem(Mode mode) throws Exception {
    try (Harness h = new Harness()) {
      h.client.shutdown();

      assertThatThrownBy(() -> h.call(mode, h.get("/")))
          .isInstanceOf(java.io.IOException.class).hasMessageContaining("shut down");
      assertThat(h.requests()).isZero();
      assertThat(h.client.isTerminated()).isTrue();
    }
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void aConnectionFailureIsThrownAndReleasesThePermit(Mode mode) throws Exception {
    try (Harness h = new Harness(b -> b.maxAttempts(3))) {
      HttpRequest nowhere = HttpRequest.newBuilder(h.uri("/")).build();
      h.server.close();

      assertThatThrownBy(() -> h.call(mode, nowhere))
          .isInstanceOf(java.io.IOException.class)
          .isNotInstanceOf(RateLimitedException.class);
      assertThat(h.pacer.quota(nowhere.uri()).policies())
          .allSatisfy(p -> assertThat(p.inFlight()).isZero());
    }
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void interruptOrCancelDuringTheDelayBeforeARetrySendsNoRetry(Mode mode) throws Exception {
    try (Harness h = new Harness()) {
      h.enqueue(429, "Retry-After", "20", "slow down");
      h.enqueue(200, "never");

      Mode.Call<String> call = mode.start(h.client, h.get("/"), ofString());
      h.awaitWaiting(mode, 1);
      assertThat(h.requests()).isEqualTo(1);
      call.abort();

      if (mode == Mode.SYNC) {
        assertThatThrownBy(() -> h.drive(call)).isInstanceOf(InterruptedException.class);
      } else {
        assertThat(call.future()).isCancelled();
      }
      h.clock.advance(Duration.ofMinutes(5));
      assertThat(h.requests()).as("requests sent").isEqualTo(1);
    }
  }

  @org.junit.jupiter.api.Test
  void thePushPromiseOverloadOfSendAsyncIsPacedAndRetried() throws Exception {
    // Over HTTP/1.1 no push arrives: what can be observed is that this overload waits for the
    // reset before sending and retries the 429, as the other one does.
    try (Harness h = new Harness()) {
      h.enqueue(200, with(NONE_LEFT_FOR_10S, "first"));
      h.enqueue(429, "Retry-After", "5", "slow down");
      h.enqueue(200, "second");
      h.call(Mode.ASYNC, h.get("/a"));
      HttpResponse.PushPromiseHandler<String> push = (initiating, pushed, acceptor) -> { };

      java.util.concurrent.CompletableFuture<HttpResponse<String>> future =
          h.client.sendAsync(h.get("/b"), ofString(), push);
      h.clock.awaitPendingTasks(1, Harness.REAL_TIMEOUT);
      assertThat(h.requests()).as("sent while waiting").isEqualTo(1);
      HttpResponse<String> response = h.drive(new Mode.Call<>(future, () -> { }, () -> false));

      assertThat(response.body()).isEqualTo("second");
      assertThat(h.requests()).isEqualTo(3);
      assertThat(h.clock.elapsed()).isGreaterThanOrEqualTo(Duration.ofSeconds(15));
    }
  }

  /** A caller's handler that counts how often the client asked it for a subscriber. */
  static final class CountingHandler implements BodyHandler<String> {
    final AtomicInteger applied = new AtomicInteger();

    @Override
    public HttpResponse.BodySubscriber<String> apply(HttpResponse.ResponseInfo info) {
      applied.incrementAndGet();
      return HttpResponse.BodySubscribers.ofString(StandardCharsets.UTF_8);
    }
  }

}
