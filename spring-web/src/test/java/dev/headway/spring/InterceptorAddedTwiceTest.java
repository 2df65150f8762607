package dev.headway.spring;

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
import org.springframework.http.ResponseEntity;
import org.springframework.web.client.RestClient;

/**
 * The interceptor registered twice on one client, as when the Spring Boot starter's customizer
 * adds it to Boot's {@code RestClient.Builder} and the application adds its own too: each request
 * is paced once, as with one interceptor. Time is virtual.
 */
@Timeout(30)
class InterceptorAddedTwiceTest {
  @RegisterExtension
  final ServerFixture fixture = ServerFixture.autoAdvancing();
  private final Pacer pacer = fixture.pacer();

  private RestClient twice() {
    return RestClient.builder()
        .requestInterceptor(RateLimitClientHttpRequestInterceptor.create(pacer))
        .requestInterceptor(RateLimitClientHttpRequestInterceptor.create(pacer))
        .build();
  }

  /** Before: the server saw 5 requests, the inner interceptor's 3 and 2 more of the outer one. */
  @Test
  void aServerThatAnswers429EveryTimeSeesMaxAttemptsRequests() {
    fixture.answer429EveryTime();

    ResponseEntity<String> reply = twice().get().uri(fixture.uri("/a")).retrieve()
        .onStatus(status -> true, (request, response) -> { })
        .toEntity(String.class);

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
    RestClient client = twice();
    client.get().uri(fixture.uri("/a")).retrieve().body(String.class);

    String second = client.get().uri(fixture.uri("/b")).retrieve().body(String.class);

    assertThat(second).isEqualTo("second");
    assertThat(fixture.clock().elapsed()).isLessThan(Duration.ofSeconds(1));
    assertThat(pacer.partitions()).allSatisfy(quota -> assertThat(quota.policies())
        .allSatisfy(policy -> assertThat(policy.inFlight()).isZero()));
  }

  /**
   * A request of another client sent from within a paced one's chain (an interceptor after
   * Headway's fetching a token) is paced on its own: the token server's spent window holds its
   * second token request back.
   */
  @Test
  void aRequestSentFromWithinThePacedChainIsPacedItself() throws Exception {
    try (MockWebServer tokens = ServerFixture.startTokenServer()) {
      RestClient tokenClient = RestClient.builder()
          .requestInterceptor(RateLimitClientHttpRequestInterceptor.create(pacer)).build();
      RestClient client = RestClient.builder()
          .requestInterceptor(RateLimitClientHttpRequestInterceptor.create(pacer))
          .requestInterceptor((request, body, execution) -> {
            String token = tokenClient.get().uri(tokens.url("/token").uri()).retrieve()
                .body(String.class);
            request.getHeaders().set("Authorization", "Bearer " + token);
            return execution.execute(request, body);
          })
          .build();
      fixture.server().enqueue(new MockResponse.Builder().code(200).body("first").build());

      assertThat(client.get().uri(fixture.uri("/a")).retrieve().body(String.class))
          .isEqualTo("first");
      Throwable second = catchThrowable(
          () -> client.get().uri(fixture.uri("/b")).retrieve().body(String.class));

      assertThat(second).hasRootCauseInstanceOf(RateLimitedException.class);
      assertThat(tokens.getRequestCount()).isEqualTo(1);
    }
  }
}
