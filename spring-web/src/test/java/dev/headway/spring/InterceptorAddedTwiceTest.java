package dev.headway.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.headway.Jitter;
import dev.headway.Pacer;
import dev.headway.PacingStrategy;
import dev.headway.RateLimitedException;
import dev.headway.testing.VirtualClock;
import java.net.InetAddress;
import java.time.Duration;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.http.ResponseEntity;
import org.springframework.web.client.RestClient;

/**
 * The interceptor registered twice on one client, as when the Spring Boot starter's customizer
 * adds it to Boot's {@code RestClient.Builder} and the application adds its own too: each request
 * is paced once, as with one interceptor. Time is virtual.
 */
@Timeout(30)
class InterceptorAddedTwiceTest {
  private final MockWebServer server = new MockWebServer();
  private final VirtualClock clock = VirtualClock.create().autoAdvance(true);
  private Pacer pacer;

  @BeforeEach
  void start() throws Exception {
    server.start(InetAddress.getByName("127.0.0.1"), 0);
    pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .jitter(Jitter.none()).strategy(PacingStrategy.useAllThenWait())
        .maxWait(Duration.ofSeconds(10)).maxAttempts(3).build();
  }

  @AfterEach
  void stop() throws Exception {
    server.close();
  }

  private RestClient twice() {
    return RestClient.builder()
        .requestInterceptor(RateLimitClientHttpRequestInterceptor.create(pacer))
        .requestInterceptor(RateLimitClientHttpRequestInterceptor.create(pacer))
        .build();
  }

  /** Before: the server saw 5 requests, the inner interceptor's 3 and 2 more of the outer one. */
  @Test
  void aServerThatAnswers429EveryTimeSeesMaxAttemptsRequests() {
    for (int i = 0; i < 12; i++) {
      server.enqueue(new MockResponse.Builder().code(429).addHeader("Retry-After", "1")
          .body("slow down").build());
    }

    ResponseEntity<String> reply = twice().get().uri(server.url("/a").uri()).retrieve()
        .onStatus(status -> true, (request, response) -> { })
        .toEntity(String.class);

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
    RestClient client = twice();
    client.get().uri(server.url("/a").uri()).retrieve().body(String.class);

    String second = client.get().uri(server.url("/b").uri()).retrieve().body(String.class);

    assertThat(second).isEqualTo("second");
    assertThat(clock.elapsed()).isLessThan(Duration.ofSeconds(1));
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
    try (MockWebServer tokens = new MockWebServer()) {
      tokens.start(InetAddress.getByName("127.0.0.1"), 0);
      tokens.enqueue(new MockResponse.Builder().code(200).body("token-1")
          .addHeader("RateLimit-Policy", "\"fixed\";q=1;w=60")
          .addHeader("RateLimit", "\"fixed\";r=0;t=60").build());
      tokens.enqueue(new MockResponse.Builder().code(200).body("never").build());
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
      server.enqueue(new MockResponse.Builder().code(200).body("first").build());

      assertThat(client.get().uri(server.url("/a").uri()).retrieve().body(String.class))
          .isEqualTo("first");
      Throwable second = catchThrowable(
          () -> client.get().uri(server.url("/b").uri()).retrieve().body(String.class));

      assertThat(second).hasRootCauseInstanceOf(RateLimitedException.class);
      assertThat(tokens.getRequestCount()).isEqualTo(1);
    }
  }
}
