package dev.headway.feign;

import java.io.InterruptedIOException;

/**
 * The failure of a Feign call whose wait for quota (a permit, a retry's delay) was interrupted:
 * an {@link InterruptedIOException}, as Feign expects of a client, of a type of its own, so that
 * {@link ThrottleAwareRetryer} tells it from the client's own {@code InterruptedIOException}s
 * (a {@link java.net.SocketTimeoutException}, OkHttp's call timeout), which stay Feign's
 * retryer's to retry.
 */
final class InterruptedWait extends InterruptedIOException {
  private static final long serialVersionUID = 1L;

  InterruptedWait(InterruptedException cause) {
    super("interrupted while waiting for quota");
    initCause(cause);
  }
}
