package dev.headway.feign;

import dev.headway.Pacer;
import dev.headway.RateLimitedException;
import dev.headway.internal.adapter.CallLimits;
import feign.AsyncClient;
import feign.Capability;
import feign.Client;
import feign.Retryer;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.Objects;

/**
 * A Feign {@link Capability} that paces every request of a Feign client against the quota its
 * servers advertise, and retries requests the server throttled after the delay the server asked
 * for. Works with Feign 13 and whichever {@link Client} Feign uses (its default, Java 11's,
 * OkHttp's, Apache HttpClient's, your own): the capability wraps it.
 *
 * <pre>{@code
 * GitHub github = Feign.builder()
 *     .addCapability(RateLimitCapability.create(pacer))
 *     .decoder(new JacksonDecoder())
 *     .target(GitHub.class, "https://api.github.com");
 * }</pre>
 *
 * <p>For each request the client sends it:
 *
 * <ol>
 *   <li>asks the {@link Pacer} for a permit, waiting on the calling thread as long as the pacer
 *       says. Every wait of a request (this permit, each retry's delay, each retry's permit)
 *       comes out of one budget of {@link Builder#maxWait maxWait}, measured on the pacer's
 *       {@link dev.headway.Ticker}. A first permit that needs a longer wait fails at once with
 *       {@link RateLimitedException}, an {@link IOException} (Feign wraps it in a
 *       {@code RetryableException}); nothing is sent. An interrupt ends the wait with an
 *       {@link InterruptedIOException}, wrapped the same way, the flag restored;
 *   <li>sends the request with the wrapped client and hands the response's status and headers
 *       (and, for a JSON 429, 503 or 403, the first bytes of its body that arrive within 100 ms,
 *       which the caller still reads in full) back to the pacer; if sending fails, the permit is
 *       released;
 *   <li>if the server throttled the request (429, or 503 with {@code Retry-After}) and the pacer
 *       advises a retry whose delay fits the remaining budget, waits that delay on the pacer's
 *       {@link dev.headway.Scheduler}, takes the retry's permit within what is left of the budget
 *       and sends the same request again, up to {@link Builder#maxAttempts maxAttempts} attempts
 *       in all. The delay is the server's ({@code Retry-After}, the quota's reset, a body hint),
 *       not capped at the one second of Feign's default retryer. If the retry's permit cannot be
 *       had in time, the throttled response goes to Feign as it came, body included: a retry
 *       never turns a 429 into an exception of Headway's. While it waits, a throttled body of at
 *       most 64 KiB is held in memory and its connection released. A non-idempotent method is
 *       retried after a 429 (the server did not process it) but not after a 503, unless the
 *       pacer is built with {@link Pacer.Builder#retryNonIdempotentOn503}.
 * </ol>
 *
 * <p>With Feign's own {@link Retryer}: the capability wraps it too, so that it never retries a
 * throttled response (a 429, or a 503 with {@code Retry-After}) that reaches it, nor a request
 * Headway refused to wait for, was interrupted in, or could not send because the pacer is closed:
 * Headway has decided those already, and another try would only add Feign's capped wait. Every
 * other failure goes to Feign's retryer as before (an {@link IOException} while sending, a
 * {@code RetryableException} of the application's {@code ErrorDecoder}); each of its attempts is
 * a new request here, paced, with a budget of its own.
 *
 * <p>A response Headway does not understand changes nothing: the request behaves as it would
 * without the capability. Asynchronous Feign ({@code AsyncFeign}) is not supported: building one
 * with this capability fails.
 *
 * <p>Timeouts: a call held before the server answered anything on its partition (no response, no
 * error, no timeout: the probes of first contact hold the other callers back) is executed
 * with {@code Request.Options} whose read timeout is less the time it was held (never below
 * 1 ms): against a server that never answers, it fails as soon as it would without Headway. A
 * wait after the server answered (a spent window, a {@code Retry-After}) or for a declared limit
 * leaves the timeout whole: it is the wait {@code maxWait} allows.
 *
 * <p>Immutable and thread-safe; share one instance (and one pacer) across clients. Under Spring
 * Cloud OpenFeign, a bean of this type is added to every Feign client of the context.
 */
public final class RateLimitCapability implements Capability {
  private final Pacer pacer;
  private final Duration maxWait;
  private final int maxAttempts;

  private RateLimitCapability(Builder builder) {
    this.pacer = builder.pacer;
    this.maxWait = builder.limits.maxWait(pacer);
    this.maxAttempts = builder.limits.maxAttempts(pacer);
  }

  /**
   * Returns a capability with its own {@link Pacer#create() default pacer}.
   *
   * @return a new capability with a pacer of its own
   */
  public static RateLimitCapability create() {
    return create(Pacer.create());
  }

  /**
   * Returns a capability that paces with {@code pacer} and its defaults.
   *
   * @param pacer the pacer asked before every request; possibly shared with other clients
   * @return a new capability with the pacer's {@code maxWait} and {@code maxAttempts}
   */
  public static RateLimitCapability create(Pacer pacer) {
    return builder(pacer).build();
  }

  /**
   * Returns a builder for a capability that paces with {@code pacer}.
   *
   * @param pacer the pacer asked before every request; possibly shared with other clients
   * @return a new builder
   */
  public static Builder builder(Pacer pacer) {
    return new Builder(pacer);
  }

  /**
   * Returns the pacer this capability asks; use it to inspect quotas.
   *
   * @return the pacer given at creation, or the capability's own
   */
  public Pacer pacer() {
    return pacer;
  }

  /**
   * Returns the longest a request may wait in all: for its permits and before its retries.
   *
   * @return the longest wait per request; positive
   */
  public Duration maxWait() {
    return maxWait;
  }

  /**
   * Returns the maximum number of attempts per request, the first included.
   *
   * @return the maximum attempts per request, at least 1
   */
  public int maxAttempts() {
    return maxAttempts;
  }

  /**
   * Returns {@code client} paced: each {@code execute} takes a permit, sends through
   * {@code client}, reads the response's rate-limit signals and retries a throttled response, as
   * this class describes. Feign calls it once, when it builds the client. A client another
   * {@code RateLimitCapability} already paces is returned as it is: added twice (a Spring Boot
   * starter's bean and one of the application's), the first one added paces each request once.
   *
   * @param client the client Feign would send with
   * @return a client that paces {@code client}'s requests
   */
  @Override
  public Client enrich(Client client) {
    if (client instanceof PacedClient) {
      return client;
    }
    return new PacedClient(client, pacer, maxWait, maxAttempts);
  }

  /**
   * Returns {@code retryer} minus what Headway decides: it propagates a throttled response
   * (a 429, or a 503 with {@code Retry-After}) and a request Headway refused, was interrupted in,
   * or could not send with a closed pacer, at once; everything else goes to {@code retryer}.
   * Feign calls it once, when it builds the client; a retryer another {@code RateLimitCapability}
   * already enriched is returned as it is.
   *
   * @param retryer the retryer Feign would use
   * @return a retryer that leaves throttled responses to Headway
   */
  @Override
  public Retryer enrich(Retryer retryer) {
    if (retryer instanceof ThrottleAwareRetryer) {
      return retryer;
    }
    return new ThrottleAwareRetryer(retryer, pacer);
  }

  /**
   * Refuses to be added to an {@code AsyncFeign} client, whose requests this capability does not
   * pace: added anyway, it would turn off the retries of throttled responses by Feign's retryer
   * with nothing to make them instead. Feign calls it when it builds an asynchronous client.
   *
   * @param client the asynchronous client Feign would send with
   * @return never
   * @throws UnsupportedOperationException always (Feign wraps it in a {@code RuntimeException})
   */
  @Override
  public AsyncClient<Object> enrich(AsyncClient<Object> client) {
    throw new UnsupportedOperationException("Headway: RateLimitCapability paces synchronous Feign"
        + " clients (Feign.builder()) only, not AsyncFeign: remove it from the AsyncFeign builder");
  }

  /** Configures a {@link RateLimitCapability}. Not thread-safe. */
  public static final class Builder {
    private final Pacer pacer;
    private final CallLimits limits = new CallLimits();

    private Builder(Pacer pacer) {
      this.pacer = Objects.requireNonNull(pacer, "pacer must not be null");
    }

    /**
     * Sets the longest a request may wait in all: for its first permit, before each retry and
     * for each retry's permit, together. Default: the pacer's {@link Pacer#maxWait()}. A first
     * permit that needs a longer wait fails the request at once with
     * {@link RateLimitedException}; a retry that would not fit returns the throttled response
     * instead.
     *
     * @param maxWait the longest a request may wait in all; zero never waits
     * @return this builder
     * @throws IllegalArgumentException if negative
     */
    public Builder maxWait(Duration maxWait) {
      limits.maxWait(maxWait);
      return this;
    }

    /**
     * Sets the maximum number of attempts per request, the first included; 1 disables Headway's
     * retries (a throttled response then goes to Feign at once, and Feign's retryer still leaves
     * it alone). Default: the pacer's {@link Pacer#maxAttempts()}.
     *
     * @param maxAttempts the maximum attempts per request, the first included
     * @return this builder
     * @throws IllegalArgumentException if less than 1
     */
    public Builder maxAttempts(int maxAttempts) {
      limits.maxAttempts(maxAttempts);
      return this;
    }

    /**
     * Returns the capability.
     *
     * @return a new capability with this builder's settings
     */
    public RateLimitCapability build() {
      return new RateLimitCapability(this);
    }
  }
}
