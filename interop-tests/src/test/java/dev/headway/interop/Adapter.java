package dev.headway.interop;

import dev.headway.Pacer;
import java.net.URI;

/**
 * One HTTP client with Headway added the way its docs say, as the suite drives it.
 *
 * <p>Adding a client to the suite is one small class implementing this interface and one line in
 * {@link Adapters#ALL}: the suite then runs it against every server.
 */
interface Adapter {
  /** The name in the results table, e.g. {@code okhttp}. */
  String name();

  /**
   * Returns a client of this kind with Headway around {@code pacer}, set up once per cell and
   * shared by all of the cell's worker threads (so it must be thread-safe, as the clients are).
   */
  Caller open(Pacer pacer) throws Exception;

  /** A client ready to send. */
  interface Caller extends AutoCloseable {
    /**
     * Sends {@code GET uri} as a user's code would, reads the whole body and returns the status
     * the caller saw (a 429 included: it is not an error here). Throws what the client throws
     * to its caller (Headway's {@code RateLimitedException} when a wait would pass
     * {@code maxWait}, an interrupt, an I/O failure).
     */
    int get(URI uri) throws Exception;

    @Override
    default void close() throws Exception {}
  }
}
