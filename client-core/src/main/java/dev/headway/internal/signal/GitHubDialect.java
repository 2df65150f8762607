package dev.headway.internal.signal;

import dev.headway.QuotaLimit;
import dev.headway.QuotaPolicy;
import dev.headway.QuotaUnit;
import dev.headway.dialect.DialectContext;
import dev.headway.dialect.FieldValues;
import dev.headway.dialect.ResetValues;
import dev.headway.dialect.SignalSink;
import java.net.URI;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * GitHub REST: {@code x-ratelimit-limit}, {@code -remaining}, {@code -used}, {@code -reset}
 * (epoch seconds) with {@code x-ratelimit-resource} ({@code core}, {@code search},
 * {@code graphql}, ...), which names the policy: each resource has its own limit. Recognised by
 * {@code x-ratelimit-resource}; without it (GitHub's older documentation) the generic
 * {@code x-ratelimit} dialect reads the same values as policy {@code "default"}. A 403 with a zero
 * remaining count or a {@code retry-after} is classified as throttled by the reader (secondary
 * limits). Stateless.
 */
final class GitHubDialect implements FieldFamilies.Filtered {
  static final String NAME = "github";

  @Override
  public String name() {
    return NAME;
  }

  /**
   * Returns GitHub's documented resource for a request's path: {@code code_search} for
   * {@code /search/code}, {@code search} for the other searches, {@code graphql}, else
   * {@code core} (GitHub's REST API documentation, "Rate limits for the REST API").
   */
  @Override
  public Optional<String> documentedPolicy(URI requestUri) {
    String path = requestUri.getRawPath() == null ? "" : requestUri.getRawPath();
    if (path.startsWith("/search/code")) {
      return Optional.of("code_search");
    }
    if (path.startsWith("/search/") || path.equals("/search")) {
      return Optional.of("search");
    }
    if (path.startsWith("/graphql")) {
      return Optional.of("graphql");
    }
    return Optional.of("core");
  }

  @Override
  public int fieldFamilies() {
    return FieldFamilies.X_RATELIMIT;
  }

  @Override
  public void read(DialectContext context, SignalSink sink) {
    Optional<String> resource = context.headers().firstValue("x-ratelimit-resource");
    if (resource.isEmpty()) {
      return;
    }
    String name = resource.get().trim();
    if (name.isEmpty()) {
      name = QuotaPolicy.DEFAULT_NAME;
    }
    OptionalLong limit = count(context, "x-ratelimit-limit", sink);
    OptionalLong remaining = count(context, "x-ratelimit-remaining", sink);
    if (remaining.isEmpty() && limit.isPresent()) {
      OptionalLong used = count(context, "x-ratelimit-used", sink);
      if (used.isPresent()) {
        remaining = OptionalLong.of(Math.max(0, limit.getAsLong() - used.getAsLong()));
      }
    }
    Optional<Duration> reset = context.headers().firstValue("x-ratelimit-reset")
        .flatMap(v -> ResetValues.reset("x-ratelimit-reset", v, context, sink));
    if (limit.isPresent()) {
      sink.policy(new QuotaPolicy(name, limit.getAsLong(), QuotaUnit.REQUESTS, Optional.empty(),
          Optional.empty(), NAME), "x-ratelimit-limit", "x-ratelimit-limit");
    }
    if (remaining.isPresent()) {
      sink.limit(new QuotaLimit(name, remaining.getAsLong(), reset, Optional.empty(), NAME),
          "x-ratelimit-remaining", "x-ratelimit-reset");
    } else if (reset.isPresent() && !context.headers().contains("x-ratelimit-remaining")) {
      Fields.resetWithoutCount(sink, name, Optional.empty(), reset.get(), "x-ratelimit-reset",
          NAME, "x-ratelimit-remaining");
    }
    int status = context.status();
    if ((status == 403 || status == 429) && remaining.isPresent() && remaining.getAsLong() > 0
        && !context.headers().contains("retry-after")) {
      // "Otherwise, wait for at least one minute before retrying" (GitHub REST docs, secondary
      // rate limits): applies when the response is throttled (a 429, or a 403 whose body says
      // rate limit), which the reader decides.
      sink.documentedDelay(SECONDARY_LIMIT_WAIT, "github secondary rate limit");
    }
  }

  /** GitHub's documented minimum wait after a secondary rate limit without retry-after. */
  static final Duration SECONDARY_LIMIT_WAIT = Duration.ofSeconds(60);

  static OptionalLong count(DialectContext context, String field, SignalSink sink) {
    Optional<String> value = context.headers().firstValue(field);
    return value.isEmpty() ? OptionalLong.empty() : FieldValues.count(field, value.get(), sink);
  }
}
