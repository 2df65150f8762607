package dev.headway.httpclient5;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
import dev.headway.testing.ServerFixture;
import java.util.concurrent.Future;
import org.apache.hc.client5.http.async.methods.SimpleHttpResponse;
import org.apache.hc.client5.http.async.methods.SimpleRequestBuilder;
import org.apache.hc.client5.http.classic.methods.HttpGet;
import org.apache.hc.client5.http.impl.async.CloseableHttpAsyncClient;
import org.apache.hc.client5.http.impl.async.HttpAsyncClients;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.core5.io.CloseMode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code addTo} called twice on one builder (two pieces of configuration that each add Headway):
 * each request is paced once, by the first handler in the chain, classic and async. Time is
 * virtual.
 */
@Timeout(30)
class AddedTwiceTest {
  @RegisterExtension
  final ServerFixture fixture = ServerFixture.create();
  private final Pacer pacer = fixture.pacer();

  /** Before: the server saw 9 requests, the inner handler's 3 for each of the outer one's 3. */
  @Test
  void classicAServerThatAnswers429EveryTimeSeesMaxAttemptsRequests() throws Exception {
    fixture.clock().autoAdvance(true);
    fixture.answer429EveryTime();
    try (CloseableHttpClient client = RateLimitExecChainHandler.create(pacer)
        .addTo(RateLimitExecChainHandler.create(pacer).addTo(HttpClients.custom())).build()) {
      int status = client.execute(new HttpGet(fixture.uri("/a")), response -> {
        return response.getCode();
      });

      assertThat(status).isEqualTo(429);
      assertThat(fixture.requests()).isEqualTo(3);
    }
  }

  /** Before: the server saw 9 requests. */
  @Test
  void asyncAServerThatAnswers429EveryTimeSeesMaxAttemptsRequests() throws Exception {
    fixture.answer429EveryTime();
    CloseableHttpAsyncClient client = RateLimitAsyncExecChainHandler.create(pacer)
        .addTo(RateLimitAsyncExecChainHandler.create(pacer).addTo(HttpAsyncClients.custom()))
        .build();
    client.start();
    try {
      Future<SimpleHttpResponse> call = client.execute(
          SimpleRequestBuilder.get(fixture.uri("/a")).build(), null);

      assertThat(fixture.clock().await(call).getCode()).isEqualTo(429);
      assertThat(fixture.requests()).isEqualTo(3);
    } finally {
      client.close(CloseMode.IMMEDIATE);
    }
  }
}
