package dev.headway.okhttp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
import dev.headway.QuotaSnapshot;
import java.io.IOException;
import java.net.InetAddress;
import java.util.List;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import okhttp3.Dns;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Two services on hosts with an underscore ({@code billing_api.internal}, {@code
 * ledger_api.internal}) through a real OkHttp client, which accepts such hosts although
 * {@code java.net.URI} gives them no host. Before, both were partition {@code http://:80}: a
 * {@code Retry-After: 600} from one failed calls to the other with "Rate limited: http://:80".
 */
@Timeout(30)
class UnderscoreHostTest {
  private final MockWebServer billing = new MockWebServer();
  private final MockWebServer ledger = new MockWebServer();

  @BeforeEach
  void start() throws IOException {
    billing.start(InetAddress.getByName("127.0.0.1"), 0);
    ledger.start(InetAddress.getByName("127.0.0.1"), 0);
  }

  @AfterEach
  void stop() {
    billing.close();
    ledger.close();
  }

  @Test
  void aRetryAfterFromOneUnderscoreHostDoesNotFailCallsToAnother() throws Exception {
    billing.enqueue(new MockResponse.Builder().code(429).addHeader("Retry-After", "600").build());
    ledger.enqueue(new MockResponse.Builder().code(200).body("ok").build());
    Pacer pacer = Pacer.create();
    Dns loopback = host -> List.of(InetAddress.getByName("127.0.0.1"));
    OkHttpClient client = new OkHttpClient.Builder().dns(loopback)
        .addInterceptor(RateLimitInterceptor.builder(pacer).maxAttempts(1).build()).build();
    HttpUrl a = HttpUrl.get("http://billing_api.internal:" + billing.getPort() + "/charge");
    HttpUrl b = HttpUrl.get("http://ledger_api.internal:" + ledger.getPort() + "/entries");

    try (Response response = client.newCall(new Request.Builder().url(a).build()).execute()) {
      assertThat(response.code()).isEqualTo(429);
    }
    try (Response response = client.newCall(new Request.Builder().url(b).build()).execute()) {
      assertThat(response.code()).as("the other service's answer").isEqualTo(200);
    }

    assertThat(ledger.getRequestCount()).isOne();
    assertThat(pacer.partitions()).extracting(QuotaSnapshot::partition).containsExactlyInAnyOrder(
        "http://billing_api.internal:" + billing.getPort(),
        "http://ledger_api.internal:" + ledger.getPort());
    assertThat(pacer.quota(a.uri()).heldFor()).as("billing_api is held").isPresent();
  }
}
