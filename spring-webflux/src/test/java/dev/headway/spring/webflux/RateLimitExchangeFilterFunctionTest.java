package dev.headway.spring.webflux;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.headway.Jitter;
import dev.headway.Pacer;
import dev.headway.PacingStrategy;
import dev.headway.PolicySnapshot;
import dev.headway.RateLimitedException;
import dev.headway.testing.VirtualClock;
import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.http.MediaType;
import org.springframework.http.client.reactive.ClientHttpConnector;
import org.springframework.http.client.reactive.JdkClientHttpConnector;
import org.springframework.http.client.reactive.ReactorClientHttpConnector;
import org.springframework.web.reactive.function.client.ClientRequest;
import org.springframework.web.reactive.function.client.ClientResponse;
import org.springframework.web.reactive.function.client.support.ClientResponseWrapper;
import org.springframework.web.reactive.function.client.ExchangeFilterFunction;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.util.context.Context;

/**
 * The filter through a real {@link WebClient} on Reactor Netty and on the JDK connector, against
 * a local MockWebServer; every wait passes on a virtual clock, which also completes the pacer's
 * asynchronous permits (a pacer with a virtual clock owns no thread).
 */
@Timeout(60)
class RateLimitExchangeFilterFunctionTest {
  static final String SPENT_POLICY = "\"fixed\";q=5;w=5";

  enum Connector {
    REACTOR_NETTY(ReactorClientHttpConnector::new),
    JDK(JdkClientHttpConnector::new);

    final Supplier<ClientHttpConnector> create;

    Connector(Supplier<ClientHttpConnector> create) {
      this.create = create;
    }
  }

  final MockWebServer server = new MockWebServer();
  final VirtualClock clock = VirtualClock.create();

  @BeforeEach
  void start() throws IOException {
    server.start(InetAddress.getByName("127.0.0.1"), 0);
  }

  @AfterEach
  void stop() throws IOException {
    server.close();
  }

  Pacer pacer(Duration maxWait) {
    return Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .jitter(Jitter.none()).strategy(PacingStrategy.useAllThenWait())
        .maxWait(maxWait).maxAttempts(3).build();
  }

  WebClient client(Connector connector, ExchangeFilterFunction... filters) {
    WebClient.Builder builder = WebClient.builder().clientConnector(connector.create.get());
    for (ExchangeFilterFunction filter : filters) {
      builder.filter(filter);
    }
    return builder.build();
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

  /** Spends the partition: the server says 0 of 5 left for 5 s. */
  void spend(WebClient client) {
    enqueue(200, "first", "RateLimit-Policy", SPENT_POLICY, "RateLimit", "\"fixed\";r=0;t=5");
    assertThat(client.get().uri(uri("/first")).retrieve().bodyToMono(String.class).block())
        .isEqualTo("first");
  }

  static Set<Thread> liveThreads() {
    return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive)
        .collect(Collectors.toSet());
  }

  @ParameterizedTest
  @EnumSource(Connector.class)
  void aThousandSubscriptionsAgainstASpentPartitionUseNoThreadAndGiveEveryPermitBackOnCancel(
      Connector connector) throws Exception {
    Pacer pacer = pacer(Duration.ofHours(2));
    WebClient client = client(connector, RateLimitExchangeFilterFunction.create(pacer));
    spend(client);
    Set<Thread> before = liveThreads();

    List<Disposable> calls = new ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      calls.add(client.get().uri(uri("/waiting/" + i)).retrieve().bodyToMono(String.class)
          .subscribe());
    }
    Set<Thread> during = liveThreads();
    during.removeAll(before);
    long pendingPermits = inFlight(pacer);
    calls.forEach(Disposable::dispose);
    Set<Thread> after = liveThreads();
    after.removeAll(before);

    assertThat(during).as("threads started while 1,000 calls wait").isEmpty();
    assertThat(after).as("threads started by cancelling them").isEmpty();
    assertThat(calls).allMatch(Disposable::isDisposed);
    assertThat(pendingPermits).as("units taken by the waiting calls").isPositive();
    assertThat(inFlight(pacer)).as("units still taken after the cancel").isZero();

    clock.advance(Duration.ofSeconds(6)); // past the reset: a leaked waiter would go out now
    enqueue(200, "next");
    assertThat(client.get().uri(uri("/next")).retrieve().bodyToMono(String.class).block())
        .isEqualTo("next");
    assertThat(server.getRequestCount()).as("the cancelled calls sent nothing").isEqualTo(2);
    assertThat(server.takeRequest().getUrl().encodedPath()).isEqualTo("/first");
    assertThat(server.takeRequest().getUrl().encodedPath()).isEqualTo("/next");
  }

  /** Units held by permits of the partition, granted or reserved for a waiting call. */
  long inFlight(Pacer pacer) {
    return pacer.quota(uri("/")).policies().stream().mapToLong(PolicySnapshot::inFlight).sum();
  }

  @ParameterizedTest
  @EnumSource(Connector.class)
  void aCancelWhileWaitingToRetryDropsTheThrottledResponseAndSendsNothingMore(
      Connector connector) throws Exception {
    Pacer pacer = pacer(Duration.ofSeconds(30));
    WebClient client = client(connector, RateLimitExchangeFilterFunction.create(pacer));
    enqueue(429, "slow down", "Retry-After", "5");
    enqueue(200, "never");

    Disposable call = client.get().uri(uri("/a")).retrieve().bodyToMono(String.class)
        .subscribe();
    assertThat(server.takeRequest(5, TimeUnit.SECONDS)).isNotNull();
    clock.awaitPendingTasks(1, Duration.ofSeconds(5)); // the retry is scheduled
    call.dispose();
    clock.advance(Duration.ofSeconds(10)); // past the retry's delay: a retry would go out now

    // Real time for the network: a retry sent would reach the server well within a second.
    assertThat(server.takeRequest(1, TimeUnit.SECONDS)).as("a retry after the cancel").isNull();
    assertThat(server.getRequestCount()).isEqualTo(1);
    assertThat(inFlight(pacer)).isZero();
  }

  @ParameterizedTest
  @EnumSource(Connector.class)
  void retrieveGetsTheRetriedResponseAfterA429(Connector connector) {
    clock.autoAdvance(true);
    WebClient client = client(connector,
        RateLimitExchangeFilterFunction.create(pacer(Duration.ofSeconds(30))));
    enqueue(429, "slow down", "Retry-After", "2");
    enqueue(200, "ok");

    Mono<String> call = client.get().uri(uri("/a")).retrieve().bodyToMono(String.class);

    assertThat(advancingWhile(call)).isEqualTo("ok");
    assertThat(server.getRequestCount()).isEqualTo(2);
    assertThat(clock.elapsed()).isGreaterThanOrEqualTo(Duration.ofSeconds(2));
  }

  @ParameterizedTest
  @EnumSource(Connector.class)
  void aRetrySendsTheSameJsonBodyWithTheSameContentType(Connector connector) throws Exception {
    clock.autoAdvance(true);
    WebClient client = client(connector,
        RateLimitExchangeFilterFunction.create(pacer(Duration.ofSeconds(30))));
    enqueue(429, "slow down", "Retry-After", "1");
    enqueue(201, "created");

    Mono<String> call = client.post().uri(uri("/items")).contentType(MediaType.APPLICATION_JSON)
        .bodyValue(Map.of("name", "widget")).retrieve().bodyToMono(String.class);

    assertThat(advancingWhile(call)).isEqualTo("created");
    RecordedRequest first = server.takeRequest();
    RecordedRequest retry = server.takeRequest();
    assertThat(retry.getBody().string(UTF_8)).isEqualTo(first.getBody().string(UTF_8))
        .isEqualTo("{\"name\":\"widget\"}");
    assertThat(retry.getHeaders().get("Content-Type")).isEqualTo("application/json");
    assertThat(retry.getHeaders().get("Content-Length"))
        .isEqualTo(first.getHeaders().get("Content-Length"));
  }

  @ParameterizedTest
  @EnumSource(Connector.class)
  void aBodyPastTheRecordLimitIsNotRetriedAndItsThrottledResponseReachesTheCaller(
      Connector connector) {
    clock.autoAdvance(true);
    WebClient client = client(connector,
        RateLimitExchangeFilterFunction.create(pacer(Duration.ofSeconds(30))));
    enqueue(429, "too much", "Retry-After", "1");
    enqueue(201, "never");
    String big = "x".repeat(RecordedBody.MAX_BYTES + 1);

    Mono<Integer> call = client.post().uri(uri("/upload")).bodyValue(big)
        .exchangeToMono(response -> response.releaseBody()
            .thenReturn(response.statusCode().value()));

    assertThat(advancingWhile(call)).isEqualTo(429);
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  @ParameterizedTest
  @EnumSource(Connector.class)
  void theCallersReactorContextReachesTheFiltersAfterIt(Connector connector) throws Exception {
    ExchangeFilterFunction tracing = (request, next) -> Mono.deferContextual(context ->
        next.exchange(ClientRequest.from(request)
            .header("X-Trace", context.getOrDefault("trace", "none")).build()));
    WebClient client = client(connector,
        RateLimitExchangeFilterFunction.create(pacer(Duration.ofSeconds(30))), tracing);
    enqueue(200, "ok");

    String body = client.get().uri(uri("/a")).retrieve().bodyToMono(String.class)
        .contextWrite(Context.of("trace", "abc-123")).block();

    assertThat(body).isEqualTo("ok");
    assertThat(server.takeRequest().getHeaders().get("X-Trace")).isEqualTo("abc-123");
  }

  @ParameterizedTest
  @EnumSource(Connector.class)
  void aWaitPastMaxWaitFailsTheMonoWithRateLimitedException(Connector connector) {
    WebClient client = client(connector, RateLimitExchangeFilterFunction.builder(
        pacer(Duration.ofSeconds(30))).maxWait(Duration.ofSeconds(1)).build());
    spend(client);

    assertThatThrownBy(() -> client.get().uri(uri("/b")).retrieve().bodyToMono(String.class)
        .block()).hasRootCauseInstanceOf(RateLimitedException.class);
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  /**
   * A Spring whose response headers Headway cannot read (a method missing on another Spring
   * line, as {@code HttpHeaders.entrySet} went missing in Spring 7): the caller gets the response
   * as it came, nothing is retried, and the permit goes back.
   */
  @ParameterizedTest
  @EnumSource(Connector.class)
  void aLinkageErrorFromSpringsHeadersNeverFailsTheCall(Connector connector) {
    ExchangeFilterFunction missingMethod = (request, next) -> next.exchange(request)
        .map(response -> new ClientResponseWrapper(response) {
          @Override
          public ClientResponse.Headers headers() {
            throw new NoSuchMethodError("'java.util.Set org.springframework.http.HttpHeaders"
                + ".entrySet()'");
          }
        });
    Pacer pacer = pacer(Duration.ofSeconds(30));
    WebClient client = client(connector, RateLimitExchangeFilterFunction.create(pacer),
        missingMethod);
    enqueue(429, "{\"error\":\"slow down\"}", "Retry-After", "1",
        "Content-Type", "application/json");
    enqueue(200, "never");

    String reply = client.get().uri(uri("/a")).exchangeToMono(response -> response
        .bodyToMono(String.class).map(body -> response.statusCode().value() + " " + body))
        .block();

    assertThat(reply).isEqualTo("429 {\"error\":\"slow down\"}");
    assertThat(server.getRequestCount()).isEqualTo(1);
    assertThat(inFlight(pacer)).isZero();
  }

  @Test
  void theBuilderTakesTheSameOptionsAsTheOtherAdapters() {
    Pacer pacer = pacer(Duration.ofSeconds(30));
    RateLimitExchangeFilterFunction filter = RateLimitExchangeFilterFunction.builder(pacer)
        .maxWait(Duration.ofSeconds(3)).maxAttempts(1).build();

    assertThat(filter.pacer()).isSameAs(pacer);
    assertThat(filter.maxWait()).isEqualTo(Duration.ofSeconds(3));
    assertThat(filter.maxAttempts()).isEqualTo(1);
    assertThat(RateLimitExchangeFilterFunction.create(pacer).maxAttempts()).isEqualTo(3);
    assertThatThrownBy(() -> RateLimitExchangeFilterFunction.builder(pacer).maxAttempts(0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxAttempts");
  }

  /** Blocks on {@code call} while virtual time passes whenever it waits a few real ms. */
  <T> T advancingWhile(Mono<T> call) {
    try {
      return clock.await(call.toFuture());
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }
}
