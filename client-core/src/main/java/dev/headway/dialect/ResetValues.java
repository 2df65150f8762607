package dev.headway.dialect;

import dev.headway.SignalWarning;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Reads reset times and retry delays whose unit the field name does not fix, and turns them into
 * a {@link Duration} from the response's time ({@link DialectContext#now()}: its {@code Date}
 * field, else the time it was received). For dialect authors.
 *
 * <h2>The epoch-versus-delta rule</h2>
 *
 * <p>A bare number in a reset field ({@code X-RateLimit-Reset: 1377013266},
 * {@code RateLimit-Reset: 50}, possibly with a fraction) is read as follows, where <i>now</i> is
 * {@code Date} (else the time of receipt) in epoch seconds:
 *
 * <ol>
 *   <li>a value of at least 10<sup>12</sup> ({@link #EPOCH_MILLIS_THRESHOLD}) is epoch
 *       <em>milliseconds</em> (Linear): as seconds it would be more than 31,000 years, and as
 *       epoch seconds it lies past the year 33,000;
 *   <li>otherwise a value within ten years ({@link #EPOCH_WINDOW}) of <i>now</i> is epoch
 *       <em>seconds</em> (GitHub, X, GitLab, Discord's {@code 1470173023.123}): as a delay it would
 *       be decades, which no documented API means;
 *   <li>otherwise it is a <em>delay in seconds</em> (the drafts, Kong, express, fastify).
 * </ol>
 *
 * <p>An epoch reset finer than whole seconds (a fraction, or milliseconds that are not whole
 * seconds: koa-ratelimit's {@code 1764441234.567}) is measured from
 * {@link DialectContext#exactNow()} rather than from the start of the {@code Date}'s second,
 * which would make it up to a second long; a whole-second one from {@code Date}, as its own
 * rounding is a second's too.
 *
 * <p>An absolute reset that lies in the past relative to <i>now</i> (Anthropic's replenish time
 * can be a second before {@code Date}) is a reset of zero, never a negative one. Non-numeric
 * values are recognised by shape: RFC 3339 ({@code 2025-08-21T12:40:59Z}, Jira's
 * {@code 2024-05-05T18:02Z}), a Go duration ({@code 6m0s}, {@code 20ms}), a clock duration
 * ({@code 00:00:03}), or an HTTP-date. A {@code Retry-After} number is never an epoch: use
 * {@link #delayOrDate} for it.
 *
 * <p>A delay in milliseconds below 10<sup>12</sup> (Prisjakt's
 * {@code X-Rate-Limit-Reset: 600000}, documented as milliseconds) cannot be told from seconds by
 * its shape. {@link #reset(String, String, DialectContext, SignalSink, Duration)} takes the
 * longest reset that can be meant (the policy's window, else a day): a whole delay longer than
 * that as seconds, but within it as milliseconds, is read as milliseconds, with a
 * {@link SignalWarning.Kind#REINTERPRETED} warning. Plain {@link #reset} reads it as seconds and
 * the {@link dev.headway.SanityCaps} bound the result.
 *
 * <p>Never throws for any input; linear in its length. Stateless and thread-safe.
 */
public final class ResetValues {
  /** Bare numbers at or above this value are epoch milliseconds. */
  public static final long EPOCH_MILLIS_THRESHOLD = 1_000_000_000_000L;

  /** Bare numbers within this distance of the response's time are epoch seconds: ten years. */
  public static final Duration EPOCH_WINDOW = Duration.ofSeconds(315_576_000L);

  private ResetValues() {}

  /**
   * Reads a reset of unknown unit by the rule above.
   *
   * @param field the field name the value came from, used in warnings
   * @param value the field value, as sent
   * @param context the response being read; its time is what the reset is measured from
   * @param sink where warnings go
   * @return the time from {@link DialectContext#now()} to the reset, not negative; empty (with a
   *     warning naming {@code field}) if the value is not a reset
   */
  public static Optional<Duration> reset(String field, String value, DialectContext context,
      SignalSink sink) {
    int from = ValueScanning.start(value);
    int to = ValueScanning.end(value, from);
    if (from == to) {
      sink.warn(field, SignalWarning.Kind.MALFORMED, "empty value");
      return Optional.empty();
    }
    switch (shape(value, from, to)) {
      case NUMBER: {
        Duration number = ValueScanning.decimal(field, value, from, to, sink);
        if (number == null) {
          return Optional.empty();
        }
        long whole = number.getSeconds();
        long nowSeconds = context.now().getEpochSecond();
        if (whole >= EPOCH_MILLIS_THRESHOLD) {
          Duration sinceEpoch = ValueScanning.fromMillisScaled(number);
          return Optional.of(epoch(field, value, Instant.EPOCH.plus(sinceEpoch), context, sink));
        }
        if (Math.abs(whole - nowSeconds) <= EPOCH_WINDOW.getSeconds()) {
          return Optional.of(epoch(field, value, Instant.ofEpochSecond(whole, number.getNano()),
              context, sink));
        }
        return Optional.of(number);
      }
      case RFC3339:
        return instant(field, value, Dates.rfc3339(value), context, sink);
      case GO_DURATION:
        return FieldValues.goDuration(field, value, sink);
      case CLOCK:
        return FieldValues.clockDuration(field, value, sink);
      case DATE:
        return instant(field, value, Dates.httpDate(value), context, sink);
      default:
        sink.warn(field, SignalWarning.Kind.MALFORMED, "not a reset: " + FieldValues.quote(value));
        return Optional.empty();
    }
  }

  /**
   * Reads a reset of unknown unit by the rule above, reading a whole delay as milliseconds when
   * seconds cannot be meant: longer than {@code longestMeant} as seconds, within it as
   * milliseconds (Prisjakt's {@code 600000} for an hourly window).
   *
   * @param field the field name the value came from, used in warnings
   * @param value the field value, as sent
   * @param context the response being read; its time is what the reset is measured from
   * @param sink where warnings go
   * @param longestMeant the longest reset the field can mean: the policy's window if known, else
   *     {@link #LONGEST_RESET}
   * @return the time from {@link DialectContext#now()} to the reset, not negative; empty (with a
   *     warning naming {@code field}) if the value is not a reset
   */
  public static Optional<Duration> reset(String field, String value, DialectContext context,
      SignalSink sink, Duration longestMeant) {
    long limit = longestMeant.getSeconds();
    int from = ValueScanning.start(value);
    int to = ValueScanning.end(value, from);
    if (isWholeNumber(value, from, to) && to - from <= 18) {
      long raw = ValueScanning.digits(value, from, to);
      if (raw > limit && raw / 1000 <= limit
          && Math.abs(raw - context.now().getEpochSecond()) > EPOCH_WINDOW.getSeconds()) {
        sink.warn(field, SignalWarning.Kind.REINTERPRETED, "reset " + raw
            + " read as milliseconds: as seconds it would be longer than " + limit + " s");
        return Optional.of(Duration.ofMillis(raw));
      }
    }
    return reset(field, value, context, sink);
  }

  /** The longest reset meant when no window is known: one day, the longest common window. */
  public static final Duration LONGEST_RESET = Duration.ofDays(1);

  private static boolean isWholeNumber(String value, int from, int to) {
    if (from == to) {
      return false;
    }
    for (int i = from; i < to; i++) {
      if (!ValueScanning.isDigit(value.charAt(i))) {
        return false;
      }
    }
    return true;
  }

  /**
   * Reads a value that is either delay-seconds (a fraction tolerated) or an HTTP-date, as
   * {@code Retry-After} carries it (RFC 9110 section 10.2.3). A number here is always a delay,
   * never an epoch: {@code Retry-After: 120} means two minutes, not 1970. A date is measured from
   * {@link DialectContext#now()}; one in the past is a delay of zero.
   *
   * @param field the field name the value came from, used in warnings
   * @param value the field value, as sent
   * @param context the response being read; its time is what the reset is measured from
   * @param sink where warnings go
   * @return the delay, not negative; empty (with a warning naming {@code field}) if the value is
   *     neither form
   */
  public static Optional<Duration> delayOrDate(String field, String value,
      DialectContext context, SignalSink sink) {
    int from = ValueScanning.start(value);
    int to = ValueScanning.end(value, from);
    if (from < to
        && (!isLetter(value.charAt(from)) || ValueScanning.isNonFinite(value, from, to))) {
      return Optional.ofNullable(ValueScanning.decimal(field, value, from, to, sink));
    }
    return instant(field, value, Dates.httpDate(value), context, sink);
  }

  /**
   * Returns the time from {@link DialectContext#now()} until {@code instant}; zero if it lies in
   * the past.
   *
   * @param instant the instant to measure to
   * @param context the response being read; its time is what the duration is measured from
   * @return the duration until {@code instant}; zero if it is not after the response's time
   */
  public static Duration until(Instant instant, DialectContext context) {
    Instant now = context.now();
    if (!instant.isAfter(now)) {
      return Duration.ZERO;
    }
    return Duration.between(now, instant);
  }

  /**
   * Returns the time until an epoch reset, warning ({@link SignalWarning.Kind#STALE}) when it lies
   * before the response's time: zero then, as a reset that already happened.
   */
  private static Duration epoch(String field, String value, Instant reset, DialectContext context,
      SignalSink sink) {
    // A reset finer than whole seconds is measured from the server's clock as exactly as known;
    // a whole second from the Date's (both whole seconds: the pacer's rounding rules apply).
    boolean fine = reset.getNano() != 0;
    Instant now = fine ? context.exactNow() : context.now();
    if (reset.isBefore(now)) {
      sink.warn(field, SignalWarning.Kind.STALE, "epoch reset " + FieldValues.quote(value) + " ("
          + reset + ") is " + Duration.between(reset, now).toSeconds()
          + " s before the response's time " + now + ": read as now (a stale value, or the"
          + " server's clock is off)");
    }
    return reset.isAfter(now) ? Duration.between(now, reset) : Duration.ZERO;
  }

  private static Optional<Duration> instant(String field, String value, @Nullable Instant parsed,
      DialectContext context, SignalSink sink) {
    if (parsed == null) {
      sink.warn(field, SignalWarning.Kind.MALFORMED, "not a date: " + FieldValues.quote(value));
      return Optional.empty();
    }
    return Optional.of(until(parsed, context));
  }

  private enum Shape { NUMBER, RFC3339, GO_DURATION, CLOCK, DATE, UNKNOWN }

  private static Shape shape(String value, int from, int to) {
    char first = value.charAt(from);
    if (ValueScanning.isNonFinite(value, from, to)) {
      return Shape.NUMBER; // reported as DROPPED by the number parser
    }
    if (isLetter(first)) {
      return Shape.DATE;
    }
    boolean letters = false;
    boolean colon = false;
    for (int i = from; i < to; i++) {
      char c = value.charAt(i);
      if (c == ':') {
        colon = true;
      } else if (isLetter(c) || c == '\u00b5' || c == '\u03bc') {
        letters = true;
      }
    }
    if (to - from >= 16 && value.charAt(from + 4) == '-') {
      return Shape.RFC3339;
    }
    if (colon) {
      return letters ? Shape.UNKNOWN : Shape.CLOCK;
    }
    if (letters) {
      return Shape.GO_DURATION;
    }
    return Shape.NUMBER;
  }

  private static boolean isLetter(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  }
}
