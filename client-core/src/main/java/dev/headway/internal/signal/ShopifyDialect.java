package dev.headway.internal.signal;

import dev.headway.QuotaLimit;
import dev.headway.QuotaPolicy;
import dev.headway.QuotaUnit;
import dev.headway.SignalWarning;
import dev.headway.dialect.DialectContext;
import dev.headway.dialect.FieldValues;
import dev.headway.dialect.SignalSink;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Shopify REST's {@code X-Shopify-Shop-Api-Call-Limit: 32/40}: <em>used</em>/limit of a leaky
 * bucket, so 8 remain; reported as policy {@code "api-call-limit"} (no window or reset: the
 * header sends neither). Shopify's fractional {@code Retry-After: 2.0} is read by the
 * retry-after dialect. Stateless.
 */
final class ShopifyDialect implements FieldFamilies.Filtered {
  static final String NAME = "shopify";
  static final String FIELD = "x-shopify-shop-api-call-limit";
  static final String POLICY = "api-call-limit";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public int fieldFamilies() {
    return FieldFamilies.SHOPIFY;
  }

  @Override
  public void read(DialectContext context, SignalSink sink) {
    List<String> values = context.headers().values(FIELD);
    if (values.isEmpty()) {
      return;
    }
    String value = values.get(0);
    int slash = value.indexOf('/');
    if (slash < 0) {
      sink.warn(FIELD, SignalWarning.Kind.MALFORMED, "not used/limit: " + FieldValues.quote(value));
      return;
    }
    OptionalLong used = FieldValues.count(FIELD, value.substring(0, slash), sink);
    OptionalLong limit = FieldValues.count(FIELD, value.substring(slash + 1), sink);
    if (used.isEmpty() || limit.isEmpty()) {
      return;
    }
    sink.policy(new QuotaPolicy(POLICY, limit.getAsLong(), QuotaUnit.REQUESTS, Optional.empty(),
        Optional.empty(), NAME), FIELD, FIELD);
    sink.limit(new QuotaLimit(POLICY, Math.max(0, limit.getAsLong() - used.getAsLong()),
        Optional.empty(), Optional.empty(), NAME), FIELD, FIELD);
  }
}
