package dev.headway.examples;

import dev.headway.ClientPolicy;
import dev.headway.Pacer;
import dev.headway.okhttp.RateLimitInterceptor;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import mockwebserver3.MockResponse;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;

/**
 * A client of an API that documents its limit ("5 requests per second") but sends no rate-limit
 * header at all. The client declares the limit itself as a token bucket; Headway paces to it, and
 * still honours a {@code Retry-After} or any header the server does send (the most restrictive
 * policy decides).
 *
 * <p>Run {@code main} with no argument: it sends 15 requests to a local fake, which takes about
 * two seconds (5 at once, then one every 200 ms).
 */
public final class DeclaredLimitClient {
  private DeclaredLimitClient() {}

  /** Returns a pacer that allows {@code perSecond} requests per second, in bursts of as many. */
  public static Pacer pacer(long perSecond) {
    return pacer(Pacer.builder(), perSecond);
  }

  /** Returns a pacer built by {@code builder} that allows {@code perSecond} requests a second. */
  public static Pacer pacer(Pacer.Builder builder, long perSecond) {
    return builder
        .declare(ClientPolicy.tokenBucket("documented", perSecond, Duration.ofSeconds(1)))
        .build();
  }

  /** Returns an OkHttp client paced by {@code pacer}. */
  public static OkHttpClient client(Pacer pacer) {
    return new OkHttpClient.Builder().addInterceptor(RateLimitInterceptor.create(pacer)).build();
  }

  /** Sends a GET; returns the status code. */
  public static int get(OkHttpClient client, URI uri) throws IOException {
    try (Response response = client.newCall(new Request.Builder().url(uri.toString()).build())
        .execute()) {
      return response.code();
    }
  }

  /** Sends 15 requests at 5 per second and prints when each went out. */
  public static void main(String[] args) throws Exception {
    try (FakeApi api = FakeApi.start(request -> new MockResponse.Builder().body("ok").build())) {
      Pacer pacer = pacer(5);
      OkHttpClient client = client(pacer);
      long start = System.nanoTime();
      for (int i = 0; i < 15; i++) {
        int status = get(client, api.uri("/things/" + i));
        System.out.printf("%5d ms  #%d -> %d%n", (System.nanoTime() - start) / 1_000_000, i,
            status);
      }
    }
  }
}
