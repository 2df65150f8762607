package dev.headway.benchmarks.sim;

import dev.headway.QuotaUnit;
import dev.headway.RequestCost;
import dev.headway.RequestInfo;
import java.time.Duration;
import java.util.SplittableRandom;

/**
 * The servers with several quotas on one host, each with the mix of requests its callers make.
 * Each names a headline quota ({@link #quota()} per {@link #window()}): the rate a user would
 * read first in the documentation, which the static limiter and the declared Headway variant are
 * given.
 */
public enum ScopedKind {
  /**
   * {@link GitHubServer}; each call is a search ({@code GET /search/issues?q=...}) with
   * probability 1%, else a core call ({@code GET /repos/{owner}/{repo}/issues/{n}}, ids drawn at
   * random). Headline quota: core, 5,000 per hour.
   */
  GITHUB("GitHub-like (core 5000/h + search 30/min)", 5000, Duration.ofHours(1),
      Duration.ofHours(2), 16),
  /**
   * {@link DiscordServer}; each call goes to one of the three routes, drawn uniformly, member ids
   * at random. Headline quota: the global limit, 3 per second.
   */
  DISCORD("Discord-like (3 buckets + global 3/s)", 3, Duration.ofSeconds(1),
      Duration.ofSeconds(600), 8),
  /**
   * {@link LlmServer}; each call names {@code model-a} or {@code model-b} (equally likely) and
   * costs 100 to 900 tokens (uniform). Headline quota: model-a's 100 requests per minute. The
   * Headway clients are given a cost function that prices the token quotas by the request's
   * tokens, as a user of such an API would.
   */
  LLM("LLM-like (2 models, requests + tokens)", 100, Duration.ofMinutes(1),
      Duration.ofSeconds(600), 8);

  private final String label;
  private final long quota;
  private final Duration window;
  private final Duration duration;
  private final int callers;

  ScopedKind(String label, long quota, Duration window, Duration duration, int callers) {
    this.label = label;
    this.quota = quota;
    this.window = window;
    this.duration = duration;
    this.callers = callers;
  }

  /** Returns a short human label for tables. */
  public String label() {
    return label;
  }

  /** Returns the headline quota's limit. */
  public long quota() {
    return quota;
  }

  /** Returns the headline quota's window. */
  public Duration window() {
    return window;
  }

  /** Returns the scenario's default duration. */
  public Duration duration() {
    return duration;
  }

  /** Returns the scenario's default callers (one instance). */
  public int callers() {
    return callers;
  }

  /** Returns a fresh server whose fixed windows start at {@code originNanos}. */
  ScopedServer create(long originNanos) {
    return switch (this) {
      case GITHUB -> new GitHubServer(originNanos);
      case DISCORD -> new DiscordServer(originNanos);
      case LLM -> new LlmServer();
    };
  }

  /** Returns the next call's request, drawn from {@code random}. */
  SimRequest next(SplittableRandom random) {
    return switch (this) {
      case GITHUB -> random.nextInt(100) == 0
          ? SimRequest.of("GET", "/search/issues?q=bug+" + random.nextInt(1000))
          : SimRequest.of("GET", "/repos/owner" + random.nextInt(20) + "/repo"
              + random.nextInt(5) + "/issues/" + (1 + random.nextInt(5000)));
      case DISCORD -> switch (random.nextInt(3)) {
        case 0 -> SimRequest.of("GET", DiscordServer.CHANNEL_MESSAGES);
        case 1 -> SimRequest.of("POST", DiscordServer.CHANNEL_MESSAGES);
        default -> SimRequest.of("PATCH", DiscordServer.MEMBERS + (1000 + random.nextInt(9000)));
      };
      case LLM -> new SimRequest("POST", LlmServer.PATH,
          random.nextBoolean() ? "model-a" : "model-b", 100 + random.nextInt(801));
    };
  }

  /** Returns the cost function a Headway user would give for this API (tokens for the LLM). */
  RequestCost cost() {
    return this == LLM ? new TokenCost() : RequestCost.oneUnit();
  }

  /** One unit per request, except the request's tokens on a token quota. */
  private static final class TokenCost implements RequestCost {
    @Override
    public long cost(RequestInfo request) {
      return 1;
    }

    @Override
    public long cost(RequestInfo request, QuotaUnit unit) {
      if (unit == QuotaUnit.TOKENS) {
        return request.headers().firstValue(SimRequest.TOKENS_HEADER)
            .map(Long::parseLong).orElse(1L);
      }
      return RequestCost.super.cost(request, unit);
    }
  }
}
