package dev.headway.store;

/**
 * A store could not answer: it timed out, its server is unreachable, or it is backing off after
 * such a failure. The only exception a {@link QuotaStore}'s stages complete with; a pacer that
 * sees it paces locally.
 *
 * <p>Thread-safe.
 */
public class QuotaStoreException extends Exception {
  private static final long serialVersionUID = 1L;

  /**
   * Creates an exception with a message and an optional cause.
   *
   * @param message what failed
   * @param cause the underlying failure, or null
   */
  public QuotaStoreException(String message, @org.jspecify.annotations.Nullable Throwable cause) {
    super(message, cause);
  }

  /**
   * Creates an exception with a message.
   *
   * @param message what failed
   */
  public QuotaStoreException(String message) {
    super(message);
  }
}
