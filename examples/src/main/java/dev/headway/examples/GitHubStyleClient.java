package dev.headway.examples;

import dev.headway.Pacer;
import dev.headway.PolicySnapshot;
import dev.headway.okhttp.RateLimitInterceptor;
import java.io.IOException;
import java.net.URI;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;
import mockwebserver3.MockResponse;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;

/**
 * A GitHub-style client. GitHub gives each resource its own quota ({@code core}: 5000 per hour,
 * {@code search}: 30 per minute; the response names it in {@code x-ratelimit-resource}), resets in
 * epoch seconds ({@code x-ratelimit-reset}), and enforces undocumented <em>secondary</em> limits
 * by answering 403 or 429 with {@code retry-after}.
 *
 * <p>Headway keeps the two resources apart with no configuration: it learns from the responses
 * which routes each resource counts (and knows GitHub's documented mapping of {@code /search/*}),
 * so that running out of search quota never slows down the rest of the API; and its interceptor
 * waits out a secondary limit's {@code retry-after} and retries, within its {@code maxWait} and
 * attempt budget.
 *
 * <p>Run {@code main} with no argument to call a local fake of the API, or with a base URL
 * ({@code https://api.github.com/}) to call the real one.
 */
public final class GitHubStyleClient {
  private GitHubStyleClient() {}

  /** Returns a pacer with the defaults: each GitHub resource constrains only its own routes. */
  public static Pacer pacer() {
    return pacer(Pacer.builder());
  }

  /** Returns the pacer built by {@code builder} (nothing GitHub-specific to configure). */
  public static Pacer pacer(Pacer.Builder builder) {
    return builder.build();
  }

  /** Returns an OkHttp client paced by {@code pacer}. */
  public static OkHttpClient client(Pacer pacer) {
    return new OkHttpClient.Builder()
        .addInterceptor(RateLimitInterceptor.create(pacer))
        .build();
  }

  /** Sends a GET and returns the status code and the body. */
  public static String get(OkHttpClient client, URI uri) throws IOException {
    Request request = new Request.Builder()
        .url(uri.toString())
        .header("Accept", "application/vnd.github+json")
        .build();
    try (Response response = client.newCall(request).execute()) {
      return response.code() + " " + response.body().string();
    }
  }

  /** Calls a few endpoints of both resources and prints what Headway knows of each quota. */
  public static void main(String[] args) throws Exception {
    try (FakeApi fake = args.length == 0 ? fakeGitHub() : null) {
      URI base = fake != null ? fake.uri("/") : URI.create(args[0]);
      Pacer pacer = pacer();
      OkHttpClient client = client(pacer);
      System.out.println(get(client, base.resolve("repos/octocat/hello-world")));
      System.out.println(get(client, base.resolve("search/repositories?q=rate+limit")));
      System.out.println(get(client, base.resolve("search/code?q=headway")));
      for (String path : new String[] {"repos/octocat/hello-world", "search/code"}) {
        for (PolicySnapshot policy : pacer.quota(base.resolve(path)).policies()) {
          System.out.println(path + ": " + policy.remaining() + " of " + policy.limit()
              + " left, resets in " + policy.timeToReset());
        }
      }
    }
  }

  /**
   * A fake of GitHub's REST API: core 5000/hour, search 30/minute, and one secondary-limit 403
   * with {@code retry-after: 1} on the second search.
   */
  static FakeApi fakeGitHub() throws IOException {
    AtomicInteger core = new AtomicInteger(5000);
    AtomicInteger search = new AtomicInteger(30);
    AtomicInteger searches = new AtomicInteger();
    return FakeApi.start(request -> {
      boolean isSearch = request.getUrl().encodedPath().startsWith("/search/");
      long now = Instant.now().getEpochSecond();
      if (isSearch && searches.incrementAndGet() == 2) {
        return new MockResponse.Builder().code(403)
            .addHeader("retry-after", "1")
            .addHeader("x-ratelimit-limit", "30")
            .addHeader("x-ratelimit-remaining", Integer.toString(search.get()))
            .addHeader("x-ratelimit-reset", Long.toString(now + 60))
            .addHeader("x-ratelimit-resource", "search")
            .addHeader("Content-Type", "application/json")
            .body("{\"message\":\"You have exceeded a secondary rate limit.\"}")
            .build();
      }
      AtomicInteger quota = isSearch ? search : core;
      return new MockResponse.Builder().code(200)
          .addHeader("x-ratelimit-limit", isSearch ? "30" : "5000")
          .addHeader("x-ratelimit-remaining", Integer.toString(quota.decrementAndGet()))
          .addHeader("x-ratelimit-used", Integer.toString((isSearch ? 30 : 5000) - quota.get()))
          .addHeader("x-ratelimit-reset", Long.toString(now + (isSearch ? 60 : 3600)))
          .addHeader("x-ratelimit-resource", isSearch ? "search" : "core")
          .addHeader("Content-Type", "application/json")
          .body("{}")
          .build();
    });
  }
}
