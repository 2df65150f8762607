package consumer.modular;

import dev.headway.Pacer;
import dev.headway.QuotaSnapshot;
import dev.headway.jdk.RateLimitedHttpClient;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

public final class Main {
  private Main() {}

  public static void main(String[] args) throws Exception {
    try (LocalApi api = new LocalApi(false)) {
      Pacer pacer = Pacer.create();
      HttpClient client = RateLimitedHttpClient.wrap(HttpClient.newHttpClient(), pacer);
      URI uri = api.uri("/items");
      HttpResponse<String> response =
          client.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString());
      QuotaSnapshot quota = pacer.quota(uri);
      System.out.println(quota);
      LocalApi.check(response.body().equals("ok"), "the call went through");
      LocalApi.check(quota.policy("fixed").orElseThrow().remaining().getAsLong() == 7,
          "the pacer read the quota: 7 left");
      LocalApi.check(Main.class.getModule().isNamed()
              && "dev.headway.jdk".equals(RateLimitedHttpClient.class.getModule().getName())
              && "dev.headway.core".equals(Pacer.class.getModule().getName()),
          "Headway runs as named modules dev.headway.jdk and dev.headway.core");
    }
  }
}
