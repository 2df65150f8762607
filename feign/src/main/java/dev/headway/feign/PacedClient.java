package dev.headway.feign;

import dev.headway.Pacer;
import dev.headway.internal.adapter.PacedExchange;
import feign.Client;
import feign.Request;
import feign.Response;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;

/**
 * The Feign {@link Client} a {@link RateLimitCapability} puts around the one Feign was given:
 * each {@link #execute} is one paced exchange. Immutable and thread-safe.
 */
final class PacedClient implements Client {
  private final Client delegate;
  private final Pacer pacer;
  private final Duration maxWait;
  private final int maxAttempts;

  PacedClient(Client delegate, Pacer pacer, Duration maxWait, int maxAttempts) {
    this.delegate = delegate;
    this.pacer = pacer;
    this.maxWait = maxWait;
    this.maxAttempts = maxAttempts;
  }

  /**
   * Paces, sends and, if throttled, retries {@code request}. An interrupted wait ends with an
   * {@link InterruptedIOException}, the flag restored: Feign wraps it in a
   * {@code RetryableException}, as it wraps every {@link IOException} of a client.
   */
  @Override
  public Response execute(Request request, Request.Options options) throws IOException {
    try {
      return PacedExchange.run(pacer, maxWait, maxAttempts,
          new FeignExchange(delegate, request, options));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedWait(e);
    }
  }
}
