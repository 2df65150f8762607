package dev.headway.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.headway.Pacer;
import dev.headway.RateLimitedException;
import java.net.URI;
import java.time.Duration;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class MultiUserClientTest {
  private final VirtualTime time = new VirtualTime();

  @AfterEach
  void stop() {
    time.close();
  }

  @Test
  void oneUserOutOfQuotaDoesNotHoldBackAnother() throws Exception {
    try (FakeApi api = MultiUserClient.fakePerUserApi(1, 30)) {
      Pacer pacer = MultiUserClient.pacer(time.pacerBuilder(), Duration.ofSeconds(1));
      OkHttpClient client = MultiUserClient.client(pacer);
      URI uri = api.uri("/me/inbox");

      assertThat(MultiUserClient.getAs(client, uri, "alice")).isEqualTo(200);
      assertThatThrownBy(() -> MultiUserClient.getAs(client, uri, "alice"))
          .isInstanceOf(RateLimitedException.class);
      assertThat(MultiUserClient.getAs(client, uri, "bob")).isEqualTo(200);

      assertThat(time.clock.elapsed()).isZero();
      assertThat(pacer.partitions()).hasSize(2);
      assertThat(pacer.partitions()).allSatisfy(p ->
          assertThat(p.partition()).doesNotContain("alice", "bob"));
    }
  }

  @Test
  void mainRunsAgainstTheFake() throws Exception {
    String output = Mains.run(MultiUserClient::main);
    assertThat(output).contains("alice #0: 200", "alice #3: not sent", "bob   #0: 200");
  }
}
