package dev.headway.spring.webflux;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Jitter;
import dev.headway.Pacer;
import dev.headway.PacingStrategy;
import dev.headway.testing.VirtualClock;
import java.io.IOException;
import java.net.InetAddress;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.http.client.reactive.ReactorClientHttpConnector;
import org.springframework.web.reactive.function.client.ExchangeFilterFunction;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.Disposable;
import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.ConnectionProvider;

/**
 * A call cancelled (a {@code dispose}, a Reactor {@code timeout}) while Headway reads ahead the
 * body of a JSON 429, 503 or 403 gives its connection back, as it does without Headway: the
 * body read ahead is dropped, not left subscribed. Reactor Netty with a pool of one connection;
 * the cancel comes as soon as the body is subscribed to, well within the read-ahead's wait
 * ({@code BodyHints.WAIT}, 100 ms real time), while the body is 20 s away. Pacing time is
 * virtual.
 */
@Timeout(60)
class CancelDuringReadAheadTest {
  private final MockWebServer server = new MockWebServer();
  private final VirtualClock clock = VirtualClock.create().autoAdvance(true);
  private final ConnectionProvider pool = ConnectionProvider.builder("one")
      .maxConnections(1).pendingAcquireTimeout(Duration.ofSeconds(2)).build();

  @BeforeEach
  void start() throws IOException {
    server.start(InetAddress.getByName("127.0.0.1"), 0);
    // A JSON 403 has its body read ahead for a hint; this one holds nothing back once cancelled.
    server.enqueue(new MockResponse.Builder().code(403)
        .addHeader("Content-Type", "application/json")
        .body("{\"message\": \"forbidden\"}").bodyDelay(20, TimeUnit.SECONDS).build());
    server.enqueue(new MockResponse.Builder().code(200).body("ok").build());
  }

  @AfterEach
  void stop() throws IOException {
    pool.disposeLater().block(Duration.ofSeconds(5));
    server.close();
  }

  /**
   * Failed before {@code WebClientExchange.readAhead} dropped the body it reads ahead when the
   * call is cancelled first: the pool's only connection stayed taken by the body nobody would
   * read, and the second call failed with "Pool#acquire(Duration) has been pending for more than
   * the configured timeout of 2000ms".
   */
  @Test
  void aCallCancelledWhileItsBodyIsReadAheadGivesItsConnectionBack() throws Exception {
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .jitter(Jitter.none()).strategy(PacingStrategy.useAllThenWait())
        .maxWait(Duration.ofSeconds(60)).build();

    assertThat(cancelAtTheBodyThenCallAgain(RateLimitExchangeFilterFunction.create(pacer)))
        .isEqualTo("ok");
    assertThat(server.getRequestCount()).isEqualTo(2);
    assertThat(pacer.quota(server.url("/").uri()).policies())
        .allSatisfy(policy -> assertThat(policy.inFlight()).isZero());
  }

  /** What the test above compares with: the same client without Headway. */
  @Test
  void withoutHeadwayTheCancelledCallGivesItsConnectionBack() throws Exception {
    assertThat(cancelAtTheBodyThenCallAgain((request, next) -> next.exchange(request)))
        .isEqualTo("ok");
    assertThat(server.getRequestCount()).isEqualTo(2);
  }

  /**
   * Sends a call through {@code filter}, cancels it as soon as its response's body is subscribed to
   * (by Headway's read-ahead, or by the caller without Headway), then
   * returns what a second call gets: it needs the pool's only connection.
   */
  private String cancelAtTheBodyThenCallAgain(ExchangeFilterFunction filter)
      throws InterruptedException {
    CountDownLatch bodyAsked = new CountDownLatch(1);
    WebClient client = WebClient.builder()
        .clientConnector(new ReactorClientHttpConnector(HttpClient.create(pool)))
        .filter(filter)
        .filter((request, next) -> next.exchange(request)
            .map(response -> response.mutate()
                .body(body -> body.doOnSubscribe(subscription -> bodyAsked.countDown()))
                .build()))
        .build();

    Disposable call = client.get().uri(server.url("/a").uri()).retrieve()
        .bodyToMono(String.class).subscribe();
    assertThat(bodyAsked.await(10, TimeUnit.SECONDS)).isTrue();
    call.dispose();

    return client.get().uri(server.url("/b").uri()).retrieve().bodyToMono(String.class)
        .block(Duration.ofSeconds(10));
  }
}
