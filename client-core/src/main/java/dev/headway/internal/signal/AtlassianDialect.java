package dev.headway.internal.signal;

import dev.headway.HttpFields;
import dev.headway.QuotaLimit;
import dev.headway.QuotaPolicy;
import dev.headway.QuotaUnit;
import dev.headway.dialect.DialectContext;
import dev.headway.dialect.ResetValues;
import dev.headway.dialect.SignalSink;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Atlassian Jira / Confluence (Cloud and Data Center) and Bitbucket: {@code X-RateLimit-Limit},
 * {@code -Remaining}, {@code -Reset} (Cloud: an ISO 8601 time at minute precision,
 * {@code 2025-10-08T15:00Z}), named by {@code RateLimit-Reason} ({@code jira-quota-global-based}
 * ...) when present. Data Center's token bucket adds {@code X-RateLimit-FillRate} tokens per
 * {@code X-RateLimit-Interval-Seconds}: reported as policy {@code "fill-rate"} with that window.
 * Recognised by {@code RateLimit-Reason}, {@code X-RateLimit-NearLimit},
 * {@code X-RateLimit-FillRate} or {@code X-RateLimit-Interval-Seconds}. Stateless.
 */
final class AtlassianDialect implements FieldFamilies.Filtered {
  static final String NAME = "atlassian";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public int fieldFamilies() {
    return FieldFamilies.RATELIMIT_REASON | FieldFamilies.X_RATELIMIT;
  }

  @Override
  public void read(DialectContext context, SignalSink sink) {
    HttpFields headers = context.headers();
    Optional<String> reason = headers.firstValue("ratelimit-reason");
    boolean fill = headers.contains("x-ratelimit-fillrate");
    if (reason.isEmpty() && !fill && !headers.contains("x-ratelimit-nearlimit")
        && !headers.contains("x-ratelimit-interval-seconds")) {
      return;
    }
    String name = reason.map(String::trim).filter(r -> !r.isEmpty())
        .orElse(QuotaPolicy.DEFAULT_NAME);
    OptionalLong limit = GitHubDialect.count(context, "x-ratelimit-limit", sink);
    OptionalLong remaining = GitHubDialect.count(context, "x-ratelimit-remaining", sink);
    Optional<Duration> reset = headers.firstValue("x-ratelimit-reset")
        .flatMap(v -> ResetValues.reset("x-ratelimit-reset", v, context, sink));
    if (limit.isPresent()) {
      sink.policy(new QuotaPolicy(name, limit.getAsLong(), QuotaUnit.REQUESTS, Optional.empty(),
          Optional.empty(), NAME), "x-ratelimit-limit", "x-ratelimit-limit");
    }
    if (remaining.isPresent()) {
      sink.limit(new QuotaLimit(name, remaining.getAsLong(), reset, Optional.empty(), NAME),
          "x-ratelimit-remaining", "x-ratelimit-reset");
    } else if (reset.isPresent() && !headers.contains("x-ratelimit-remaining")) {
      Fields.resetWithoutCount(sink, name, Optional.empty(), reset.get(), "x-ratelimit-reset",
          NAME, "x-ratelimit-remaining");
    }
    if (fill) {
      OptionalLong rate = GitHubDialect.count(context, "x-ratelimit-fillrate", sink);
      OptionalLong interval = GitHubDialect.count(context, "x-ratelimit-interval-seconds", sink);
      if (rate.isPresent()) {
        long seconds = interval.orElse(1);
        sink.policy(new QuotaPolicy("fill-rate", rate.getAsLong(), QuotaUnit.REQUESTS,
            Durations.ofSeconds(Math.max(1, seconds)), Optional.empty(), NAME),
            "x-ratelimit-fillrate", "x-ratelimit-interval-seconds");
      }
    }
  }
}
