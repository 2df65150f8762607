package dev.headway.dialect;

import dev.headway.HttpFields;
import java.time.Instant;
import java.util.Optional;

/**
 * The response a {@link Dialect} reads: status, headers, and the wall-clock time against which
 * absolute resets are interpreted.
 *
 * @param status the HTTP status code
 * @param headers the response's header fields
 * @param receivedAt when the client received the response (wall clock)
 * @param serverDate the response's {@code Date} field, if present and valid
 */
public record DialectContext(
    int status, HttpFields headers, Instant receivedAt, Optional<Instant> serverDate) {

  /**
   * Returns the time that relative and absolute values in the response are measured against:
   * the server's {@code Date} if present, else the time of receipt.
   */
  public Instant now() {
    return serverDate.orElse(receivedAt);
  }
}
