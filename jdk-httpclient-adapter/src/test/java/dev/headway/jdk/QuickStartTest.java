package dev.headway.jdk;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import org.junit.jupiter.api.Test;

/** The quick start of docs/jdk-httpclient.md is this code, and it works. */
class QuickStartTest {
  // quick-start:begin
  static HttpResponse<String> fetch(URI uri) throws Exception {
    Pacer pacer = Pacer.create(); // one per application, shared by all clients
    HttpClient client = RateLimitedHttpClient.wrap(HttpClient.newHttpClient(), pacer);

    HttpRequest request = HttpRequest.newBuilder(uri).build();
    HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());

    // sendAsync is paced too, and waits without blocking a thread.
    client.sendAsync(request, HttpResponse.BodyHandlers.ofString())
        .thenAccept(r -> System.out.println(r.statusCode()))
        .join();

    System.out.println(pacer.quota(uri)); // what is left of the quota, per policy
    return response;
  }
  // quick-start:end

  @Test
  void theQuickStartSendsBothRequestsAndReturnsTheFirstResponse() throws Exception {
    try (MockWebServer server = new MockWebServer()) {
      server.start();
      server.enqueue(new MockResponse.Builder().code(200).body("hello").build());
      server.enqueue(new MockResponse.Builder().code(200).body("again").build());

      HttpResponse<String> response = fetch(server.url("/zen").uri());

      assertThat(response.body()).isEqualTo("hello");
      assertThat(server.getRequestCount()).isEqualTo(2);
    }
  }

  @Test
  void docsJdkHttpclientMdContainsTheQuickStartVerbatim() throws Exception {
    String source = Files.readString(
        Path.of("src/test/java/dev/headway/jdk/QuickStartTest.java"), StandardCharsets.UTF_8);
    String begin = "  // quick-start:begin\n";
    String quickStart = source.substring(source.indexOf(begin) + begin.length(),
        source.indexOf("  // quick-start:end"));
    String docs = Files.readString(Path.of("../docs/jdk-httpclient.md"), StandardCharsets.UTF_8);

    assertThat(quickStart).contains("RateLimitedHttpClient.wrap");
    assertThat(docs).contains(quickStart);
  }
}
