package dev.headway.internal.signal;

import dev.headway.HttpFields;
import dev.headway.QuotaLimit;
import dev.headway.dialect.DialectContext;
import dev.headway.dialect.FieldValues;
import dev.headway.dialect.SignalSink;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Azure Resource Manager's remaining-only counters {@code x-ms-ratelimit-remaining-<scope>}
 * ({@code subscription-reads: 11999}, {@code tenant-writes}, {@code subscription-global-reads},
 * ...): one limit per scope, named by the scope, with neither quota nor reset. Azure Resource
 * Graph's {@code x-ms-user-quota-remaining} with {@code x-ms-user-quota-resets-after: 00:00:03}
 * ({@code hh:mm:ss}): limit {@code "user-quota"}. Azure's retry headers are read by the
 * retry-after dialect. Stateless; one pass over the header names.
 */
final class AzureDialect implements FieldFamilies.Filtered {
  static final String NAME = "azure";
  private static final String PREFIX = "x-ms-ratelimit-remaining-";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public int fieldFamilies() {
    return FieldFamilies.X_MS;
  }

  @Override
  public void read(DialectContext context, SignalSink sink) {
    HttpFields headers = context.headers();
    for (String name : headers.names()) {
      if (name.length() > PREFIX.length() && name.charAt(0) == 'x' && name.startsWith(PREFIX)) {
        OptionalLong remaining = FieldValues.count(name, headers.values(name).get(0), sink);
        if (remaining.isPresent()) {
          sink.limit(new QuotaLimit(name.substring(PREFIX.length()), remaining.getAsLong(),
              Optional.empty(), Optional.empty(), NAME), name, name);
        }
      }
    }
    List<String> quota = headers.values("x-ms-user-quota-remaining");
    if (!quota.isEmpty()) {
      OptionalLong remaining = FieldValues.count("x-ms-user-quota-remaining", quota.get(0), sink);
      List<String> resets = headers.values("x-ms-user-quota-resets-after");
      Optional<Duration> reset = resets.isEmpty() ? Optional.empty()
          : FieldValues.clockDuration("x-ms-user-quota-resets-after", resets.get(0), sink);
      if (remaining.isPresent()) {
        sink.limit(new QuotaLimit("user-quota", remaining.getAsLong(), reset, Optional.empty(),
            NAME), "x-ms-user-quota-remaining", "x-ms-user-quota-resets-after");
      }
    }
  }
}
