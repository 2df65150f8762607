package dev.headway.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
import dev.headway.PolicySnapshot;
import java.net.InetAddress;
import java.net.URI;
import java.time.Duration;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class GitHubStyleClientTest {
  private final VirtualTime time = new VirtualTime();
  private final MockWebServer server = new MockWebServer();

  @BeforeEach
  void start() throws Exception {
    server.start(InetAddress.getLoopbackAddress(), 0);
  }

  @AfterEach
  void stop() {
    server.close();
    time.close();
  }

  private MockResponse.Builder github(String resource, int limit, int remaining) {
    long reset = time.clock.instant().getEpochSecond() + 60;
    return new MockResponse.Builder()
        .addHeader("x-ratelimit-limit", Integer.toString(limit))
        .addHeader("x-ratelimit-remaining", Integer.toString(remaining))
        .addHeader("x-ratelimit-reset", Long.toString(reset))
        .addHeader("x-ratelimit-resource", resource)
        .body("{}");
  }

  private URI uri(String path) {
    return server.url(path).uri();
  }

  @Test
  void searchRunningOutDoesNotHoldBackCore() throws Exception {
    Pacer pacer = GitHubStyleClient.pacer(time.pacerBuilder().maxWait(Duration.ofSeconds(1)));
    OkHttpClient client = GitHubStyleClient.client(pacer);
    server.enqueue(github("search", 30, 0).build());
    server.enqueue(github("core", 5000, 4999).build());
    server.enqueue(github("core", 5000, 4998).build());

    assertThat(GitHubStyleClient.get(client, uri("/search/code?q=x"))).startsWith("200");
    assertThat(GitHubStyleClient.get(client, uri("/repos/o/r"))).startsWith("200");
    assertThat(GitHubStyleClient.get(client, uri("/users/o"))).startsWith("200");

    assertThat(time.clock.elapsed()).isZero();
    assertThat(server.getRequestCount()).isEqualTo(3);
    PolicySnapshot search = pacer.quota(uri("/search/issues")).policies().get(0);
    PolicySnapshot core = pacer.quota(uri("/repos/o/r")).policies().get(0);
    assertThat(search.limit()).hasValue(30);
    assertThat(search.remaining()).hasValue(0);
    assertThat(core.limit()).hasValue(5000);
    assertThat(core.remaining().getAsLong()).isBetween(4990L, 4998L);
    // One partition: each resource governs the routes that reported it.
    assertThat(pacer.quota(uri("/search/issues")).partition())
        .isEqualTo(pacer.quota(uri("/repos/o/r")).partition());
    assertThat(search.routes()).containsExactly("GET /search/code");
    assertThat(core.routes()).containsExactly("GET /repos/o/r", "GET /users/o");
  }

  @Test
  void secondaryLimitIsWaitedOutThenRetried() throws Exception {
    Pacer pacer = GitHubStyleClient.pacer(time.pacerBuilder());
    OkHttpClient client = GitHubStyleClient.client(pacer);
    server.enqueue(github("core", 5000, 14).code(403)
        .addHeader("retry-after", "3")
        .addHeader("Content-Type", "application/json")
        .body("{\"message\":\"You have exceeded a secondary rate limit.\"}")
        .build());
    server.enqueue(github("core", 5000, 13).body("{\"id\":1}").build());

    String result = time.call(() -> GitHubStyleClient.get(client, uri("/repos/o/r")));

    assertThat(result).isEqualTo("200 {\"id\":1}");
    assertThat(server.getRequestCount()).isEqualTo(2);
    assertThat(time.clock.elapsed()).isBetween(Duration.ofSeconds(3), Duration.ofMillis(3500));
    RecordedRequest retried = server.takeRequest();
    assertThat(retried.getUrl().encodedPath()).isEqualTo("/repos/o/r");
  }

  @Test
  void mainRunsAgainstTheFake() throws Exception {
    String output = Mains.run(GitHubStyleClient::main);
    assertThat(output).contains("200 {}", "search/code: ");
  }
}
