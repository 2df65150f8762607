package dev.headway.examples;

import dev.headway.Pacer;
import dev.headway.PartitionKeyResolver;
import dev.headway.okhttp.RateLimitInterceptor;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import mockwebserver3.MockResponse;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;

/**
 * A service that calls an API on behalf of several users, each with their own token and their own
 * quota (draft section 7.1: the server's quota is per credential, not per client).
 *
 * <p>Headway partitions by a salted hash of the {@code Authorization} header: one user running out
 * of quota never delays another, and the token itself is never kept. A user whose quota is spent
 * waits until it resets — or, past {@code maxWait}, fails at once with
 * {@link dev.headway.RateLimitedException} without sending anything.
 *
 * <p>Run {@code main} with no argument: it calls a local fake that gives each user 3 requests per
 * 10 seconds.
 */
public final class MultiUserClient {
  private MultiUserClient() {}

  /** Returns a pacer with a partition per user token; a call waits at most {@code maxWait}. */
  public static Pacer pacer(Duration maxWait) {
    return pacer(Pacer.builder(), maxWait);
  }

  /** Returns a pacer built by {@code builder} with a partition per user token. */
  public static Pacer pacer(Pacer.Builder builder, Duration maxWait) {
    return builder
        .partitionKeyResolver(PartitionKeyResolver.originAndCredential("Authorization"))
        .maxWait(maxWait)
        .build();
  }

  /** Returns an OkHttp client paced by {@code pacer}. */
  public static OkHttpClient client(Pacer pacer) {
    return new OkHttpClient.Builder().addInterceptor(RateLimitInterceptor.create(pacer)).build();
  }

  /** Sends a GET as the user of {@code token}; returns the status code. */
  public static int getAs(OkHttpClient client, URI uri, String token) throws IOException {
    Request request = new Request.Builder()
        .url(uri.toString())
        .header("Authorization", "Bearer " + token)
        .build();
    try (Response response = client.newCall(request).execute()) {
      return response.code();
    }
  }

  /** Sends requests for two users; the busy one is held back, the other is not. */
  public static void main(String[] args) throws Exception {
    try (FakeApi api = fakePerUserApi(3, 10)) {
      OkHttpClient client = client(pacer(Duration.ofSeconds(2)));
      URI uri = api.uri("/me/inbox");
      for (int i = 0; i < 5; i++) {
        System.out.println("alice #" + i + ": " + outcome(() -> getAs(client, uri, "alice-token")));
      }
      System.out.println("bob   #0: " + outcome(() -> getAs(client, uri, "bob-token")));
    }
  }

  interface Call {
    int run() throws IOException;
  }

  private static String outcome(Call call) {
    try {
      return Integer.toString(call.run());
    } catch (IOException e) {
      return "not sent: " + e.getMessage();
    }
  }

  /**
   * A fake API with a quota per {@code Authorization} value: {@code quota} requests per window of
   * {@code windowSeconds}, reported with the draft's {@code RateLimit} fields.
   */
  static FakeApi fakePerUserApi(int quota, int windowSeconds) throws IOException {
    Map<String, AtomicInteger> used = new ConcurrentHashMap<>();
    return FakeApi.start(request -> {
      String user = String.valueOf(request.getHeaders().get("Authorization"));
      int count = used.computeIfAbsent(user, u -> new AtomicInteger()).incrementAndGet();
      boolean ok = count <= quota;
      return new MockResponse.Builder().code(ok ? 200 : 429)
          .addHeader("RateLimit-Policy", "\"user\";q=" + quota + ";w=" + windowSeconds)
          .addHeader("RateLimit", "\"user\";r=" + Math.max(0, quota - count) + ";t="
              + windowSeconds)
          .body(ok ? "[]" : "")
          .build();
    });
  }
}
