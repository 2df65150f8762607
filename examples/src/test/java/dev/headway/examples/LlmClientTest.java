package dev.headway.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
import dev.headway.QuotaUnit;
import dev.headway.RequestInfo;
import dev.headway.HttpFields;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class LlmClientTest {
  private final VirtualTime time = new VirtualTime();
  private final MockWebServer server = new MockWebServer();

  @AfterEach
  void stop() {
    server.close();
    time.close();
  }

  @Test
  void costIsOneRequestAndTheTokenEstimate() {
    RequestInfo request = new RequestInfo("POST", URI.create("https://llm.example/v1/x"),
        HttpFields.empty(), OptionalLong.of(400));
    assertThat(LlmClient.tokenCost().cost(request, QuotaUnit.TOKENS)).isEqualTo(100 + 200);
    assertThat(LlmClient.tokenCost().cost(request, QuotaUnit.REQUESTS)).isEqualTo(1);
  }

  @Test
  void requestNeedingMoreTokensThanLeftWaitsForTheTokenReset() throws Exception {
    List<Duration> arrivals = new CopyOnWriteArrayList<>();
    List<String> bodies = new CopyOnWriteArrayList<>();
    server.setDispatcher(new Dispatcher() {
      @Override
      public MockResponse dispatch(RecordedRequest request) {
        arrivals.add(time.clock.elapsed());
        bodies.add(request.getBody().utf8());
        boolean first = arrivals.size() == 1;
        return new MockResponse.Builder()
            .addHeader("x-ratelimit-limit-requests", "60")
            .addHeader("x-ratelimit-limit-tokens", "1000")
            .addHeader("x-ratelimit-remaining-requests", first ? "59" : "58")
            .addHeader("x-ratelimit-remaining-tokens", first ? "300" : "500")
            .addHeader("x-ratelimit-reset-requests", "1s")
            .addHeader("x-ratelimit-reset-tokens", first ? "20s" : "20s")
            .body("{\"text\":\"hi\"}")
            .build();
      }
    });
    server.start(InetAddress.getLoopbackAddress(), 0);
    Pacer pacer = LlmClient.pacer(time.pacerBuilder());
    HttpClient client = LlmClient.client(pacer);
    URI endpoint = server.url("/v1/completions").uri();
    String longPrompt = "x".repeat(1200); // about 300 tokens + 200 for the answer

    HttpResponse<String> first = time.call(() -> LlmClient.complete(client, endpoint, "hi"));
    HttpResponse<String> second =
        time.call(() -> LlmClient.complete(client, endpoint, longPrompt));

    assertThat(first.statusCode()).isEqualTo(200);
    assertThat(second.statusCode()).isEqualTo(200);
    assertThat(arrivals).hasSize(2);
    assertThat(arrivals.get(0)).isZero();
    assertThat(arrivals.get(1)).isGreaterThanOrEqualTo(Duration.ofSeconds(20));
    assertThat(bodies.get(1)).contains(longPrompt);
  }

  @Test
  void mainRunsAgainstTheFake() throws Exception {
    String output = Mains.run(LlmClient::main);
    assertThat(output).contains("200 {\"text\":\"hello\"}").doesNotContain("429");
  }
}
