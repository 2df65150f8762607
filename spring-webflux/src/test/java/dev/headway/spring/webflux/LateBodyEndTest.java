package dev.headway.spring.webflux;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Jitter;
import dev.headway.Pacer;
import dev.headway.PacingStrategy;
import dev.headway.testing.VirtualClock;
import java.net.InetAddress;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.http.client.reactive.ClientHttpConnector;
import org.springframework.http.client.reactive.JdkClientHttpConnector;
import org.springframework.http.client.reactive.ReactorClientHttpConnector;
import org.springframework.web.reactive.function.client.ClientRequest;
import org.springframework.web.reactive.function.client.ClientResponse;
import org.springframework.web.reactive.function.client.ExchangeFilterFunction;
import org.springframework.web.reactive.function.client.ExchangeFunction;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * A throttled body whose bytes have all arrived but whose end the connector signals only after
 * {@link dev.headway.internal.adapter.BodyHints#WAIT}, as a connector does on a machine so busy
 * that its thread is descheduled between the last bytes and the end (seen with the JDK client on
 * a CI run at load 16 on 2 cores: the body's {@code retry_after} was lost and the call retried
 * after 1 s). A filter placed after Headway's passes every byte of the 429's body with its
 * headers and holds back only its end until Headway sends the retry.
 */
@Timeout(60)
class LateBodyEndTest {
  enum Connector {
    REACTOR_NETTY(ReactorClientHttpConnector::new),
    JDK(JdkClientHttpConnector::new);

    final Supplier<ClientHttpConnector> create;

    Connector(Supplier<ClientHttpConnector> create) {
      this.create = create;
    }
  }

  @ParameterizedTest
  @EnumSource(Connector.class)
  void readsTheHintOfABodyWhoseDeclaredLengthArrivedBeforeItsEnd(Connector connector)
      throws Exception {
    VirtualClock clock = VirtualClock.create();
    LateEnd lateEnd = new LateEnd(clock);
    try (MockWebServer server = new MockWebServer()) {
      server.start(InetAddress.getByName("127.0.0.1"), 0);
      server.enqueue(new MockResponse.Builder().code(429)
          .addHeader("Content-Type", "application/json").body("{\"retry_after\": 3}").build());
      server.enqueue(new MockResponse.Builder().code(200).body("ok").build());
      Pacer pacer = clock.pacer().jitter(Jitter.none()).strategy(PacingStrategy.useAllThenWait())
          .maxWait(Duration.ofSeconds(30)).maxAttempts(3).build();
      WebClient client = WebClient.builder().clientConnector(connector.create.get())
          .filter(RateLimitExchangeFilterFunction.create(pacer)).filter(lateEnd).build();

      String body = clock.await(
          client.get().uri(server.url("/").uri()).retrieve().bodyToMono(String.class).toFuture());

      assertThat(body).isEqualTo("ok");
      assertThat(server.getRequestCount()).isEqualTo(2);
      assertThat(lateEnd.lateEnds.get()).as("429 bodies whose end was held back").isEqualTo(1);
      assertThat(lateEnd.retriedAfter.get()).as("the retry, after the call began")
          .isBetween(Duration.ofSeconds(3), Duration.ofSeconds(30));
    }
  }

  /**
   * Between Headway and the connector: a 429's body buffers go to Headway as they come; its end
   * waits until Headway sends the next request, which it can only do once it decided about the
   * 429 (from its body, or at the end of {@code BodyHints.WAIT} without it). No timer of the
   * test's own: a 429 Headway never decides about leaves the call unfinished, which the test
   * reports after its real-time bound.
   */
  private static final class LateEnd implements ExchangeFilterFunction {
    private final VirtualClock clock;
    final AtomicInteger lateEnds = new AtomicInteger();
    final AtomicReference<Duration> retriedAfter = new AtomicReference<>();
    private final AtomicInteger requests = new AtomicInteger();
    private final Sinks.Empty<Void> retried = Sinks.empty();

    LateEnd(VirtualClock clock) {
      this.clock = clock;
    }

    @Override
    public Mono<ClientResponse> filter(ClientRequest request, ExchangeFunction next) {
      if (requests.incrementAndGet() == 2) {
        retriedAfter.set(clock.elapsed());
        retried.tryEmitEmpty();
      }
      // The 429 goes on only once its whole body is here (the connector's own end), then with
      // every byte at once and the end held back: whether the connector hands the bytes over
      // within the body wait plays no part (on a busy machine it may not).
      return next.exchange(request).flatMap(response -> response.statusCode().value() != 429
          ? Mono.just(response)
          : response.bodyToFlux(DataBuffer.class).collectList().map(buffers -> response.mutate()
              .body(Flux.fromIterable(buffers)
                  .doOnComplete(lateEnds::incrementAndGet)
                  .concatWith(retried.asMono().then(Mono.<DataBuffer>empty()))).build()));
    }
  }
}
