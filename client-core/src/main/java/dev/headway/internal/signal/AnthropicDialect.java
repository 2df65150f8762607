package dev.headway.internal.signal;

import dev.headway.QuotaUnit;
import dev.headway.dialect.DialectContext;
import dev.headway.dialect.SignalSink;

/**
 * Anthropic's {@code anthropic-ratelimit-{requests,tokens,input-tokens,output-tokens}-{limit,
 * remaining,reset}}: one policy each ({@code "requests"} counts requests, the others tokens). The
 * reset is an RFC 3339 time at which the token bucket is full again; one that lies before the
 * response's {@code Date} (seen in real responses) is a reset of zero. {@code retry-after} is
 * read by the retry-after dialect. Stateless.
 */
final class AnthropicDialect implements FieldFamilies.Filtered {
  static final String NAME = "anthropic";

  private static final Fields[] GROUPS = {
    group("requests", QuotaUnit.REQUESTS),
    group("tokens", QuotaUnit.TOKENS),
    group("input-tokens", QuotaUnit.TOKENS),
    group("output-tokens", QuotaUnit.TOKENS),
  };

  private static Fields group(String name, QuotaUnit unit) {
    String prefix = "anthropic-ratelimit-" + name;
    return Fields.of(name, unit, prefix + "-limit", prefix + "-remaining", prefix + "-reset");
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public int fieldFamilies() {
    return FieldFamilies.ANTHROPIC;
  }

  @Override
  public void read(DialectContext context, SignalSink sink) {
    for (Fields group : GROUPS) {
      group.read(context, sink, NAME);
    }
  }
}
