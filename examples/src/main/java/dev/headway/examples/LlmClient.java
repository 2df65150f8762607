package dev.headway.examples;

import dev.headway.Pacer;
import dev.headway.PolicySnapshot;
import dev.headway.QuotaUnit;
import dev.headway.RequestCost;
import dev.headway.RequestInfo;
import dev.headway.jdk.RateLimitedHttpClient;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import mockwebserver3.MockResponse;

/**
 * A client of a language-model API whose quota counts tokens as well as requests, as OpenAI's
 * does: {@code x-ratelimit-limit-requests} / {@code -tokens}, {@code x-ratelimit-remaining-*},
 * and {@code x-ratelimit-reset-*} as Go durations ({@code 6m0s}, {@code 12ms}).
 *
 * <p>A request costs one unit of the requests quota and, of the tokens quota, an estimate of its
 * tokens: here a quarter of the prompt's bytes plus the completion's {@code max_tokens}. When the
 * tokens left are fewer than a request needs, Headway holds that request until the tokens quota
 * resets, instead of letting the server answer 429.
 *
 * <p>Run {@code main} with no argument: it calls a local fake of such an API.
 */
public final class LlmClient {
  /** The completion budget each request asks for, in tokens. */
  public static final long MAX_OUTPUT_TOKENS = 200;

  private LlmClient() {}

  /**
   * Returns the cost function: a request costs 1 request and its estimated tokens, about four
   * bytes of prompt per token plus {@link #MAX_OUTPUT_TOKENS}.
   */
  public static RequestCost tokenCost() {
    return new RequestCost() {
      @Override
      public long cost(RequestInfo request) {
        return 1;
      }

      @Override
      public long cost(RequestInfo request, QuotaUnit unit) {
        if (unit == QuotaUnit.TOKENS) {
          return (request.contentLength().orElse(0) + 3) / 4 + MAX_OUTPUT_TOKENS;
        }
        return cost(request);
      }
    };
  }

  /** Returns a pacer that charges requests their token estimate; waits up to a minute. */
  public static Pacer pacer() {
    return pacer(Pacer.builder());
  }

  /** Returns a pacer built by {@code builder} that charges requests their token estimate. */
  public static Pacer pacer(Pacer.Builder builder) {
    return builder.cost(tokenCost()).maxWait(Duration.ofMinutes(1)).build();
  }

  /** Returns a JDK client paced by {@code pacer}. */
  public static HttpClient client(Pacer pacer) {
    return RateLimitedHttpClient.wrap(HttpClient.newHttpClient(), pacer);
  }

  /** Posts a completion request for {@code prompt} and returns the response. */
  public static HttpResponse<String> complete(HttpClient client, URI endpoint, String prompt)
      throws IOException, InterruptedException {
    String json = "{\"model\":\"small\",\"max_tokens\":" + MAX_OUTPUT_TOKENS
        + ",\"prompt\":\"" + prompt.replace("\\", "\\\\").replace("\"", "\\\"") + "\"}";
    HttpRequest request = HttpRequest.newBuilder(endpoint)
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(json))
        .build();
    return client.send(request, HttpResponse.BodyHandlers.ofString());
  }

  /** Sends a few prompts to a local fake and prints the tokens quota Headway tracks. */
  public static void main(String[] args) throws Exception {
    try (FakeApi api = fakeLlm(1_000, Duration.ofSeconds(2))) {
      Pacer pacer = pacer();
      HttpClient client = client(pacer);
      URI endpoint = api.uri("/v1/completions");
      for (int i = 0; i < 6; i++) {
        HttpResponse<String> response = complete(client, endpoint, "Say hello, number " + i);
        System.out.println(response.statusCode() + " " + response.body());
        for (PolicySnapshot policy : pacer.quota(endpoint).policies()) {
          System.out.println("  " + policy.name() + ": " + text(policy.remaining()) + " "
              + policy.unit().token() + " of " + text(policy.limit()) + " left");
        }
      }
    }
  }

  /**
   * A fake language-model API: {@code tokensPerWindow} tokens and 60 requests per
   * {@code window}, charged the same estimate as {@link #tokenCost()}; answers 429 when a request
   * does not fit.
   */
  static FakeApi fakeLlm(long tokensPerWindow, Duration window) throws IOException {
    AtomicLong windowStart = new AtomicLong(System.nanoTime());
    AtomicLong tokensUsed = new AtomicLong();
    AtomicLong requestsUsed = new AtomicLong();
    return FakeApi.start(request -> {
      synchronized (windowStart) {
        long now = System.nanoTime();
        if (now - windowStart.get() >= window.toNanos()) {
          windowStart.set(now);
          tokensUsed.set(0);
          requestsUsed.set(0);
        }
        long tokens = (request.getBodySize() + 3) / 4 + MAX_OUTPUT_TOKENS;
        boolean fits = tokensUsed.get() + tokens <= tokensPerWindow && requestsUsed.get() < 60;
        if (fits) {
          tokensUsed.addAndGet(tokens);
          requestsUsed.incrementAndGet();
        }
        Duration reset = window.minusNanos(now - windowStart.get());
        return new MockResponse.Builder().code(fits ? 200 : 429)
            .addHeader("x-ratelimit-limit-requests", "60")
            .addHeader("x-ratelimit-limit-tokens", Long.toString(tokensPerWindow))
            .addHeader("x-ratelimit-remaining-requests", Long.toString(60 - requestsUsed.get()))
            .addHeader("x-ratelimit-remaining-tokens",
                Long.toString(tokensPerWindow - tokensUsed.get()))
            .addHeader("x-ratelimit-reset-requests", goDuration(reset))
            .addHeader("x-ratelimit-reset-tokens", goDuration(reset))
            .addHeader("Content-Type", "application/json")
            .body(fits ? "{\"text\":\"hello\"}" : "{\"error\":{\"type\":\"tokens\"}}")
            .build();
      }
    });
  }

  /** Formats a duration as Go does for short values: {@code 1.5s}, {@code 250ms}. */
  static String goDuration(Duration duration) {
    long millis = Math.max(1, duration.toMillis());
    return millis < 1000 ? millis + "ms"
        : (millis / 1000) + "." + String.format(Locale.ROOT, "%03d", millis % 1000) + "s";
  }

  /** A count as a user reads it: the number, or {@code ?} when the server did not say. */
  private static String text(java.util.OptionalLong count) {
    return count.isPresent() ? Long.toString(count.getAsLong()) : "?";
  }
}
