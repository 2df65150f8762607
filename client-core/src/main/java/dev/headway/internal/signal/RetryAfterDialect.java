package dev.headway.internal.signal;

import dev.headway.HttpFields;
import dev.headway.dialect.DialectContext;
import dev.headway.dialect.FieldValues;
import dev.headway.dialect.ResetValues;
import dev.headway.dialect.SignalSink;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The retry delay a server asks for, from the first of these fields that holds a valid value:
 *
 * <ol>
 *   <li>{@code retry-after-ms}: milliseconds (OpenAI, Azure and Anthropic SDKs read it first);
 *   <li>{@code x-ms-retry-after-ms}: milliseconds (Azure SDK);
 *   <li>{@code Retry-After}: delay-seconds, a fraction tolerated (Shopify's {@code 2.0}), or an
 *       HTTP-date measured from the response's {@code Date} (else the time of receipt). A number
 *       is <em>never</em> an epoch: {@code Retry-After: 120} is two minutes;
 *   <li>{@code X-Retry-In}: a Go duration ({@code 30s}; Traefik, oxy);
 *   <li>{@code X-Retry-After}: Docker Hub's API, documented first as a Unix timestamp and later
 *       as seconds, so read with the {@link ResetValues epoch-versus-delta rule}.
 * </ol>
 *
 * <p>Only the first field line of each is read. Stateless.
 */
final class RetryAfterDialect implements FieldFamilies.Filtered {
  static final String NAME = "retry-after";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public int fieldFamilies() {
    return FieldFamilies.RETRY | FieldFamilies.X_MS;
  }

  @Override
  public void read(DialectContext context, SignalSink sink) {
    HttpFields headers = context.headers();
    Optional<Duration> delay = Optional.empty();
    String field = "retry-after-ms";
    List<String> values = headers.values(field);
    if (!values.isEmpty()) {
      delay = FieldValues.millis("retry-after-ms", values.get(0), sink);
    }
    if (delay.isEmpty()) {
      field = "x-ms-retry-after-ms";
      values = headers.values(field);
      if (!values.isEmpty()) {
        delay = FieldValues.millis("x-ms-retry-after-ms", values.get(0), sink);
      }
    }
    if (delay.isEmpty()) {
      field = "retry-after";
      values = headers.values(field);
      if (!values.isEmpty()) {
        delay = ResetValues.delayOrDate("retry-after", values.get(0), context, sink);
      }
    }
    if (delay.isEmpty()) {
      field = "x-retry-in";
      values = headers.values(field);
      if (!values.isEmpty()) {
        delay = FieldValues.goDuration("x-retry-in", values.get(0), sink);
      }
    }
    if (delay.isEmpty()) {
      field = "x-retry-after";
      values = headers.values(field);
      if (!values.isEmpty()) {
        delay = ResetValues.reset("x-retry-after", values.get(0), context, sink);
      }
    }
    if (delay.isPresent()) {
      sink.retryAfter(delay.get(), field);
    }
  }
}
