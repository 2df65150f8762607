package dev.headway;

import java.net.URI;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * Paces outgoing requests against the quota servers advertise. Usually one per application,
 * shared by every adapter.
 *
 * <p>TODO(issue 3): the engine. This file fixes the API the adapters code against.
 *
 * <p>Thread-safe.
 */
public final class Pacer {
  private final Builder config;

  private Pacer(Builder builder) {
    this.config = builder;
  }

  /** Returns a pacer with the defaults described on {@link Builder}. */
  public static Pacer create() {
    return builder().build();
  }

  /** Returns a builder starting from the defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Waits until the request may be sent, then returns its permit.
   *
   * @throws RateLimitedException if the wait would exceed the pacer's {@code maxWait}; nothing
   *     waits
   * @throws InterruptedException if the thread is interrupted while waiting
   */
  public Permit acquire(RequestInfo request) throws InterruptedException, RateLimitedException {
    return acquire(request, config.maxWait);
  }

  /** As {@link #acquire(RequestInfo)} with this call's own {@code maxWait}. */
  public Permit acquire(RequestInfo request, Duration maxWait)
      throws InterruptedException, RateLimitedException {
    throw new UnsupportedOperationException("TODO issue 3");
  }

  /** Returns a permit if the request may be sent now; never waits. */
  public Optional<Permit> tryAcquire(RequestInfo request) {
    throw new UnsupportedOperationException("TODO issue 3");
  }

  /**
   * Returns a future completed with the permit once the request may be sent; no thread is
   * blocked meanwhile. It completes exceptionally with {@link RateLimitedException} past
   * {@code maxWait}. Cancelling it before it completes releases everything: nothing is sent.
   */
  public CompletableFuture<Permit> acquireAsync(RequestInfo request) {
    return acquireAsync(request, config.maxWait);
  }

  /** As {@link #acquireAsync(RequestInfo)} with this call's own {@code maxWait}. */
  public CompletableFuture<Permit> acquireAsync(RequestInfo request, Duration maxWait) {
    throw new UnsupportedOperationException("TODO issue 3");
  }

  /**
   * Returns how long to wait before retrying {@code request} after a response that said
   * {@code signal}, or empty if it should not be retried: not throttled, {@code attempts}
   * (responses received so far for this call) reached {@code maxAttempts}, a 503 for a
   * non-idempotent method, or a delay past {@code maxWait}.
   */
  public Optional<Duration> retryDelay(RequestInfo request, RateLimitSignal signal, int attempts) {
    throw new UnsupportedOperationException("TODO issue 3");
  }

  /**
   * Returns a Failsafe retry policy that retries results classified as throttled by
   * {@code signalOf}, with {@link #retryDelay}'s delays and attempt budget.
   */
  public <R> dev.failsafe.RetryPolicy<R> retryPolicy(RequestInfo request,
      Function<? super R, RateLimitSignal> signalOf) {
    throw new UnsupportedOperationException("TODO issue 3");
  }

  /** Returns what is known of the quota of {@code uri}'s partition. */
  public QuotaSnapshot quota(URI uri) {
    throw new UnsupportedOperationException("TODO issue 3");
  }

  /** Returns a snapshot of every partition currently known. */
  public List<QuotaSnapshot> partitions() {
    throw new UnsupportedOperationException("TODO issue 3");
  }

  /** Returns the parser this pacer reads responses with. */
  public SignalParser signalParser() {
    return config.signalParser;
  }

  /** Returns the wall clock this pacer uses. */
  public InstantSource wallClock() {
    return config.wallClock;
  }

  /** Returns the monotonic ticker this pacer uses. */
  public Ticker ticker() {
    return config.ticker;
  }

  /** Returns the scheduler every wait of this pacer goes through. */
  public Scheduler scheduler() {
    return config.scheduler;
  }

  /** Returns the longest a call may wait by default. */
  public Duration maxWait() {
    return config.maxWait;
  }

  /** Returns the maximum number of attempts per call, the first included. */
  public int maxAttempts() {
    return config.maxAttempts;
  }

  /** Configures a {@link Pacer}. Not thread-safe. */
  public static final class Builder {
    private Ticker ticker = Ticker.system();
    private InstantSource wallClock = InstantSource.system();
    private Scheduler scheduler = Scheduler.system();
    private SignalParser signalParser = SignalParser.create();
    private Duration maxWait = Duration.ofSeconds(30);
    private int maxAttempts = 3;
    private RequestCost cost = RequestCost.oneUnit();
    private PartitionKeyResolver partitionKeyResolver = PartitionKeyResolver.origin();

    private Builder() {}

    /** Sets the monotonic time source; default {@link Ticker#system()}. */
    public Builder ticker(Ticker ticker) {
      this.ticker = Objects.requireNonNull(ticker, "ticker");
      return this;
    }

    /** Sets the wall clock; default {@link InstantSource#system()}. */
    public Builder wallClock(InstantSource wallClock) {
      this.wallClock = Objects.requireNonNull(wallClock, "wallClock");
      return this;
    }

    /** Sets the scheduler every wait goes through; default {@link Scheduler#system()}. */
    public Builder scheduler(Scheduler scheduler) {
      this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
      return this;
    }

    /** Sets the signal parser; default {@link SignalParser#create()}. */
    public Builder signalParser(SignalParser signalParser) {
      this.signalParser = Objects.requireNonNull(signalParser, "signalParser");
      return this;
    }

    /**
     * Sets the longest any call waits for a permit or a retry; default 30 seconds.
     *
     * @throws IllegalArgumentException if not positive
     */
    public Builder maxWait(Duration maxWait) {
      Objects.requireNonNull(maxWait, "maxWait");
      if (maxWait.isNegative() || maxWait.isZero()) {
        throw new IllegalArgumentException("maxWait must be positive but was " + maxWait);
      }
      this.maxWait = maxWait;
      return this;
    }

    /**
     * Sets the number of attempts per call, the first included; default 3.
     *
     * @throws IllegalArgumentException if less than 1
     */
    public Builder maxAttempts(int maxAttempts) {
      if (maxAttempts < 1) {
        throw new IllegalArgumentException("maxAttempts must be at least 1 but was " + maxAttempts);
      }
      this.maxAttempts = maxAttempts;
      return this;
    }

    /** Sets the cost function; default {@link RequestCost#oneUnit()}. */
    public Builder cost(RequestCost cost) {
      this.cost = Objects.requireNonNull(cost, "cost");
      return this;
    }

    /** Sets how requests map to partitions; default {@link PartitionKeyResolver#origin()}. */
    public Builder partitionKeyResolver(PartitionKeyResolver resolver) {
      this.partitionKeyResolver = Objects.requireNonNull(resolver, "partitionKeyResolver");
      return this;
    }

    /** Returns the pacer. */
    public Pacer build() {
      return new Pacer(this);
    }
  }
}
