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
 * Vendor-prefixed per-endpoint fields whose value is a {@code key=value} list, such as Zendesk's
 * {@code zendesk-ratelimit-tickets-index: total=100; remaining=99; resets=41} beside the account's
 * {@code X-Rate-Limit} and {@code RateLimit-*} fields: a second, narrower policy named by what
 * follows {@code ratelimit-} in the field name ({@code "tickets-index"}).
 *
 * <p>Recognised keys: {@code total} or {@code limit} (the quota), {@code remaining}, and
 * {@code resets} or {@code reset} (by the {@link ResetValues epoch-versus-delta rule}); pairs are
 * separated by {@code ;} or {@code ,}; other keys are ignored. A field with none of these keys is
 * not this format and is ignored without a warning. Only names with {@code -ratelimit-} or
 * {@code -rate-limit-} after a vendor prefix are looked at (not {@code x-ratelimit-*}). Stateless.
 */
final class VendorListDialect implements FieldFamilies.Filtered {
  static final String NAME = "vendor-list";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public int fieldFamilies() {
    return FieldFamilies.VENDOR_RATELIMIT;
  }

  @Override
  public void read(DialectContext context, SignalSink sink) {
    HttpFields headers = context.headers();
    int seen = 0;
    for (String name : headers.names()) {
      if (FieldFamilies.of(name) != FieldFamilies.VENDOR_RATELIMIT) {
        continue;
      }
      if (++seen > SignalCollector.MAX_ITEMS) {
        return;
      }
      read(name, headers.values(name).get(0), context, sink);
    }
  }

  private static void read(String field, String value, DialectContext context, SignalSink sink) {
    if (value.length() > 1024 || value.indexOf('=') < 0) {
      return;
    }
    String limitText = null;
    String remainingText = null;
    String resetText = null;
    int start = 0;
    while (start <= value.length()) {
      int end = start;
      while (end < value.length() && value.charAt(end) != ';' && value.charAt(end) != ',') {
        end++;
      }
      int equals = value.indexOf('=', start);
      if (equals > start && equals < end) {
        String key = value.substring(start, equals).trim();
        String text = value.substring(equals + 1, end).trim();
        switch (key) {
          case "total", "limit" -> limitText = limitText == null ? text : limitText;
          case "remaining" -> remainingText = remainingText == null ? text : remainingText;
          case "resets", "reset" -> resetText = resetText == null ? text : resetText;
          default -> { }
        }
      }
      start = end + 1;
    }
    if (limitText == null && remainingText == null && resetText == null) {
      return;
    }
    int marker = field.indexOf("-ratelimit-");
    String policy = marker > 0 ? field.substring(marker + 11)
        : field.substring(field.indexOf("-rate-limit-") + 12);
    if (policy.isEmpty()) {
      policy = field;
    }
    OptionalLong limit = limitText == null ? OptionalLong.empty()
        : FieldValues.count(field, limitText, sink);
    OptionalLong remaining = remainingText == null ? OptionalLong.empty()
        : FieldValues.count(field, remainingText, sink);
    Optional<Duration> reset = resetText == null ? Optional.empty()
        : ResetValues.reset(field, resetText, context, sink);
    if (limit.isPresent()) {
      sink.policy(new QuotaPolicy(policy, limit.getAsLong(), QuotaUnit.REQUESTS,
          Optional.empty(), Optional.empty(), NAME), field, field);
    }
    if (remaining.isPresent()) {
      sink.limit(new QuotaLimit(policy, remaining.getAsLong(), reset, Optional.empty(), NAME),
          field, field);
    } else if (reset.isPresent()) {
      Fields.resetWithoutCount(sink, policy, Optional.empty(), reset.get(), field, NAME,
          "remaining key");
    }
  }
}
