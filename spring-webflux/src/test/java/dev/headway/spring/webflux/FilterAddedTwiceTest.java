package dev.headway.spring.webflux;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.headway.Jitter;
import dev.headway.Pacer;
import dev.headway.PacingStrategy;
import dev.headway.RateLimitedException;
import dev.headway.testing.VirtualClock;
import java.io.IOException;
import java.net.InetAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.http.HttpHeaders;
import org.springframework.http.ResponseEntity;
import org.springframework.web.reactive.function.client.ClientRequest;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Mono;

/**
 * The filter added twice to one {@code WebClient} (the Spring Boot starter's customizer adds it to
 * Boot's {@code WebClient.Builder}, and the application adds its own too): each request is paced
 * once, as with one filter. Time is virtual.
 */
@Timeout(30)
class FilterAddedTwiceTest {
  private final MockWebServer server = new MockWebServer();
  private final VirtualClock clock = VirtualClock.create().autoAdvance(true);
  private Pacer pacer;

  @BeforeEach
  void start() throws IOException {
    server.start(InetAddress.getByName("127.0.0.1"), 0);
    pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .jitter(Jitter.none()).strategy(PacingStrategy.useAllThenWait())
        .maxWait(Duration.ofSeconds(10)).maxAttempts(3).build();
  }

  @AfterEach
  void stop() throws IOException {
    server.close();
  }

  private WebClient twice() {
    return WebClient.builder()
        .filter(RateLimitExchangeFilterFunction.create(pacer))
        .filter(RateLimitExchangeFilterFunction.create(pacer))
        .build();
  }

  /** Before: the server saw 9 requests, the inner filter's 3 for each of the outer one's 3. */
  @Test
  void aServerThatAnswers429EveryTimeSeesMaxAttemptsRequests() {
    for (int i = 0; i < 12; i++) {
      server.enqueue(new MockResponse.Builder().code(429).addHeader("Retry-After", "1")
          .body("slow down").build());
    }

    ResponseEntity<String> reply = advancingWhile(twice().get().uri(server.url("/a").uri())
        .retrieve().onStatus(status -> true, response -> Mono.empty()).toEntity(String.class));

    assertThat(reply.getStatusCode().value()).isEqualTo(429);
    assertThat(server.getRequestCount()).isEqualTo(3);
  }

  /**
   * Before: each request took two permits, and the last one the server allowed failed with
   * RateLimitedException ("would have to wait 60 s").
   */
  @Test
  void theLastRequestAWindowAllowsGoesAtOnce() {
    server.enqueue(new MockResponse.Builder().code(200).body("first")
        .addHeader("RateLimit-Policy", "\"fixed\";q=2;w=60")
        .addHeader("RateLimit", "\"fixed\";r=1;t=60").build());
    server.enqueue(new MockResponse.Builder().code(200).body("second").build());
    WebClient client = twice();
    client.get().uri(server.url("/a").uri()).retrieve().bodyToMono(String.class)
        .block(Duration.ofSeconds(10));

    String second = client.get().uri(server.url("/b").uri()).retrieve().bodyToMono(String.class)
        .block(Duration.ofSeconds(10));

    assertThat(second).isEqualTo("second");
    assertThat(clock.elapsed()).isLessThan(Duration.ofSeconds(1));
    assertThat(pacer.partitions()).allSatisfy(quota -> assertThat(quota.policies())
        .allSatisfy(policy -> assertThat(policy.inFlight()).isZero()));
  }

  /**
   * A request of another client sent from within a paced one's chain (a filter after Headway's
   * fetching a token) is paced on its own: the token server's spent window holds its second token
   * request back.
   */
  @Test
  void aRequestSentFromWithinThePacedChainIsPacedItself() throws Exception {
    try (MockWebServer tokens = new MockWebServer()) {
      tokens.start(InetAddress.getByName("127.0.0.1"), 0);
      tokens.enqueue(new MockResponse.Builder().code(200).body("token-1")
          .addHeader("RateLimit-Policy", "\"fixed\";q=1;w=60")
          .addHeader("RateLimit", "\"fixed\";r=0;t=60").build());
      tokens.enqueue(new MockResponse.Builder().code(200).body("never").build());
      WebClient tokenClient = WebClient.builder()
          .filter(RateLimitExchangeFilterFunction.create(pacer)).build();
      WebClient client = WebClient.builder()
          .filter(RateLimitExchangeFilterFunction.create(pacer))
          .filter((request, next) -> tokenClient.get().uri(tokens.url("/token").uri())
              .retrieve().bodyToMono(String.class)
              .flatMap(token -> next.exchange(ClientRequest.from(request)
                  .header(HttpHeaders.AUTHORIZATION, "Bearer " + token).build())))
          .build();
      server.enqueue(new MockResponse.Builder().code(200).body("first").build());

      assertThat(client.get().uri(server.url("/a").uri()).retrieve().bodyToMono(String.class)
          .block(Duration.ofSeconds(10))).isEqualTo("first");
      Throwable second = catchThrowable(() -> client.get().uri(server.url("/b").uri())
          .retrieve().bodyToMono(String.class).block(Duration.ofSeconds(10)));

      assertThat(second).hasRootCauseInstanceOf(RateLimitedException.class);
      assertThat(tokens.getRequestCount()).isEqualTo(1);
    }
  }

  /** Blocks on {@code call} while virtual time passes whenever it waits a few real ms. */
  private <T> T advancingWhile(Mono<T> call) {
    CompletableFuture<T> future = call.toFuture();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (System.nanoTime() < deadline) {
      try {
        return future.get(5, TimeUnit.MILLISECONDS);
      } catch (TimeoutException e) {
        clock.advanceToNextEvent();
      } catch (InterruptedException | ExecutionException e) {
        throw new AssertionError(e);
      }
    }
    throw new AssertionError("no answer within 10 s");
  }
}
