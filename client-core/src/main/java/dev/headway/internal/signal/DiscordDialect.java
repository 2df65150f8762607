package dev.headway.internal.signal;

import dev.headway.HttpFields;
import dev.headway.QuotaLimit;
import dev.headway.QuotaPolicy;
import dev.headway.QuotaUnit;
import dev.headway.dialect.DialectContext;
import dev.headway.dialect.FieldValues;
import dev.headway.dialect.ResetValues;
import dev.headway.dialect.SignalSink;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Discord: {@code X-RateLimit-Limit}, {@code -Remaining}, {@code -Reset-After} (float seconds,
 * preferred) or {@code -Reset} (epoch seconds with decimals), named by {@code X-RateLimit-Bucket}
 * (routes sharing a bucket share a limit), or {@code "global"} when {@code X-RateLimit-Global}
 * is true. Recognised by {@code X-RateLimit-Bucket}, {@code -Reset-After}, {@code -Global} or
 * {@code -Scope}. The 429's {@code Retry-After} and body {@code retry_after} are read elsewhere.
 * Stateless.
 */
final class DiscordDialect implements FieldFamilies.Filtered {
  static final String NAME = "discord";

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
    Optional<String> bucket = headers.firstValue("x-ratelimit-bucket");
    Optional<String> resetAfter = headers.firstValue("x-ratelimit-reset-after");
    Optional<String> global = headers.firstValue("x-ratelimit-global");
    if (bucket.isEmpty() && resetAfter.isEmpty() && global.isEmpty()
        && !headers.contains("x-ratelimit-scope")) {
      return;
    }
    String name = global.isPresent() && global.get().trim().equalsIgnoreCase("true") ? "global"
        : bucket.map(String::trim).filter(b -> !b.isEmpty()).orElse(QuotaPolicy.DEFAULT_NAME);
    OptionalLong limit = GitHubDialect.count(context, "x-ratelimit-limit", sink);
    OptionalLong remaining = GitHubDialect.count(context, "x-ratelimit-remaining", sink);
    String resetField = "x-ratelimit-reset-after";
    Optional<Duration> reset = resetAfter.isPresent()
        ? FieldValues.seconds("x-ratelimit-reset-after", resetAfter.get(), sink)
        : Optional.empty();
    if (reset.isEmpty()) {
      resetField = "x-ratelimit-reset";
      reset = headers.firstValue("x-ratelimit-reset")
          .flatMap(v -> ResetValues.reset("x-ratelimit-reset", v, context, sink));
    }
    if (limit.isPresent()) {
      sink.policy(new QuotaPolicy(name, limit.getAsLong(), QuotaUnit.REQUESTS, Optional.empty(),
          Optional.empty(), NAME), "x-ratelimit-limit", "x-ratelimit-limit");
    }
    if (remaining.isPresent()) {
      sink.limit(new QuotaLimit(name, remaining.getAsLong(), reset, Optional.empty(), NAME),
          "x-ratelimit-remaining", resetField);
    }
  }
}
