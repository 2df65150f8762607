package dev.headway.httpclient5;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Jitter;
import dev.headway.Pacer;
import dev.headway.PacingStrategy;
import dev.headway.spring.RateLimitClientHttpRequestInterceptor;
import dev.headway.testing.VirtualClock;
import java.net.InetAddress;
import java.time.Duration;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
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
  private final MockWebServer server = new MockWebServer();
  private final VirtualClock clock = VirtualClock.create().autoAdvance(true);
  private Pacer pacer;
  private CloseableHttpClient http;

  @BeforeEach
  void start() throws Exception {
    server.start(InetAddress.getByName("127.0.0.1"), 0);
    pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .jitter(Jitter.none()).strategy(PacingStrategy.useAllThenWait())
        .maxWait(Duration.ofSeconds(10)).maxAttempts(3).build();
    http = RateLimitExecChainHandler.create(pacer).addTo(HttpClients.custom()).build();
  }

  @AfterEach
  void stop() throws Exception {
    http.close();
    server.close();
  }

  private RestClient nested() {
    return RestClient.builder()
        .requestFactory(new HttpComponentsClientHttpRequestFactory(http))
        .requestInterceptor(RateLimitClientHttpRequestInterceptor.create(pacer))
        .build();
  }

  /** Before: the server saw 9 requests, the handler's 3 for each of the interceptor's 3. */
  @Test
  void aServerThatAnswers429EveryTimeSeesMaxAttemptsRequests() {
    for (int i = 0; i < 12; i++) {
      server.enqueue(new MockResponse.Builder().code(429).addHeader("Retry-After", "1")
          .body("slow down").build());
    }

    ResponseEntity<String> reply = nested().get().uri(server.url("/a").uri()).retrieve()
        .onStatus(status -> true, (request, response) -> { })
        .toEntity(String.class);

    assertThat(reply.getStatusCode().value()).isEqualTo(429);
    assertThat(server.getRequestCount()).isEqualTo(3);
  }

  /** Before: each request took two permits, and the last one the server allowed failed. */
  @Test
  void theLastRequestAWindowAllowsGoesAtOnce() {
    server.enqueue(new MockResponse.Builder().code(200).body("first")
        .addHeader("RateLimit-Policy", "\"fixed\";q=2;w=60")
        .addHeader("RateLimit", "\"fixed\";r=1;t=60").build());
    server.enqueue(new MockResponse.Builder().code(200).body("second").build());
    RestClient client = nested();
    client.get().uri(server.url("/a?x=1").uri()).retrieve().body(String.class);

    String second = client.get().uri(server.url("/b?y=2").uri()).retrieve().body(String.class);

    assertThat(second).isEqualTo("second");
    assertThat(server.getRequestCount()).isEqualTo(2);
    assertThat(clock.elapsed()).isLessThan(Duration.ofSeconds(1));
  }
}
