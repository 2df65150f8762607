package dev.headway.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.headway.Pacer;
import dev.headway.RateLimitedException;
import dev.headway.jdk.RateLimitedHttpClient;
import dev.headway.testing.ServerFixture;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.http.ResponseEntity;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.web.client.RestClient;

/**
 * Two different adapters of Headway's on one call path, as when the Spring Boot starter's
 * interceptor is on a {@code RestClient} whose {@code JdkClientHttpRequestFactory} sends through a
 * {@code RateLimitedHttpClient} of the same pacer: each request is paced once, by the
 * interceptor. Time is virtual.
 */
@Timeout(30)
class OverRateLimitedHttpClientTest {
  @RegisterExtension
  final ServerFixture fixture = ServerFixture.autoAdvancing();
  private final Pacer pacer = fixture.pacer();

  private RestClient.Builder nested() {
    HttpClient jdk = RateLimitedHttpClient.wrap(HttpClient.newHttpClient(), pacer);
    return RestClient.builder()
        .requestFactory(new JdkClientHttpRequestFactory(jdk))
        .requestInterceptor(RateLimitClientHttpRequestInterceptor.create(pacer));
  }

  /** Before: the server saw 9 requests, the inner client's 3 for each of the interceptor's 3. */
  @Test
  void aServerThatAnswers429EveryTimeSeesMaxAttemptsRequests() {
    fixture.answer429EveryTime();

    ResponseEntity<String> reply = nested().build().get().uri(fixture.uri("/a")).retrieve()
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
    RestClient client = nested().build();
    client.get().uri(fixture.uri("/a")).retrieve().body(String.class);

    String second = client.get().uri(fixture.uri("/b")).retrieve().body(String.class);

    assertThat(second).isEqualTo("second");
    assertThat(fixture.requests()).isEqualTo(2);
    assertThat(fixture.clock().elapsed()).isLessThan(Duration.ofSeconds(1));
  }

  /**
   * A request to another URI sent from within the paced chain (an interceptor after Headway's
   * fetching a token through the same paced JDK client) is paced on its own: the token server's
   * spent window holds the second token request back.
   */
  @Test
  void aTokenFetchFromWithinThePacedChainIsPacedItself() throws Exception {
    try (MockWebServer tokens = ServerFixture.startTokenServer()) {
      HttpClient tokenClient = RateLimitedHttpClient.wrap(HttpClient.newHttpClient(), pacer);
      RestClient client = nested()
          .requestInterceptor((request, body, execution) -> {
            String token;
            try {
              token = tokenClient.send(HttpRequest.newBuilder(tokens.url("/token").uri()).build(),
                  BodyHandlers.ofString()).body();
            } catch (InterruptedException e) {
              throw new IllegalStateException(e);
            }
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
      assertThat(fixture.server().takeRequest().getHeaders().get("Authorization"))
          .isEqualTo("Bearer token-1");
    }
  }
}
