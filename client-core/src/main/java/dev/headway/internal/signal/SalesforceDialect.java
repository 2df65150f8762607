package dev.headway.internal.signal;

import dev.headway.QuotaLimit;
import dev.headway.QuotaPolicy;
import dev.headway.QuotaUnit;
import dev.headway.SignalWarning;
import dev.headway.dialect.DialectContext;
import dev.headway.dialect.FieldValues;
import dev.headway.dialect.SignalSink;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Salesforce's {@code Sforce-Limit-Info: api-usage=18/5000; per-app-api-usage=17/250(appName=x)}
 * (also {@code api-bursts=1/750}): <em>used</em>/limit pairs, one policy per key.
 * {@code api-usage} is a rolling 24-hour window; the others' windows are not sent. Stateless.
 */
final class SalesforceDialect implements FieldFamilies.Filtered {
  static final String NAME = "salesforce";
  static final String FIELD = "sforce-limit-info";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public int fieldFamilies() {
    return FieldFamilies.SALESFORCE;
  }

  @Override
  public void read(DialectContext context, SignalSink sink) {
    Optional<String> field = context.headers().firstValue(FIELD);
    if (field.isEmpty()) {
      return;
    }
    String value = field.get();
    int start = 0;
    int count = 0;
    while (start < value.length() && count++ < 16) {
      int end = value.indexOf(';', start);
      if (end < 0) {
        end = value.length();
      }
      entry(value.substring(start, end).trim(), sink);
      start = end + 1;
    }
  }

  private static void entry(String entry, SignalSink sink) {
    if (entry.isEmpty()) {
      return;
    }
    int eq = entry.indexOf('=');
    int slash = entry.indexOf('/', Math.max(eq, 0));
    if (eq <= 0 || slash < 0) {
      sink.warn(FIELD, SignalWarning.Kind.MALFORMED, "not key=used/limit: "
          + FieldValues.quote(entry));
      return;
    }
    String key = entry.substring(0, eq).trim();
    int paren = entry.indexOf('(', slash);
    OptionalLong used = FieldValues.count(FIELD, entry.substring(eq + 1, slash), sink);
    OptionalLong limit = FieldValues.count(FIELD,
        entry.substring(slash + 1, paren < 0 ? entry.length() : paren), sink);
    if (used.isEmpty() || limit.isEmpty()) {
      return;
    }
    Optional<Duration> window = key.equals("api-usage") ? Optional.of(Duration.ofHours(24))
        : Optional.empty();
    sink.policy(new QuotaPolicy(key, limit.getAsLong(), QuotaUnit.REQUESTS, window,
        Optional.empty(), NAME), FIELD, FIELD);
    sink.limit(new QuotaLimit(key, Math.max(0, limit.getAsLong() - used.getAsLong()),
        Optional.empty(), Optional.empty(), NAME), FIELD, FIELD);
  }
}
