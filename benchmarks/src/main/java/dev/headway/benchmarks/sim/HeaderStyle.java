package dev.headway.benchmarks.sim;

import dev.headway.HttpFields;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/**
 * How a simulated server tells its quota. Every style sends {@code Date} (whole seconds, as
 * HTTP does); every style but {@link #NONE} sends {@code Retry-After} (whole seconds, rounded
 * up) on a 429. Resets are whole seconds rounded up, as the formats require.
 */
public enum HeaderStyle {
  /** {@code RateLimit-Policy: "default";q=100;w=60} and {@code RateLimit: "default";r=42;t=17}. */
  STRUCTURED("structured RateLimit"),
  /** {@code RateLimit-Limit: 100, 100;w=60}, {@code RateLimit-Remaining}, {@code -Reset}. */
  DRAFT02("draft-02 trio"),
  /** {@code X-RateLimit-Limit}, {@code -Remaining}, {@code -Reset} as epoch seconds. */
  X_EPOCH("X-RateLimit epoch"),
  /** Nothing but {@code Retry-After} on a 429. */
  RETRY_AFTER("Retry-After only"),
  /** No rate-limit header at all; a bare 429. */
  NONE("no headers");

  private static final DateTimeFormatter HTTP_DATE = DateTimeFormatter.RFC_1123_DATE_TIME;

  private final String label;

  HeaderStyle(String label) {
    this.label = label;
  }

  /** Returns a short human label for tables. */
  public String label() {
    return label;
  }

  /** Returns whether the style carries quota state on every response. */
  public boolean advertisesQuota() {
    return this == STRUCTURED || this == DRAFT02 || this == X_EPOCH;
  }

  /**
   * Returns the response's header fields.
   *
   * @param decision what the server decided
   * @param quota the advertised quota per window
   * @param windowNanos the advertised window
   * @param serverNow the server's wall clock
   */
  public HttpFields render(Decision decision, long quota, long windowNanos, Instant serverNow) {
    HttpFields.Builder fields = HttpFields.builder();
    fields.add("Content-Type", "application/json");
    fields.add("Date", HTTP_DATE.format(
        Instant.ofEpochSecond(serverNow.getEpochSecond()).atOffset(ZoneOffset.UTC)));
    long windowSeconds = ceilSeconds(windowNanos);
    long resetSeconds = ceilSeconds(decision.resetNanos());
    switch (this) {
      case STRUCTURED -> {
        fields.add("RateLimit-Policy", "\"default\";q=" + quota + ";w=" + windowSeconds);
        fields.add("RateLimit",
            "\"default\";r=" + decision.remaining() + ";t=" + resetSeconds);
      }
      case DRAFT02 -> {
        fields.add("RateLimit-Limit", quota + ", " + quota + ";w=" + windowSeconds);
        fields.add("RateLimit-Remaining", Long.toString(decision.remaining()));
        fields.add("RateLimit-Reset", Long.toString(resetSeconds));
      }
      case X_EPOCH -> {
        long resetEpoch = ceilSeconds(
            serverNow.getEpochSecond() * 1_000_000_000L + serverNow.getNano()
                + decision.resetNanos());
        fields.add("X-RateLimit-Limit", Long.toString(quota));
        fields.add("X-RateLimit-Remaining", Long.toString(decision.remaining()));
        fields.add("X-RateLimit-Reset", Long.toString(resetEpoch));
      }
      case RETRY_AFTER, NONE -> {
        // quota state is not told
      }
    }
    if (!decision.allowed() && this != NONE) {
      long retryAfter = Math.max(1, ceilSeconds(decision.retryAfterNanos()));
      fields.add("Retry-After", Long.toString(retryAfter));
    }
    return fields.build();
  }

  static long ceilSeconds(long nanos) {
    return Math.floorDiv(nanos + 999_999_999L, 1_000_000_000L);
  }
}
