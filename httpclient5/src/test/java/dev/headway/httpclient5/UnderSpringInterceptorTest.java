package dev.headway.httpclient5;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.spring.RateLimitClientHttpRequestInterceptor;
import dev.headway.testing.ServerFixture;
import java.time.Duration;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.http.ResponseEntity;
import org.springframework.http.client.HttpComponentsClientHttpRequestFactory;
import org.springframework.web.client.RestClient;

/**
 * Two different adapters of Headway's on one call path: Spring's interceptor on a
 * {@code RestClient} whose {@code HttpComponentsClientHttpRequestFactory} sends through a client
 * with this handler, both on one pacer. Each request is paced once, by the interceptor, and a
 * throttled response is retried by it alone. Time is virtual.
 */
@Timeout(30)
class UnderSpringInterceptorTest {
  @RegisterExtension
  final ServerFixture fixture = ServerFixture.autoAdvancing();
  private final CloseableHttpClient http = RateLimitExecChainHandler.create(fixture.pacer())
      .addTo(HttpClients.custom()).build();

  @AfterEach
  void stop() throws Exception {
    http.close();
  }

  private RestClient nested() {
    return RestClient.builder()
        .requestFactory(new HttpComponentsClientHttpRequestFactory(http))
        .requestInterceptor(RateLimitClientHttpRequestInterceptor.create(fixture.pacer()))
        .build();
  }

  /** Before: the server saw 9 requests, the handler's 3 for each of the interceptor's 3. */
  @Test
  void aServerThatAnswers429EveryTimeSeesMaxAttemptsRequests() {
    fixture.answer429EveryTime();

    ResponseEntity<String> reply = nested().get().uri(fixture.uri("/a")).retrieve()
        .onStatus(status -> true, (request, response) -> { })
        .toEntity(String.class);

    assertThat(reply.getStatusCode().value()).isEqualTo(429);
    assertThat(fixture.requests()).isEqualTo(3);
  }

  /** Before: each request took two permits, and the last one the server allowed failed. */
  @Test
  void theLastRequestAWindowAllowsGoesAtOnce() {
    fixture.leaveOneRequestInTheWindow();
    RestClient client = nested();
    client.get().uri(fixture.uri("/a?x=1")).retrieve().body(String.class);

    String second = client.get().uri(fixture.uri("/b?y=2")).retrieve().body(String.class);

    assertThat(second).isEqualTo("second");
    assertThat(fixture.requests()).isEqualTo(2);
    assertThat(fixture.clock().elapsed()).isLessThan(Duration.ofSeconds(1));
  }
}
