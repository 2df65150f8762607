package dev.headway.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import mockwebserver3.MockResponse;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.Test;

class DeclaredLimitClientTest {
  @Test
  void fifteenRequestsAtFivePerSecondTakeTwoSeconds() throws Exception {
    List<Duration> arrivals = new CopyOnWriteArrayList<>();
    try (VirtualTime time = new VirtualTime();
        FakeApi api = FakeApi.start(request -> {
          arrivals.add(time.clock.elapsed());
          return new MockResponse.Builder().body("ok").build(); // no rate-limit header at all
        })) {
      Pacer pacer = DeclaredLimitClient.pacer(time.pacerBuilder(), 5);
      OkHttpClient client = DeclaredLimitClient.client(pacer);
      for (int i = 0; i < 15; i++) {
        URI uri = api.uri("/things/" + i);
        assertThat(time.call(() -> DeclaredLimitClient.get(client, uri))).isEqualTo(200);
      }
    }
    assertThat(arrivals).hasSize(15);
    assertThat(arrivals.subList(0, 5)).allSatisfy(t -> assertThat(t).isZero());
    for (int i = 5; i < 15; i++) {
      assertThat(arrivals.get(i).minus(arrivals.get(i - 1)))
          .as("gap before request %d", i)
          .isBetween(Duration.ofMillis(190), Duration.ofMillis(260));
    }
    assertThat(arrivals.get(14)).isBetween(Duration.ofMillis(1950), Duration.ofMillis(2400));
  }

  @Test
  void mainRunsAgainstTheFake() throws Exception {
    String output = Mains.run(DeclaredLimitClient::main);
    assertThat(output).contains("#0 -> 200", "#14 -> 200");
  }
}
