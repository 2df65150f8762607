package dev.headway.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
import dev.headway.PolicySnapshot;
import dev.headway.QuotaSnapshot;
import dev.headway.jdk.RateLimitedHttpClient;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class QuotaInspectionTest {
  @Test
  void snapshotShowsEveryAdvertisedPolicy() throws Exception {
    try (FakeApi api = QuotaInspection.fakeApi(); VirtualTime time = new VirtualTime()) {
      Pacer pacer = time.pacerBuilder().build();
      HttpClient client = RateLimitedHttpClient.wrap(HttpClient.newHttpClient(), pacer);
      URI uri = api.uri("/items");
      assertThat(pacer.quota(uri).policies()).isEmpty();

      client.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.discarding());

      QuotaSnapshot quota = pacer.quota(uri);
      PolicySnapshot second = quota.policy("second").orElseThrow();
      PolicySnapshot hour = quota.policy("hour").orElseThrow();
      assertThat(second.limit()).hasValue(10);
      assertThat(second.remaining()).hasValue(9);
      assertThat(second.window()).hasValue(Duration.ofSeconds(1));
      assertThat(hour.limit()).hasValue(5000);
      assertThat(hour.remaining()).hasValue(4998);
      assertThat(hour.window()).hasValue(Duration.ofHours(1));
      assertThat(hour.timeToReset()).hasValue(Duration.ofMinutes(30));
      assertThat(quota.mostRestrictive()).map(PolicySnapshot::name).hasValue("second");
      assertThat(hour.toString()).startsWith(
          "hour: 4998 of 5000 requests left per 3600 s, resets in 1800 s, 0 in flight");
      assertThat(pacer.partitions()).extracting(QuotaSnapshot::partition)
          .containsExactly(quota.partition());
    }
  }

  @Test
  void mainRunsAgainstTheFake() throws Exception {
    String output = Mains.run(QuotaInspection::main);
    assertThat(output).contains("second: 9 of 10 requests left", "1 partition(s) known");
  }
}
