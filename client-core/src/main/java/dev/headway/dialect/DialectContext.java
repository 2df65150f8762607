package dev.headway.dialect;

import dev.headway.HttpFields;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The response a {@link Dialect} reads: status, headers, and the wall-clock time against which
 * absolute resets are interpreted.
 *
 * <p>The {@code Date} field is parsed only when a dialect first asks for it
 * ({@link #serverDate()} or {@link #now()}), so responses whose dialects need no date do not pay
 * for parsing one. Servers send the same {@code Date} for a whole second, so the last value parsed
 * (by any context) is remembered and a repeated one is not parsed again. A context belongs to
 * one response; it is safe to share between threads (the lazily parsed date is computed
 * idempotently, and the remembered value is an immutable pair in a volatile field).
 */
public final class DialectContext {
  /** The last {@code Date} text parsed, with its result. */
  private static volatile DateMemo lastDate = new DateMemo("", Optional.empty());

  private final int status;
  private final HttpFields headers;
  private final Instant receivedAt;
  private final @Nullable Instant serverClockAtLeast;
  private volatile @Nullable Optional<Instant> serverDate;

  /**
   * Creates a context with an already known server date.
   *
   * @param status the HTTP status code
   * @param headers the response's header fields
   * @param receivedAt when the client received the response (wall clock)
   * @param serverDate the response's {@code Date} field, if present and valid
   */
  public DialectContext(int status, HttpFields headers, Instant receivedAt,
      Optional<Instant> serverDate) {
    this.status = status;
    this.headers = Objects.requireNonNull(headers, "headers must not be null");
    this.receivedAt = Objects.requireNonNull(receivedAt, "receivedAt must not be null");
    this.serverClockAtLeast = null;
    this.serverDate = Objects.requireNonNull(serverDate, "serverDate must not be null");
  }

  private DialectContext(int status, HttpFields headers, Instant receivedAt,
      @Nullable Instant serverClockAtLeast) {
    this.status = status;
    this.headers = Objects.requireNonNull(headers, "headers must not be null");
    this.receivedAt = Objects.requireNonNull(receivedAt, "receivedAt must not be null");
    this.serverClockAtLeast = serverClockAtLeast;
  }

  /**
   * Returns a context whose server date is read from the {@code Date} field of {@code headers}
   * (an HTTP-date) when first needed; an invalid or missing {@code Date} means no server date.
   *
   * @param status the HTTP status code
   * @param headers the response's header fields
   * @param receivedAt when the client received the response (wall clock)
   * @return a new context
   */
  public static DialectContext of(int status, HttpFields headers, Instant receivedAt) {
    return new DialectContext(status, headers, receivedAt, (@Nullable Instant) null);
  }

  /**
   * As {@link #of(int, HttpFields, Instant)}, knowing more of the server's clock than its
   * {@code Date} says: {@code serverClockAtLeast} is the earliest its clock can have read when it
   * answered (what a client learned from earlier answers). A {@code Date} names a whole second
   * and the server answered somewhere in it; when {@code serverClockAtLeast} falls inside that
   * second, {@link #exactNow()} returns it, so that a reset given finer than whole seconds is
   * no longer up to a second long.
   *
   * @param status the HTTP status code
   * @param headers the response's header fields
   * @param receivedAt when the client received the response (wall clock)
   * @param serverClockAtLeast the earliest the server's clock can have read when it answered;
   *     {@code null} if not known
   * @return a new context
   */
  public static DialectContext of(int status, HttpFields headers, Instant receivedAt,
      @Nullable Instant serverClockAtLeast) {
    return new DialectContext(status, headers, receivedAt, serverClockAtLeast);
  }

  /**
   * Returns the HTTP status code.
   *
   * @return the status code, as the client received it
   */
  public int status() {
    return status;
  }

  /**
   * Returns the response's header fields.
   *
   * @return the header fields; names compare ignoring case
   */
  public HttpFields headers() {
    return headers;
  }

  /**
   * Returns when the client received the response (wall clock).
   *
   * @return the time of receipt, on the pacer's wall clock
   */
  public Instant receivedAt() {
    return receivedAt;
  }

  /**
   * Returns the response's {@code Date} field, if present and a valid HTTP-date.
   *
   * @return the server's date, or empty if the field is absent or not an HTTP-date
   */
  public Optional<Instant> serverDate() {
    Optional<Instant> date = serverDate;
    if (date == null) {
      List<String> values = headers.values("date");
      if (values.isEmpty()) {
        date = Optional.empty();
      } else {
        String text = values.get(0);
        DateMemo memo = lastDate;
        if (memo.text().equals(text)) {
          date = memo.date();
        } else {
          date = FieldValues.httpDate(text);
          lastDate = new DateMemo(text, date);
        }
      }
      serverDate = date;
    }
    return date;
  }

  private record DateMemo(String text, Optional<Instant> date) {}

  /**
   * Returns the time that relative and absolute values in the response are measured against:
   * the server's {@code Date} if present, else the time of receipt.
   *
   * @return the server's date, else the time of receipt
   */
  public Instant now() {
    return serverDate().orElse(receivedAt);
  }

  /**
   * Returns the server's clock when it answered, as exactly as known: {@link #now()}, or, if this
   * context was given the earliest the server's clock can have read
   * ({@link #of(int, HttpFields, Instant, Instant)}) and that lies inside the second its
   * {@code Date} names, that instant (never later than the server's clock read, as long as one
   * clock answers for the origin). A value the server gave finer than whole seconds (an epoch
   * reset with a fraction, or in milliseconds) is measured from this: measured from the start of
   * the {@code Date}'s second, it would be up to a second long.
   *
   * @return the earliest the server's clock can have read when it answered, as known
   */
  public Instant exactNow() {
    Optional<Instant> date = serverDate();
    if (date.isEmpty()) {
      return receivedAt;
    }
    Instant second = date.get();
    Instant atLeast = serverClockAtLeast;
    if (atLeast != null && atLeast.isAfter(second) && atLeast.isBefore(second.plusSeconds(1))) {
      return atLeast;
    }
    return second;
  }

  /**
   * Returns every field line of {@code name} joined with {@code ", "} (RFC 9110 section 5.3), or
   * empty if the field is absent. Pass lower-case names: lookups are then allocation-free.
   *
   * @param name the field name; lower-case for allocation-free look-ups
   * @return the combined value, or empty if the field is absent
   */
  public Optional<String> field(String name) {
    List<String> values = headers.values(name);
    if (values.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(values.size() == 1 ? values.get(0) : String.join(", ", values));
  }
}
