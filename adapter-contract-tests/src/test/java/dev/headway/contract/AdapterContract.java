package dev.headway.contract;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.headway.Jitter;
import dev.headway.Pacer;
import dev.headway.PacingStrategy;
import dev.headway.RateLimitedException;
import dev.headway.RetryBudget;
import dev.headway.SignalParser;
import dev.headway.dialect.Dialect;
import dev.headway.dialect.DialectContext;
import dev.headway.dialect.SignalSink;
import dev.headway.testing.VirtualClock;
import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.UnaryOperator;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What every adapter promises, as a user observes it through the client: what was sent, when,
 * how often, and what the caller got or caught. One subclass per client supplies
 * {@link #caller(Pacer)}; every wait passes on a virtual clock.
 *
 * <p>A new adapter passes this suite by adding a subclass. Where a client cannot do what a test
 * asks (a body that can only be sent once does not exist in Spring's interceptor API), its
 * subclass overrides that test with what the client does instead, and says why.
 */
@Timeout(30)
abstract class AdapterContract {
  static final Duration MAX_WAIT = Duration.ofSeconds(10);
  static final String SPENT_POLICY = "\"fixed\";q=5;w=5";

  final MockWebServer server = new MockWebServer();
  final VirtualClock clock = VirtualClock.create();
  private volatile boolean timePasses;

  /** One call through the client under test, as its user would make it. */
  interface Caller {
    /**
     * Sends {@code method} to {@code uri} with {@code body} (none if {@code null}), a body that
     * can be read only once if {@code oneShot}, and returns what the caller got.
     *
     * @throws Exception what the client's user catches, unwrapped by {@link #cause} in the tests
     */
    Reply send(String method, URI uri, @Nullable String body, boolean oneShot) throws Exception;

    /** Returns what a caller of this client catches for an interrupted wait. */
    Class<? extends Exception> interrupted();

    /** Returns whether the thread's interrupt flag is set after {@link #interrupted()}. */
    boolean interruptFlagKept();

    /**
     * Returns the failure Headway or the client raised inside {@code thrown}, the wrapper the
     * client adds removed (Spring's {@code ResourceAccessException}, a future's
     * {@code ExecutionException}).
     */
    default Throwable cause(Throwable thrown) {
      return thrown;
    }
  }

  /** What the caller got: the final response's status and its whole body. */
  record Reply(int status, String body) {}

  /** Returns a caller of the client under test, with Headway pacing it with {@code pacer}. */
  abstract Caller caller(Pacer pacer);

  @BeforeEach
  void start() throws IOException {
    server.start(InetAddress.getByName("127.0.0.1"), 0);
  }

  @AfterEach
  void stop() throws IOException {
    server.close();
  }

  Pacer pacer() {
    return pacer(b -> b);
  }

  Pacer pacer(UnaryOperator<Pacer.Builder> settings) {
    return settings.apply(Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .jitter(Jitter.none()).strategy(PacingStrategy.useAllThenWait())
        .maxWait(MAX_WAIT).maxAttempts(3)).build();
  }

  URI uri(String path) {
    return server.url(path).uri();
  }

  void enqueue(int code, String body, String... headers) {
    MockResponse.Builder builder = new MockResponse.Builder().code(code).body(body);
    for (int i = 0; i + 1 < headers.length; i += 2) {
      builder.addHeader(headers[i], headers[i + 1]);
    }
    server.enqueue(builder.build());
  }

  Reply get(Caller caller, String path) throws Exception {
    return call(caller, "GET", uri(path), null, false);
  }

  Reply post(Caller caller, String path, String body, boolean oneShot) throws Exception {
    return call(caller, "POST", uri(path), body, oneShot);
  }

  /**
   * Makes one call through {@code caller} on a thread of its own while this thread lets virtual
   * time pass: whenever the call has not completed for a few real milliseconds (HTTP exchanges
   * happen in real time), the clock moves to its next event, the deadline of a sleeping caller
   * or of a scheduled task (an asynchronous wait). Only in tests that let time pass
   * ({@link #letTimePass}); others see the clock stand still. The interrupt flag goes to the
   * calling thread and back, as if the call ran on this thread.
   */
  Reply call(Caller caller, String method, URI uri, @Nullable String body, boolean oneShot)
      throws Exception {
    boolean interrupt = Thread.interrupted();
    CompletableFuture<Reply> result = new CompletableFuture<>();
    AtomicBoolean interruptedAfter = new AtomicBoolean();
    Thread thread = new Thread(() -> {
      if (interrupt) {
        Thread.currentThread().interrupt();
      }
      try {
        result.complete(caller.send(method, uri, body, oneShot));
      } catch (Throwable t) {
        result.completeExceptionally(t);
      } finally {
        interruptedAfter.set(Thread.currentThread().isInterrupted());
      }
    }, "contract-caller");
    thread.setDaemon(true);
    thread.start();
    while (!result.isDone()) {
      try {
        result.get(5, TimeUnit.MILLISECONDS);
      } catch (TimeoutException e) {
        if (timePasses) {
          clock.advanceToNextEvent();
        }
      } catch (ExecutionException e) {
        // Done: the loop ends.
      }
    }
    thread.join();
    if (interruptedAfter.get()) {
      Thread.currentThread().interrupt();
    }
    try {
      return result.get();
    } catch (ExecutionException e) {
      if (e.getCause() instanceof Exception cause) {
        throw cause;
      }
      throw (Error) e.getCause();
    }
  }

  /** Lets virtual time pass while a call waits, as it would in real time. */
  void letTimePass() {
    clock.autoAdvance(true);
    timePasses = true;
  }

  @Test
  void retriesA429AfterItsRetryAfter() throws Exception {
    letTimePass();
    enqueue(429, "slow down", "Retry-After", "2");
    enqueue(200, "ok");

    Reply reply = get(caller(pacer()), "/items");

    assertThat(reply).isEqualTo(new Reply(200, "ok"));
    assertThat(server.getRequestCount()).isEqualTo(2);
    assertThat(clock.elapsed()).isGreaterThanOrEqualTo(Duration.ofSeconds(2));
  }

  @Test
  void stopsAtMaxAttemptsAndReturnsTheLast429WithItsBody() throws Exception {
    letTimePass();
    enqueue(429, "first", "Retry-After", "1");
    enqueue(429, "second", "Retry-After", "1");
    enqueue(429, "third", "Retry-After", "1");
    enqueue(200, "never");

    Reply reply = get(caller(pacer()), "/items");

    assertThat(reply).isEqualTo(new Reply(429, "third"));
    assertThat(server.getRequestCount()).isEqualTo(3);
  }

  @Test
  void aRetryPastTheBudgetReturnsThe429WithItsBodyAndSendsNothingMore() throws Exception {
    enqueue(429, "{\"error\":\"slow down\"}", "Retry-After", "60",
        "Content-Type", "application/json");
    Pacer pacer = pacer();

    Reply reply = get(caller(pacer), "/a");

    assertThat(reply).isEqualTo(new Reply(429, "{\"error\":\"slow down\"}"));
    assertThat(server.getRequestCount()).isEqualTo(1);
    assertThat(pacer.quota(uri("/")).heldFor()).isPresent();
    assertThat(clock.elapsed()).isZero();
  }

  @Test
  void waitsForTheResetOfASpentQuotaBeforeSending() throws Exception {
    letTimePass();
    enqueue(200, "first", "RateLimit-Policy", SPENT_POLICY, "RateLimit", "\"fixed\";r=0;t=5");
    enqueue(200, "second");
    Caller caller = caller(pacer());

    assertThat(get(caller, "/a")).isEqualTo(new Reply(200, "first"));
    assertThat(clock.elapsed()).isLessThan(Duration.ofSeconds(1));
    assertThat(get(caller, "/b")).isEqualTo(new Reply(200, "second"));

    assertThat(clock.elapsed()).isGreaterThanOrEqualTo(Duration.ofSeconds(5));
    assertThat(server.getRequestCount()).isEqualTo(2);
  }

  @Test
  void aWaitPastMaxWaitFailsAtOnceWithRateLimitedExceptionAndSendsNothing() throws Exception {
    enqueue(200, "first", "RateLimit-Policy", "\"fixed\";q=5;w=60",
        "RateLimit", "\"fixed\";r=0;t=60");
    Caller caller = caller(pacer());
    get(caller, "/a");

    Throwable thrown = catchThrowable(() -> get(caller, "/b"));

    assertThat(caller.cause(thrown)).isInstanceOf(RateLimitedException.class);
    assertThat(server.getRequestCount()).isEqualTo(1);
    assertThat(clock.elapsed()).isZero();
  }

  @Test
  void aClosedPacerFailsTheCallWithAnIoExceptionAndSendsNothing() {
    Pacer pacer = pacer();
    Caller caller = caller(pacer);
    pacer.close();

    Throwable thrown = catchThrowable(() -> get(caller, "/a"));

    assertThat(caller.cause(thrown)).isInstanceOf(IOException.class)
        .hasMessageContaining("open Pacer");
    assertThat(server.getRequestCount()).isZero();
  }

  @Test
  void aThrowingPartitionResolverSendsTheCallAsItWouldGoWithoutHeadway() throws Exception {
    enqueue(200, "ok");
    Caller caller = caller(pacer(b -> b.partitionKeyResolver(request -> {
      throw new IllegalStateException("a bug in the user's resolver");
    })));

    assertThat(get(caller, "/a")).isEqualTo(new Reply(200, "ok"));
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  @Test
  void aThrowingCostFunctionNeverBreaksTheCall() throws Exception {
    enqueue(200, "ok");
    Caller caller = caller(pacer(b -> b.cost(request -> {
      throw new NoClassDefFoundError("com/example/MissingAtRunTime");
    })));

    assertThat(get(caller, "/a")).isEqualTo(new Reply(200, "ok"));
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  /**
   * A dialect compiled against a class the application lacks (a body dialect with an old
   * Jackson) fails on every throttled response: that response's signals are lost, so the caller
   * gets the 429 whole, as it would without Headway, and the permit goes back.
   */
  @Test
  void aLinkageErrorInADialectGivesTheCallerTheResponseAsItCame() throws Exception {
    letTimePass();
    enqueue(429, "{\"error\":\"slow down\"}", "Retry-After", "1",
        "Content-Type", "application/json");
    enqueue(200, "ok");
    Caller caller = caller(pacer(b -> b.signalParser(SignalParser.builder()
        .addDialect(new Dialect() {
          @Override
          public String name() {
            return "missing-class";
          }

          @Override
          public void read(DialectContext context, SignalSink sink) {
            if (context.status() != 200) {
              throw new NoClassDefFoundError("com/fasterxml/jackson/core/StreamReadConstraints");
            }
          }
        }).build())));

    assertThat(get(caller, "/a")).isEqualTo(new Reply(429, "{\"error\":\"slow down\"}"));
    assertThat(get(caller, "/b")).isEqualTo(new Reply(200, "ok"));
    assertThat(server.getRequestCount()).isEqualTo(2);
  }

  @Test
  void aThrowingListenerNeverBreaksACallNorItsRetry() throws Exception {
    letTimePass();
    enqueue(429, "slow down", "Retry-After", "1");
    enqueue(200, "ok");
    Caller caller = caller(pacer(b -> b.listener(event -> {
      throw new IllegalStateException("a bug in the user's listener");
    })));

    assertThat(get(caller, "/a")).isEqualTo(new Reply(200, "ok"));
    assertThat(server.getRequestCount()).isEqualTo(2);
  }

  @Test
  void aJsonBodyHintDecidesTheRetryDelay() throws Exception {
    letTimePass();
    enqueue(429, "{\"retry_after\": 3}", "Content-Type", "application/json");
    enqueue(200, "ok");

    Reply reply = get(caller(pacer()), "/a");

    assertThat(reply).isEqualTo(new Reply(200, "ok"));
    assertThat(server.getRequestCount()).isEqualTo(2);
    assertThat(clock.elapsed()).isGreaterThanOrEqualTo(Duration.ofSeconds(3));
  }

  @Test
  void aBodyHintIsReadAndTheCallerStillGetsTheWholeBody() throws Exception {
    String body = "{\"retry_after\": 60, \"detail\": \"" + "x".repeat(10_000) + "\"}";
    enqueue(429, body, "Content-Type", "application/json");
    Pacer pacer = pacer();

    Reply reply = get(caller(pacer), "/a");

    assertThat(reply.status()).isEqualTo(429);
    assertThat(reply.body()).isEqualTo(body);
    assertThat(pacer.quota(uri("/")).heldFor()).isPresent(); // only the body said 60 s
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  @Test
  void aThrottledBodyPastTheKeepLimitIsDroppedForTheRetryAndTheLastReachesTheCallerWhole()
      throws Exception {
    letTimePass();
    String first = "a".repeat(200_000);
    String last = "b".repeat(200_000);
    enqueue(429, first, "Retry-After", "1");
    enqueue(429, last, "Retry-After", "1");
    Caller caller = caller(pacer(b -> b.maxAttempts(2)));

    Reply reply = get(caller, "/a");

    assertThat(reply.status()).isEqualTo(429);
    assertThat(reply.body()).hasSize(last.length()).isEqualTo(last);
    assertThat(server.getRequestCount()).isEqualTo(2);
  }

  @Test
  void aPostIsRetriedAfterA429WithTheSameBody() throws Exception {
    assertRetriedWithTheSameBody(false);
  }

  /** Asserts that a throttled POST whose body is {@code oneShot} or not is sent again. */
  void assertRetriedWithTheSameBody(boolean oneShot) throws Exception {
    letTimePass();
    enqueue(429, "slow down", "Retry-After", "1");
    enqueue(201, "created");

    Reply reply = post(caller(pacer()), "/items", "payload", oneShot);

    assertThat(reply).isEqualTo(new Reply(201, "created"));
    assertThat(server.getRequestCount()).isEqualTo(2);
    assertThat(bodyOf(server.takeRequest())).isEqualTo("payload");
    assertThat(bodyOf(server.takeRequest())).isEqualTo("payload");
    assertThat(clock.elapsed()).isGreaterThanOrEqualTo(Duration.ofSeconds(1));
  }

  @Test
  void aPostIsNotRetriedAfterA503ThatTheServerMayHaveProcessed() throws Exception {
    letTimePass();
    enqueue(503, "busy", "Retry-After", "1");
    enqueue(201, "created");

    Reply reply = post(caller(pacer()), "/items", "payload", false);

    assertThat(reply).isEqualTo(new Reply(503, "busy"));
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  @Test
  void aBodyThatCanBeReadOnlyOnceIsNeverSentTwice() throws Exception {
    letTimePass();
    enqueue(429, "slow down", "Retry-After", "1");
    enqueue(201, "created");

    Reply reply = post(caller(pacer()), "/items", "payload", true);

    assertThat(reply).isEqualTo(new Reply(429, "slow down"));
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  @Test
  void anInterruptEndsTheWaitWithTheClientsOwnExceptionAndSendsNothing() throws Exception {
    enqueue(200, "first", "RateLimit-Policy", SPENT_POLICY, "RateLimit", "\"fixed\";r=0;t=5");
    enqueue(200, "never");
    Caller caller = caller(pacer());
    get(caller, "/a");

    Thread.currentThread().interrupt();
    Throwable thrown = catchThrowable(() -> get(caller, "/b"));
    boolean flag = Thread.interrupted(); // reads and clears it for the next test

    assertThat(caller.cause(thrown)).isInstanceOf(caller.interrupted());
    assertThat(flag).isEqualTo(caller.interruptFlagKept());
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  @Test
  void theQuotaLeftIsVisibleAfterAResponse() throws Exception {
    enqueue(200, "ok", "RateLimit-Policy", "\"hourly\";q=100;w=3600",
        "RateLimit", "\"hourly\";r=42;t=1800");
    Pacer pacer = pacer();

    get(caller(pacer), "/a");

    assertThat(pacer.quota(uri("/")).policy("hourly")).hasValueSatisfying(policy ->
        assertThat(policy.remaining()).hasValue(42));
  }

  // ---------------------------------------------------------------- the server's verdict

  @Test
  void shouldRetryFalseVetoesTheRetryOfA429() throws Exception {
    letTimePass();
    enqueue(429, "quota gone", "Retry-After", "1", "x-should-retry", "false");
    enqueue(200, "never");

    Reply reply = get(caller(pacer()), "/a");

    assertThat(reply).isEqualTo(new Reply(429, "quota gone"));
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  @Test
  void aNegativeGrpcPushbackVetoesTheRetryOfA503() throws Exception {
    letTimePass();
    enqueue(503, "unavailable", "Retry-After", "1", "grpc-retry-pushback-ms", "-1");
    enqueue(200, "never");

    Reply reply = get(caller(pacer()), "/a");

    assertThat(reply).isEqualTo(new Reply(503, "unavailable"));
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  @Test
  void shouldRetryTrueRetriesAnErrorHeadwayWouldNotRetryByItself() throws Exception {
    letTimePass();
    enqueue(529, "overloaded", "x-should-retry", "true");
    enqueue(200, "ok");

    Reply reply = get(caller(pacer()), "/a");

    assertThat(reply).isEqualTo(new Reply(200, "ok"));
    assertThat(server.getRequestCount()).isEqualTo(2);
  }

  @Test
  void stripeShouldRetryTrueRetriesAPostAfterA409WithTheSameBody() throws Exception {
    letTimePass();
    enqueue(409, "in progress", "Stripe-Should-Retry", "true");
    enqueue(201, "created");

    Reply reply = post(caller(pacer()), "/charges", "payload", false);

    assertThat(reply).isEqualTo(new Reply(201, "created"));
    assertThat(server.getRequestCount()).isEqualTo(2);
    assertThat(bodyOf(server.takeRequest())).isEqualTo("payload");
    assertThat(bodyOf(server.takeRequest())).isEqualTo("payload");
  }

  @Test
  void shouldRetryTrueStaysWithinMaxAttemptsAndMaxWait() throws Exception {
    letTimePass();
    for (int i = 1; i <= 4; i++) {
      enqueue(500, "failed " + i, "x-should-retry", "true");
    }

    assertThat(get(caller(pacer()), "/a")).isEqualTo(new Reply(500, "failed 3"));
    assertThat(server.getRequestCount()).isEqualTo(3); // maxAttempts 3

    enqueue(500, "later", "x-should-retry", "true", "Retry-After", "60");
    assertThat(get(caller(pacer()), "/b")).isEqualTo(new Reply(500, "later"));
    assertThat(server.getRequestCount()).isEqualTo(5); // 60 s is past maxWait: no retry
  }

  // ---------------------------------------------------------------- the retry budget

  /**
   * 64 callers against a server that answers every request with a 503 and {@code Retry-After}:
   * without a budget each would try {@code maxAttempts} times; with one, the retries all of them
   * send together are at most the budget's. A retry is a request beyond each answered call's
   * first (a call refused before sending sends nothing).
   */
  @Test
  void sixtyFourCallersAgainstAFailingServerSendAtMostTheRetryBudgetsRetries() throws Exception {
    letTimePass();
    server.setDispatcher(new Dispatcher() {
      @Override
      public MockResponse dispatch(RecordedRequest request) {
        return new MockResponse.Builder().code(503).body("down")
            .addHeader("Retry-After", "1").build();
      }
    });
    Caller caller = caller(pacer(b -> b.retryBudget(new RetryBudget(10, 0.1))
        .maxWait(Duration.ofMinutes(5))));

    List<Object> outcomes = callConcurrently(caller, 64, "/items");

    long answered = outcomes.stream().filter(o -> o instanceof Reply).count();
    assertThat(outcomes).allSatisfy(o -> assertThat(o).isInstanceOfAny(Reply.class,
        RateLimitedException.class));
    assertThat(outcomes).filteredOn(o -> o instanceof Reply)
        .allSatisfy(o -> assertThat(o).isEqualTo(new Reply(503, "down")));
    assertThat(answered).isPositive();
    assertThat(server.getRequestCount() - answered).as("retries sent").isBetween(1L, 10L);
  }

  /**
   * Makes {@code count} calls to {@code path} at once, each on a thread of its own, while this
   * thread lets virtual time pass; returns what each caller got: its {@link Reply}, or the
   * failure it caught (unwrapped by {@link Caller#cause}).
   */
  List<Object> callConcurrently(Caller caller, int count, String path) throws Exception {
    List<Object> outcomes = new CopyOnWriteArrayList<>();
    List<Thread> threads = new ArrayList<>();
    AtomicInteger done = new AtomicInteger();
    for (int i = 0; i < count; i++) {
      Thread thread = new Thread(() -> {
        try {
          outcomes.add(caller.send("GET", uri(path), null, false));
        } catch (Throwable t) {
          outcomes.add(caller.cause(t));
        } finally {
          done.incrementAndGet();
        }
      }, "contract-caller-" + i);
      thread.setDaemon(true);
      threads.add(thread);
    }
    threads.forEach(Thread::start);
    while (done.get() < count) {
      if (!waitForCallers(threads)) {
        clock.advanceToNextEvent(); // an asynchronous wait is a scheduled task
      }
    }
    for (Thread thread : threads) {
      thread.join();
    }
    return outcomes;
  }

  /** Waits a few real milliseconds for the callers; returns whether all ended meanwhile. */
  private static boolean waitForCallers(List<Thread> threads) throws InterruptedException {
    for (Thread thread : threads) {
      thread.join(5);
      if (thread.isAlive()) {
        return false;
      }
    }
    return true;
  }

  // ---------------------------------------------------------------- never early

  /**
   * Records when each request arrived, on the virtual clock, and answers the first request to
   * each path with a 429 built by {@code throttle} (given the instant it answers), the next with
   * a 200.
   */
  Map<String, List<Instant>> recordArrivals(
      java.util.function.BiFunction<String, Instant, MockResponse> throttle) {
    Map<String, List<Instant>> arrivals = new ConcurrentHashMap<>();
    server.setDispatcher(new Dispatcher() {
      @Override
      public MockResponse dispatch(RecordedRequest request) {
        Instant now = clock.instant();
        String path = request.getUrl().encodedPath();
        List<Instant> seen = arrivals.computeIfAbsent(path, k -> new CopyOnWriteArrayList<>());
        seen.add(now);
        return seen.size() == 1 ? throttle.apply(path, now)
            : new MockResponse.Builder().code(200).body("ok").build();
      }
    });
    return arrivals;
  }

  /**
   * A retry never leaves before the instant the server named, whatever the jitter and however
   * the clock's fractions fall: {@code Retry-After} in seconds, {@code retry-after-ms}, and an
   * HTTP-date read against the response's {@code Date} (whole seconds, the clock between them).
   */
  @Test
  void aRetryIsNeverSentBeforeTheInstantTheServerNamed() throws Exception {
    letTimePass();
    clock.advance(Duration.ofMillis(700)); // the wall clock between two whole seconds
    DateTimeFormatter http = DateTimeFormatter.RFC_1123_DATE_TIME.withZone(ZoneOffset.UTC);
    Map<String, Instant> named = new ConcurrentHashMap<>();
    Map<String, List<Instant>> arrivals = recordArrivals((path, now) -> {
      MockResponse.Builder throttled = new MockResponse.Builder().code(429).body("wait");
      switch (path.substring(0, path.indexOf('-'))) {
        case "/seconds" -> {
          named.put(path, now.plusSeconds(2));
          throttled.addHeader("Retry-After", "2");
        }
        case "/millis" -> {
          named.put(path, now.plusMillis(1501));
          throttled.addHeader("retry-after-ms", "1501");
        }
        default -> {
          Instant date = now.truncatedTo(ChronoUnit.SECONDS);
          named.put(path, date.plusSeconds(3));
          throttled.addHeader("Date", http.format(date))
              .addHeader("Retry-After", http.format(date.plusSeconds(3)));
        }
      }
      return throttled.build();
    });

    // Without jitter the retry is due at the named instant itself: a wait one nanosecond short
    // sends it early. With full jitter, the jitter only ever adds.
    for (String path : List.of("/seconds-none", "/millis-none", "/date-none", "/seconds-full",
        "/millis-full", "/date-full")) {
      Jitter jitter = path.endsWith("-none") ? Jitter.none() : Jitter.full();
      Pacer pacer = pacer(b -> b.jitter(jitter).maxJitter(Duration.ofSeconds(1))
          .jitterSeed(path.hashCode()));
      assertThat(get(caller(pacer), path)).isEqualTo(new Reply(200, "ok"));
      assertThat(arrivals.get(path)).hasSize(2);
      assertThat(arrivals.get(path).get(1)).as(path).isAfterOrEqualTo(named.get(path));
    }
  }

  static String bodyOf(RecordedRequest request) {
    return request.getBody() == null ? "" : request.getBody().string(UTF_8);
  }
}
