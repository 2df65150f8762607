package dev.headway.internal.signal;

import dev.headway.HttpFields;
import dev.headway.SignalWarning;
import dev.headway.dialect.DialectContext;
import dev.headway.dialect.FieldValues;
import dev.headway.dialect.SignalSink;
import java.time.Duration;
import java.util.List;

/**
 * A server's own verdict on retrying a response, which overrides the client's retry rule in both
 * directions:
 *
 * <ul>
 *   <li>{@code x-should-retry: true|false}: OpenAI's and Anthropic's APIs; their official SDKs
 *       retry on {@code true} and never on {@code false}, whatever the status;
 *   <li>{@code Stripe-Should-Retry: true|false}: Stripe's API, obeyed the same way by its SDKs;
 *   <li>{@code grpc-retry-pushback-ms}: gRPC's server pushback. A negative value means "do not
 *       retry"; a non-negative one is the delay before retrying, in milliseconds (a retry delay
 *       like {@code Retry-After}, which takes precedence when both are sent).
 * </ul>
 *
 * <p>Values are read case-insensitively and trimmed; anything else is a malformed-value warning.
 * Only the first field line of each is read. Stateless.
 */
final class ShouldRetryDialect implements FieldFamilies.Filtered {
  static final String NAME = "should-retry";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public int fieldFamilies() {
    return FieldFamilies.SHOULD_RETRY;
  }

  @Override
  public void read(DialectContext context, SignalSink sink) {
    HttpFields headers = context.headers();
    verdict(headers, "x-should-retry", sink);
    verdict(headers, "stripe-should-retry", sink);
    List<String> pushback = headers.values("grpc-retry-pushback-ms");
    if (!pushback.isEmpty()) {
      pushback(pushback.get(0).trim(), sink);
    }
  }

  private static void verdict(HttpFields headers, String field, SignalSink sink) {
    List<String> values = headers.values(field);
    if (values.isEmpty()) {
      return;
    }
    String value = values.get(0).trim();
    if (value.equalsIgnoreCase("true")) {
      sink.shouldRetry(true, field);
    } else if (value.equalsIgnoreCase("false")) {
      sink.shouldRetry(false, field);
    } else {
      sink.warn(field, SignalWarning.Kind.MALFORMED,
          "not true or false: " + FieldValues.quote(value));
    }
  }

  /** gRPC's rule: a negative integer vetoes the retry, a non-negative one is its delay. */
  private static void pushback(String value, SignalSink sink) {
    String field = "grpc-retry-pushback-ms";
    boolean negative = value.startsWith("-");
    String digits = negative ? value.substring(1) : value;
    if (digits.isEmpty() || digits.length() > 18 || !digits.chars().allMatch(Character::isDigit)) {
      sink.warn(field, SignalWarning.Kind.MALFORMED,
          "not an integer: " + FieldValues.quote(value));
      return;
    }
    if (negative) {
      sink.shouldRetry(false, field);
    } else {
      sink.retryAfter(Duration.ofMillis(Long.parseLong(digits)), field);
    }
  }
}
