package dev.headway.benchmarks.sim;

import dev.headway.HttpFields;
import java.time.Instant;
import java.util.List;
import java.util.Locale;

/**
 * An LLM-like server (OpenAI's headers): two models on one host and key, each with its own
 * request and token limits per minute, counted as token buckets (OpenAI reports the time until a
 * limit is "back to its initial state"):
 *
 * <ul>
 *   <li>{@code model-a}: 100 requests and 30,000 tokens per minute</li>
 *   <li>{@code model-b}: 30 requests and 6,000 tokens per minute</li>
 * </ul>
 *
 * <p>A request names its model in its body ({@link SimRequest#model()}) and costs its
 * {@link SimRequest#tokens()} on the token limit. Every response carries the requested model's
 * {@code x-ratelimit-limit-requests}, {@code -limit-tokens}, {@code -remaining-requests},
 * {@code -remaining-tokens}, {@code -reset-requests} and {@code -reset-tokens} (Go durations);
 * the response does not name the model. A 429 adds {@code retry-after-ms} and {@code retry-after}
 * (whole seconds, rounded up).
 */
final class LlmServer extends ScopedServer {
  static final String PATH = "/v1/chat/completions";

  LlmServer() {
    super(List.of(
        meter("model-a", "requests", 100, false),
        meter("model-a", "tokens", 30_000, true),
        meter("model-b", "requests", 30, false),
        meter("model-b", "tokens", 6_000, true)));
  }

  private static Meter meter(String model, String unit, long limit, boolean tokens) {
    return new Meter(model + " " + unit, Meter.Kind.TOKEN_BUCKET, limit, 60_000_000_000L, 0,
        tokens, r -> r.model().equals(model));
  }

  @Override
  void render(HttpFields.Builder fields, SimRequest request, List<Meter> governing,
      Meter refusedBy, long nowNanos, Instant wallNow) {
    if (governing.size() < 2) {
      return; // an unknown model: 404 in reality; never sent by the simulation
    }
    Meter requests = governing.get(0);
    Meter tokens = governing.get(1);
    fields.add("x-ratelimit-limit-requests", Long.toString(requests.limit));
    fields.add("x-ratelimit-limit-tokens", Long.toString(tokens.limit));
    fields.add("x-ratelimit-remaining-requests", Long.toString(requests.remaining(nowNanos)));
    fields.add("x-ratelimit-remaining-tokens", Long.toString(tokens.remaining(nowNanos)));
    fields.add("x-ratelimit-reset-requests", goDuration(requests.resetNanos(nowNanos)));
    fields.add("x-ratelimit-reset-tokens", goDuration(tokens.resetNanos(nowNanos)));
    if (refusedBy != null) {
      long wait = refusedBy.nextFit(nowNanos, refusedBy.cost(request)) - nowNanos;
      long ms = Math.max(1, (wait + 999_999) / 1_000_000);
      fields.add("retry-after-ms", Long.toString(ms));
      fields.add("retry-after", Long.toString(Math.max(1, ceilSeconds(wait))));
    }
  }

  /** Formats a duration as Go's {@code time.Duration.String} does, to the millisecond. */
  static String goDuration(long nanos) {
    long ms = Math.max(0, (nanos + 999_999) / 1_000_000);
    if (ms == 0) {
      return "0s";
    }
    if (ms < 1000) {
      return ms + "ms";
    }
    long minutes = ms / 60_000;
    long restMs = ms % 60_000;
    String seconds = restMs % 1000 == 0 ? Long.toString(restMs / 1000)
        : String.format(Locale.ROOT, "%d.%03d", restMs / 1000, restMs % 1000)
            .replaceAll("0+$", "");
    return (minutes > 0 ? minutes + "m" : "") + seconds + "s";
  }
}
