package dev.headway.internal.signal;

import dev.headway.HttpFields;
import dev.headway.QuotaLimit;
import dev.headway.QuotaPolicy;
import dev.headway.QuotaUnit;
import dev.headway.dialect.DialectContext;
import dev.headway.dialect.SignalSink;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Spring Cloud Gateway's {@code RedisRateLimiter}: a token bucket refilled at
 * {@code X-RateLimit-Replenish-Rate} tokens per second up to {@code X-RateLimit-Burst-Capacity},
 * with {@code X-RateLimit-Remaining} tokens left. Reported as policy {@code "default"} with quota
 * = burst capacity over a window of capacity / rate seconds (the same average rate, with the
 * burst), or rate per second without a capacity. When Redis fails the gateway lets requests
 * through with {@code X-RateLimit-Remaining: -1}: a sentinel meaning unknown.
 * {@code X-RateLimit-Requested-Tokens} (the gateway's {@code requestedTokens}: what each
 * request takes from the bucket) is the request's cost. Stateless.
 */
final class SpringCloudGatewayDialect implements FieldFamilies.Filtered {
  static final String NAME = "spring-cloud-gateway";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public int fieldFamilies() {
    return FieldFamilies.X_RATELIMIT;
  }

  @Override
  public void read(DialectContext context, SignalSink sink) {
    HttpFields headers = context.headers();
    if (!headers.contains("x-ratelimit-replenish-rate")
        && !headers.contains("x-ratelimit-burst-capacity")) {
      return;
    }
    OptionalLong rate = GitHubDialect.count(context, "x-ratelimit-replenish-rate", sink);
    OptionalLong burst = GitHubDialect.count(context, "x-ratelimit-burst-capacity", sink);
    OptionalLong remaining = GitHubDialect.count(context, "x-ratelimit-remaining", sink);
    if (rate.isPresent() && rate.getAsLong() > 0) {
      long perSecond = rate.getAsLong();
      long quota = burst.orElse(perSecond);
      long window = Math.max(1, (quota + perSecond - 1) / perSecond);
      if (quota >= perSecond) {
        sink.policy(new QuotaPolicy(QuotaPolicy.DEFAULT_NAME, quota, QuotaUnit.REQUESTS,
            Durations.ofSeconds(window), Optional.empty(), NAME),
            burst.isPresent() ? "x-ratelimit-burst-capacity" : "x-ratelimit-replenish-rate",
            "x-ratelimit-replenish-rate");
      } else {
        sink.policy(new QuotaPolicy(QuotaPolicy.DEFAULT_NAME, perSecond, QuotaUnit.REQUESTS,
            Durations.ofSeconds(1), Optional.empty(), NAME),
            "x-ratelimit-replenish-rate", "x-ratelimit-replenish-rate");
      }
    }
    if (remaining.isPresent()) {
      sink.limit(new QuotaLimit(QuotaPolicy.DEFAULT_NAME, remaining.getAsLong(), Optional.empty(),
          Optional.empty(), NAME), "x-ratelimit-remaining", "x-ratelimit-remaining");
    }
    if (headers.contains("x-ratelimit-requested-tokens")) {
      OptionalLong tokens = GitHubDialect.count(context, "x-ratelimit-requested-tokens", sink);
      if (tokens.isPresent()) {
        sink.cost(tokens.getAsLong(), "x-ratelimit-requested-tokens");
      }
    }
  }
}
