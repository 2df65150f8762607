package consumer.metrics;

import dev.headway.Pacer;
import dev.headway.jdk.RateLimitedHttpClient;
import dev.headway.micrometer.HeadwayMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

public final class Main {
  private Main() {}

  public static void main(String[] args) throws Exception {
    try (LocalApi api = new LocalApi(true)) {
      SimpleMeterRegistry registry = new SimpleMeterRegistry();
      HeadwayMetrics metrics = HeadwayMetrics.create();
      Pacer pacer = Pacer.builder().listener(metrics).build();
      metrics.monitor(pacer).bindTo(registry);
      HttpClient client = RateLimitedHttpClient.wrap(HttpClient.newHttpClient(), pacer);

      HttpResponse<String> response = client.send(HttpRequest.newBuilder(api.uri("/items")).build(),
          HttpResponse.BodyHandlers.ofString());

      System.out.println(registry.getMetersAsString());
      LocalApi.check(response.body().equals("ok"), "the 429 was retried");
      LocalApi.check(registry.get("headway.pacer.throttled").tag("status", "429").counter()
          .count() == 1, "headway.pacer.throttled counted the 429");
      LocalApi.check(registry.get("headway.pacer.retries").counter().count() == 1,
          "headway.pacer.retries counted the retry");
      LocalApi.check(registry.get("headway.quota.remaining").tag("policy", "fixed").gauge()
          .value() == 7, "headway.quota.remaining reads 7");
      LocalApi.check(registry.get("headway.quota.limit").tag("policy", "fixed").gauge()
          .value() == 10, "headway.quota.limit reads 10");
    }
  }
}
