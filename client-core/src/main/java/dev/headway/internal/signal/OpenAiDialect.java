package dev.headway.internal.signal;

import dev.headway.QuotaUnit;
import dev.headway.dialect.DialectContext;
import dev.headway.dialect.SignalSink;

/**
 * OpenAI's (and Groq's, and Azure OpenAI's) {@code x-ratelimit-{limit,remaining,reset}-requests}
 * and {@code -tokens}: two policies, {@code "requests"} ({@link QuotaUnit#REQUESTS}) and
 * {@code "tokens"} ({@link QuotaUnit#TOKENS}), plus {@code "tokens_usage_based"} when sent. The
 * resets are Go durations ({@code 1s}, {@code 6m0s}, {@code 12ms}, {@code 2m59.56s}). Windows
 * are not sent (OpenAI counts per minute, Groq's requests per day), so none is reported. Azure
 * OpenAI's {@code -1} means unknown ({@link dev.headway.SignalWarning.Kind#SENTINEL}). Stateless.
 */
final class OpenAiDialect implements FieldFamilies.Filtered {
  static final String NAME = "openai";

  private static final Fields REQUESTS = Fields.of("requests", QuotaUnit.REQUESTS,
      "x-ratelimit-limit-requests", "x-ratelimit-remaining-requests",
      "x-ratelimit-reset-requests");
  private static final Fields TOKENS = Fields.of("tokens", QuotaUnit.TOKENS,
      "x-ratelimit-limit-tokens", "x-ratelimit-remaining-tokens", "x-ratelimit-reset-tokens");
  private static final Fields USAGE_BASED = Fields.of("tokens_usage_based", QuotaUnit.TOKENS,
      "x-ratelimit-limit-tokens_usage_based", "x-ratelimit-remaining-tokens_usage_based",
      "x-ratelimit-reset-tokens_usage_based");

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
    REQUESTS.read(context, sink, NAME);
    if (TOKENS.read(context, sink, NAME)) {
      USAGE_BASED.read(context, sink, NAME);
    }
  }
}
