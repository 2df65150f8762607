package dev.headway;

import java.util.Objects;

/**
 * Something in a response's rate-limit signals that Headway did not take as sent.
 *
 * @param field the lower-cased name of the field the value came from ({@code "x-ratelimit-reset"},
 *     {@code "retry-after"}), {@code "body"} for a body hint, {@code "age"} for a cached response,
 *     or {@code "*"} when no one field is to blame (a dialect that failed, a summary, a value a
 *     custom dialect reported without naming its field)
 * @param kind what was done with the value
 * @param message a human-readable explanation naming the value (and its policy, for a policy or
 *     limit); durations are in seconds ({@code "delay 99999999 s capped to 86400 s"})
 */
public record SignalWarning(String field, Kind kind, String message) {

  /** What Headway did with the value. */
  public enum Kind {
    /** The value could not be parsed and was ignored. */
    MALFORMED,
    /** The value was past a sanity cap and was clamped to it. */
    CAPPED,
    /**
     * The value was nonsense (negative, NaN, overflowing, incomplete, a reset past
     * {@link SanityCaps#maxReset()}) and was dropped.
     */
    DROPPED,
    /** The value was a documented sentinel meaning "unknown" (such as {@code -1}). */
    SENTINEL,
    /** The field was ignored because the response came from a cache ({@code Age} &gt; 0). */
    CACHED,
    /**
     * The value was incomplete (a limit without its remaining count, a policy without its limit
     * item): what it said was kept, and the message names what was missing.
     */
    INCOMPLETE,
    /**
     * The value was read in another unit than its field implies, because the implied unit could
     * not be meant (a reset of 600000 "seconds" read as milliseconds).
     */
    REINTERPRETED,
    /**
     * The value named a time already past at the response's time (an epoch reset from before
     * its {@code Date}: a stale value, or a server whose clock is off); it was read as "now".
     */
    STALE
  }

  /**
   * Validates the components.
   *
   * @param field the lower-cased name of the field the value came from
   * @param kind what was done with the value
   * @param message a human-readable explanation naming the value
   */
  public SignalWarning {
    Objects.requireNonNull(field, "field must not be null");
    Objects.requireNonNull(kind, "kind must not be null");
    Objects.requireNonNull(message, "message must not be null");
  }

  /** Returns e.g. {@code retry-after (CAPPED): delay 99999999 s capped to 86400 s}. */
  @Override
  public String toString() {
    return field + " (" + kind + "): " + message;
  }
}
