package dev.headway.pacer;

import dev.headway.QuotaLimit;
import dev.headway.QuotaPolicy;
import dev.headway.QuotaUnit;
import dev.headway.RateLimitSignal;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/** Builds {@link RateLimitSignal}s the way a parser would, for tests. */
final class Signals {
  private Signals() {}

  /** A response advertising {@code "default";q=quota;w=window} and {@code r}, {@code t}. */
  static RateLimitSignal limit(int status, long quota, long windowSeconds, long remaining,
      long resetSeconds) {
    return new RateLimitSignal(status,
        List.of(new QuotaPolicy("default", quota, QuotaUnit.REQUESTS,
            Optional.of(Duration.ofSeconds(windowSeconds)), Optional.empty(), "ietf")),
        List.of(new QuotaLimit("default", remaining, Optional.of(Duration.ofSeconds(resetSeconds)),
            Optional.empty(), "ietf")),
        Optional.empty(), Optional.empty(), Optional.empty(), List.of(), List.of("ietf"),
        List.of(), status == 429);
  }

  /** A response with only {@code RateLimit: "default";r=..;t=..} (quota unknown). */
  static RateLimitSignal remainingOnly(int status, long remaining, Optional<Duration> reset) {
    return new RateLimitSignal(status, List.of(),
        List.of(new QuotaLimit("default", remaining, reset, Optional.empty(), "ietf")),
        Optional.empty(), Optional.empty(), Optional.empty(), List.of(), List.of("ietf"),
        List.of(), status == 429);
  }

  /** A response whose policy and limit carry the partition key {@code pk}. */
  static RateLimitSignal withPk(long quota, long remaining, long resetSeconds, String pk) {
    return new RateLimitSignal(200,
        List.of(new QuotaPolicy("peruser", quota, QuotaUnit.REQUESTS,
            Optional.of(Duration.ofSeconds(60)), Optional.of(pk), "ietf")),
        List.of(new QuotaLimit("peruser", remaining, Optional.of(Duration.ofSeconds(resetSeconds)),
            Optional.of(pk), "ietf")),
        Optional.empty(), Optional.empty(), Optional.empty(), List.of(), List.of("ietf"),
        List.of(), false);
  }

  /** A throttled response with the given Retry-After, limits and body hint. */
  static RateLimitSignal throttled(int status, Optional<Duration> retryAfter,
      List<QuotaLimit> limits, Optional<Duration> bodyHint) {
    return new RateLimitSignal(status, List.of(), limits, retryAfter, bodyHint, Optional.empty(),
        List.of(), List.of("test"), List.of(), true);
  }

  /** A limit item of the default policy. */
  static QuotaLimit item(long remaining, long resetSeconds) {
    return new QuotaLimit("default", remaining, Optional.of(Duration.ofSeconds(resetSeconds)),
        Optional.empty(), "ietf");
  }
}
