package dev.headway.examples;

import dev.headway.Pacer;
import dev.headway.QuotaSnapshot;
import dev.headway.jdk.RateLimitedHttpClient;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import mockwebserver3.MockResponse;

/**
 * Asking Headway how much quota is left: {@link Pacer#quota(URI)} for one partition,
 * {@link Pacer#partitions()} for all of them. A snapshot is immutable; take a new one to see
 * newer state.
 *
 * <p>Run {@code main} with no argument: it calls a local fake that advertises two policies.
 */
public final class QuotaInspection {
  private QuotaInspection() {}

  /** Prints what {@code pacer} knows of {@code uri}'s partition. */
  public static void print(Pacer pacer, URI uri) {
    QuotaSnapshot quota = pacer.quota(uri);
    System.out.println(quota.partition());
    // Snapshots print themselves as tidy lines: "second: 9 of 10 requests left per 1 s, ...".
    quota.policies().forEach(policy -> System.out.println("  " + policy));
    quota.mostRestrictive().ifPresent(p -> System.out.println("  most restrictive: " + p.name()));
  }

  /** Makes one call and prints the quota before and after. */
  public static void main(String[] args) throws Exception {
    try (FakeApi api = fakeApi()) {
      Pacer pacer = Pacer.create();
      HttpClient client = RateLimitedHttpClient.wrap(HttpClient.newHttpClient(), pacer);
      URI uri = api.uri("/items");
      print(pacer, uri);
      client.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.discarding());
      print(pacer, uri);
      System.out.println(pacer.partitions().size() + " partition(s) known");
    }
  }

  /** A fake API advertising a per-second and a per-hour policy. */
  static FakeApi fakeApi() throws IOException {
    return FakeApi.start(request -> new MockResponse.Builder()
        .addHeader("RateLimit-Policy", "\"second\";q=10;w=1, \"hour\";q=5000;w=3600")
        .addHeader("RateLimit", "\"second\";r=9;t=1, \"hour\";r=4998;t=1800")
        .body("[]")
        .build());
  }
}
