package dev.headway.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.headway.Jitter;
import dev.headway.Pacer;
import dev.headway.PacingStrategy;
import dev.headway.RateLimitedException;
import dev.headway.jdk.RateLimitedHttpClient;
import dev.headway.testing.VirtualClock;
import java.net.InetAddress;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
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

  private RestClient.Builder nested() {
    HttpClient jdk = RateLimitedHttpClient.wrap(HttpClient.newHttpClient(), pacer);
    return RestClient.builder()
        .requestFactory(new JdkClientHttpRequestFactory(jdk))
        .requestInterceptor(RateLimitClientHttpRequestInterceptor.create(pacer));
  }

  /** Before: the server saw 9 requests, the inner client's 3 for each of the interceptor's 3. */
  @Test
  void aServerThatAnswers429EveryTimeSeesMaxAttemptsRequests() {
    for (int i = 0; i < 12; i++) {
      server.enqueue(new MockResponse.Builder().code(429).addHeader("Retry-After", "1")
          .body("slow down").build());
    }

    ResponseEntity<String> reply = nested().build().get().uri(server.url("/a").uri()).retrieve()
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
    RestClient client = nested().build();
    client.get().uri(server.url("/a").uri()).retrieve().body(String.class);

    String second = client.get().uri(server.url("/b").uri()).retrieve().body(String.class);

    assertThat(second).isEqualTo("second");
    assertThat(server.getRequestCount()).isEqualTo(2);
    assertThat(clock.elapsed()).isLessThan(Duration.ofSeconds(1));
  }

  /**
   * A request to another URI sent from within the paced chain (an interceptor after Headway's
   * fetching a token through the same paced JDK client) is paced on its own: the token server's
   * spent window holds the second token request back.
   */
  @Test
  void aTokenFetchFromWithinThePacedChainIsPacedItself() throws Exception {
    try (MockWebServer tokens = new MockWebServer()) {
      tokens.start(InetAddress.getByName("127.0.0.1"), 0);
      tokens.enqueue(new MockResponse.Builder().code(200).body("token-1")
          .addHeader("RateLimit-Policy", "\"fixed\";q=1;w=60")
          .addHeader("RateLimit", "\"fixed\";r=0;t=60").build());
      tokens.enqueue(new MockResponse.Builder().code(200).body("never").build());
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
      server.enqueue(new MockResponse.Builder().code(200).body("first").build());

      assertThat(client.get().uri(server.url("/a").uri()).retrieve().body(String.class))
          .isEqualTo("first");
      Throwable second = catchThrowable(
          () -> client.get().uri(server.url("/b").uri()).retrieve().body(String.class));

      assertThat(second).hasRootCauseInstanceOf(RateLimitedException.class);
      assertThat(tokens.getRequestCount()).isEqualTo(1);
      assertThat(server.takeRequest().getHeaders().get("Authorization"))
          .isEqualTo("Bearer token-1");
    }
  }
}
