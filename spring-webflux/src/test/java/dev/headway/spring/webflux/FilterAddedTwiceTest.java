package dev.headway.spring.webflux;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.headway.Pacer;
import dev.headway.RateLimitedException;
import dev.headway.testing.ServerFixture;
import java.time.Duration;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
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
  @RegisterExtension
  final ServerFixture fixture = ServerFixture.autoAdvancing();
  private final Pacer pacer = fixture.pacer();

  private WebClient twice() {
    return WebClient.builder()
        .filter(RateLimitExchangeFilterFunction.create(pacer))
        .filter(RateLimitExchangeFilterFunction.create(pacer))
        .build();
  }

  /** Before: the server saw 9 requests, the inner filter's 3 for each of the outer one's 3. */
  @Test
  void aServerThatAnswers429EveryTimeSeesMaxAttemptsRequests() throws Exception {
    fixture.answer429EveryTime();

    ResponseEntity<String> reply = fixture.clock().await(twice().get().uri(fixture.uri("/a"))
        .retrieve().onStatus(status -> true, response -> Mono.empty()).toEntity(String.class)
        .toFuture());

    assertThat(reply.getStatusCode().value()).isEqualTo(429);
    assertThat(fixture.requests()).isEqualTo(3);
  }

  /**
   * Before: each request took two permits, and the last one the server allowed failed with
   * RateLimitedException ("would have to wait 60 s").
   */
  @Test
  void theLastRequestAWindowAllowsGoesAtOnce() {
    fixture.leaveOneRequestInTheWindow();
    WebClient client = twice();
    client.get().uri(fixture.uri("/a")).retrieve().bodyToMono(String.class)
        .block(Duration.ofSeconds(10));

    String second = client.get().uri(fixture.uri("/b")).retrieve().bodyToMono(String.class)
        .block(Duration.ofSeconds(10));

    assertThat(second).isEqualTo("second");
    assertThat(fixture.clock().elapsed()).isLessThan(Duration.ofSeconds(1));
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
    try (MockWebServer tokens = ServerFixture.startTokenServer()) {
      WebClient tokenClient = WebClient.builder()
          .filter(RateLimitExchangeFilterFunction.create(pacer)).build();
      WebClient client = WebClient.builder()
          .filter(RateLimitExchangeFilterFunction.create(pacer))
          .filter((request, next) -> tokenClient.get().uri(tokens.url("/token").uri())
              .retrieve().bodyToMono(String.class)
              .flatMap(token -> next.exchange(ClientRequest.from(request)
                  .header(HttpHeaders.AUTHORIZATION, "Bearer " + token).build())))
          .build();
      fixture.server().enqueue(new MockResponse.Builder().code(200).body("first").build());

      assertThat(client.get().uri(fixture.uri("/a")).retrieve().bodyToMono(String.class)
          .block(Duration.ofSeconds(10))).isEqualTo("first");
      Throwable second = catchThrowable(() -> client.get().uri(fixture.uri("/b"))
          .retrieve().bodyToMono(String.class).block(Duration.ofSeconds(10)));

      assertThat(second).hasRootCauseInstanceOf(RateLimitedException.class);
      assertThat(tokens.getRequestCount()).isEqualTo(1);
    }
  }
}
