package dev.headway;

import dev.headway.internal.pacer.Engine;
import dev.headway.internal.pacer.EngineConfig;
import dev.headway.internal.pacer.PacerSettings;
import dev.headway.internal.pacer.PartitionNames;
import java.net.URI;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Paces outgoing requests against the quota servers advertise. Usually one per application,
 * shared by every adapter.
 *
 * <p>Per request: {@link #acquire} (or {@link #acquireAsync}, {@link #tryAcquire}) returns a
 * {@link Permit} once the request may be sent; the response goes back through
 * {@link Permit#complete}, which updates the partition's quota state. After a throttled response
 * {@link #retryDelay} says whether and when to retry. {@link #quota(URI)} tells what is left.
 *
 * <pre>{@code
 * Pacer pacer = Pacer.create();
 * RequestInfo request = RequestInfo.get(URI.create("https://api.example.com/items"));
 * try (Permit permit = pacer.acquire(request)) {
 *   // send the request, then:
 *   permit.complete(200, responseHeaders, null);
 * }
 * }</pre>
 *
 * <p>A pacer owns threads (a timer, and the executor its callbacks run on, unless you gave your
 * own): {@link #close()} it when done with it, e.g. when a web application is undeployed. Its
 * idle threads also stop by themselves after 30 seconds, so a pacer dropped without closing
 * keeps no thread alive.
 *
 * <p>How it decides is described in docs/pacer.md. Thread-safe.
 */
public final class Pacer implements AutoCloseable {
  private final EngineConfig config;
  private final Engine engine;

  private Pacer(EngineConfig config) {
    this.config = config;
    this.engine = new Engine(config);
  }

  /**
   * Returns a pacer with the defaults described on {@link Builder}.
   *
   * @return a new pacer; close it when done with it
   */
  public static Pacer create() {
    return builder().build();
  }

  /**
   * Returns a builder starting from the defaults.
   *
   * @return a new builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Waits until the request may be sent, then returns its permit.
   *
   * @param request the request about to be sent
   * @return the permit to send it with; complete or release it once the response is in
   * @throws RateLimitedException if the wait would exceed the pacer's {@code maxWait}; nothing
   *     waits
   * @throws InterruptedException if the thread is interrupted while waiting
   * @throws IllegalStateException if the pacer is closed, or closes while the thread waits
   */
  public Permit acquire(RequestInfo request) throws InterruptedException, RateLimitedException {
    return acquire(request, config.maxWait());
  }

  /**
   * As {@link #acquire(RequestInfo)} with this call's own {@code maxWait}.
   *
   * @param request the request about to be sent
   * @param maxWait the longest this call may wait; zero never waits
   * @return the permit to send it with; complete or release it once the response is in
   * @throws RateLimitedException if the wait would exceed {@code maxWait}; nothing waits
   * @throws InterruptedException if the thread is interrupted while waiting
   * @throws IllegalArgumentException if {@code maxWait} is negative
   */
  public Permit acquire(RequestInfo request, Duration maxWait)
      throws InterruptedException, RateLimitedException {
    Objects.requireNonNull(request, "request must not be null");
    return engine.acquire(request, PacerSettings.notNegative("maxWait", maxWait));
  }

  /**
   * Returns a permit if the request may be sent now; never waits.
   *
   * @param request the request about to be sent
   * @return the permit to send it with, or empty if the request would have to wait
   * @throws IllegalStateException if the pacer is closed
   */
  public Optional<Permit> tryAcquire(RequestInfo request) {
    Objects.requireNonNull(request, "request must not be null");
    return engine.tryAcquire(request);
  }

  /**
   * Returns a future completed with the permit once the request may be sent; no thread is
   * blocked meanwhile. It completes exceptionally with {@link RateLimitedException} past
   * {@code maxWait}. Cancelling it before it completes releases everything: nothing is sent.
   *
   * @param request the request about to be sent
   * @return a future of the permit to send it with
   */
  public CompletableFuture<Permit> acquireAsync(RequestInfo request) {
    return acquireAsync(request, config.maxWait());
  }

  /**
   * As {@link #acquireAsync(RequestInfo)} with this call's own {@code maxWait}.
   *
   * @param request the request about to be sent
   * @param maxWait the longest this call may wait; zero never waits
   * @return a future of the permit to send it with
   * @throws IllegalArgumentException if {@code maxWait} is negative
   */
  public CompletableFuture<Permit> acquireAsync(RequestInfo request, Duration maxWait) {
    Objects.requireNonNull(request, "request must not be null");
    return engine.acquireAsync(request, PacerSettings.notNegative("maxWait", maxWait));
  }

  /**
   * Reserves a permit without waiting: the request is counted now and the caller is told when it
   * may be sent (the {@code reserve} verb; reservations as in Ian Macartney's article
   * "Application-Layer Rate Limiting" on token buckets).
   * The delay never exceeds the pacer's {@code maxWait}.
   *
   * @param request the request about to be sent
   * @return the reservation: its permit, and how long to wait before sending
   * @throws RateLimitedException if the request could not be sent within {@code maxWait}, or if
   *     no time can be promised (a stale partition being probed, a full concurrency cap): then
   *     {@link RateLimitedException#retryAt()} says when to ask again
   * @throws IllegalStateException if the pacer is closed
   */
  public Reservation reserve(RequestInfo request) throws RateLimitedException {
    return reserve(request, config.maxWait());
  }

  /**
   * As {@link #reserve(RequestInfo)} with this call's own {@code maxWait}.
   *
   * @param request the request about to be sent
   * @param maxWait the longest delay this call accepts; zero accepts none
   * @return the reservation: its permit, and how long to wait before sending
   * @throws RateLimitedException as {@link #reserve(RequestInfo)} throws it, with this
   *     {@code maxWait}
   * @throws IllegalArgumentException if {@code maxWait} is negative
   * @throws IllegalStateException if the pacer is closed
   */
  public Reservation reserve(RequestInfo request, Duration maxWait) throws RateLimitedException {
    Objects.requireNonNull(request, "request must not be null");
    return engine.reserve(request, PacerSettings.notNegative("maxWait", maxWait));
  }

  /**
   * As {@link #retryDelay(RequestInfo, RateLimitSignal, int, Duration)} with the pacer's
   * {@code maxWait} as the budget.
   *
   * @param request the request that was throttled
   * @param signal what its response said
   * @param attempts responses received so far for this call, at least 1
   * @return how long to wait before retrying, or empty if the request should not be retried
   */
  public Optional<Duration> retryDelay(RequestInfo request, RateLimitSignal signal, int attempts) {
    return retryDelay(request, signal, attempts, config.maxWait());
  }

  /**
   * Returns how long to wait before retrying {@code request} after a response that said
   * {@code signal} so that the retry, sent then, also gets its permit at once; or empty if it
   * should not be retried: not throttled, {@code attempts} (responses received so far for this
   * call) reached {@code maxAttempts}, a 503 without {@code Retry-After}, a 503 for a
   * non-idempotent method (unless {@link Builder#retryNonIdempotentOn503}), a delay longer
   * than {@code budget} (what is left of the call's own {@code maxWait}), or a partition whose
   * {@link RetryBudget} is spent ({@link PacerEvent.RetryRefused}).
   *
   * <p>The server's own verdict ({@link RateLimitSignal#shouldRetry()}) overrides the first and
   * the 503 rules: {@code false} is never retried, {@code true} on an error response (status 400
   * or more) is retried like a throttled one, within the same attempts, budget and retry budget.
   *
   * <p>The server's advice is {@code Retry-After} first (it takes precedence, draft section 7),
   * then the reset of the exhausted {@code RateLimit} limit, then a body hint
   * ({@code retry_after}), each capped by the parser's {@link SanityCaps} and with jitter that
   * only adds (never earlier than the server said, never past {@code budget}); without any of
   * those, exponential backoff from {@link Builder#baseBackoff} (doubling per attempt, at most
   * {@link Builder#maxBackoff} and {@code budget}) with the configured {@link Jitter}. The
   * delay returned is the later of that advice and the partition's own wait as the pacer's
   * state says it will be then (the hold the throttled response started, a spent policy's
   * reset): the retry's {@link #acquire} should then not wait again. Call it after the
   * response's {@link Permit#complete}, so that the state includes what the response said.
   *
   * <p>A {@link PacerEvent.Retried} event is emitted only when a delay is returned, and each
   * delay returned spends one retry of the partition's {@link RetryBudget}. Adapters call this
   * only for requests they can replay (a body that can be sent again); a caller that cannot
   * retry should not ask, or the events overstate the retries and the budget is spent for
   * nothing.
   *
   * @param request the request that was throttled
   * @param signal what its response said
   * @param attempts responses received so far for this call, at least 1
   * @param budget the longest the caller can still wait; not negative
   * @return how long to wait before retrying, or empty if the request should not be retried
   * @throws IllegalArgumentException if {@code budget} is negative
   */
  public Optional<Duration> retryDelay(RequestInfo request, RateLimitSignal signal, int attempts,
      Duration budget) {
    Objects.requireNonNull(request, "request must not be null");
    Objects.requireNonNull(signal, "signal must not be null");
    return engine.retryDelay(request, signal, attempts,
        PacerSettings.notNegative("budget", budget));
  }

  /**
   * Returns what is known of the quota of {@code uri}'s partition (with the policies of the
   * server partition key it last sent for it). Never creates state.
   *
   * @param uri a request URI of the partition, or its origin
   * @return the partition's quota; with no policy when nothing is known of it yet
   * @throws IllegalArgumentException if {@code uri} has no scheme or no host (e.g. {@code
   *     mailto:} or a relative URI): it belongs to no partition
   */
  public QuotaSnapshot quota(URI uri) {
    Objects.requireNonNull(uri, "uri must not be null");
    return engine.quota(PartitionNames.requireOrigin(uri));
  }

  /**
   * Returns a snapshot of every partition currently known, sorted by key.
   *
   * @return the snapshots, sorted by partition key; empty if no partition is held
   */
  public List<QuotaSnapshot> partitions() {
    return engine.partitions();
  }

  /**
   * Returns how many partitions are held; at most {@link Builder#maxPartitions} at rest. A
   * partition a server names with a partition key ({@code pk}) is held under its origin's and is
   * not counted here (it does not take a place of {@code maxPartitions}), though
   * {@link #partitions()} lists it: that list may be longer than this count.
   *
   * @return the number of partitions held now
   */
  public int partitionCount() {
    return engine.partitionCount();
  }

  /**
   * Returns the pacing strategy.
   *
   * @return the strategy that decides how requests are spread over the quota
   */
  public PacingStrategy strategy() {
    return config.strategy();
  }

  /**
   * Returns the jitter.
   *
   * @return the jitter added to computed waits
   */
  public Jitter jitter() {
    return config.jitter();
  }

  /**
   * Returns the parser this pacer reads responses with.
   *
   * @return the signal parser
   */
  public SignalParser signalParser() {
    return config.parser();
  }

  /**
   * Returns how this pacer maps requests to partitions.
   *
   * @return the partition key resolver the builder was given, or {@link
   *     PartitionKeyResolver#origin()}
   */
  public PartitionKeyResolver partitionKeyResolver() {
    return config.resolver();
  }

  /**
   * Returns the wall clock this pacer uses.
   *
   * @return the wall clock, which reset instants and {@code Retry-After} dates are read against
   */
  public InstantSource wallClock() {
    return config.wallClock();
  }

  /**
   * Returns the monotonic ticker this pacer uses.
   *
   * @return the ticker that every wait is measured with
   */
  public Ticker ticker() {
    return config.ticker();
  }

  /**
   * Returns the scheduler every wait of this pacer goes through.
   *
   * @return the scheduler
   */
  public Scheduler scheduler() {
    return config.scheduler();
  }

  /**
   * Returns the longest a call may wait by default.
   *
   * @return the default {@code maxWait}; positive
   */
  public Duration maxWait() {
    return config.maxWait();
  }

  /**
   * Returns how long a permit may stay neither completed nor released before it is reclaimed;
   * see {@link Builder#permitLease}.
   *
   * @return the permit lease; positive
   */
  public Duration permitLease() {
    return config.permitLease();
  }

  /**
   * Returns where listeners run and the futures of {@link #acquireAsync} are completed.
   *
   * @return the callback executor
   */
  public Executor executor() {
    return config.executor();
  }

  /**
   * Closes the pacer: every acquire after it fails with {@link IllegalStateException}; callers
   * waiting for a permit are released at once (an {@link #acquireAsync} future fails with
   * {@link IllegalStateException}; a thread blocked in {@link #acquire} throws it when it wakes,
   * at once with the default scheduler); nothing is sent for them. Then the threads the pacer
   * owns stop: its timer, and its default callback executor once the callbacks already queued
   * have run (an executor or scheduler you gave is yours to stop). Permits already handed out
   * may still be completed or released. Idempotent.
   */
  @Override
  public void close() {
    engine.close();
  }

  /**
   * Returns whether this pacer is closed. The adapters check it when an acquire fails: a call
   * through a closed pacer fails with an {@link java.io.IOException} rather than going out
   * unpaced.
   *
   * @return true once {@link #close()} was called
   */
  public boolean isClosed() {
    return engine.isClosed();
  }

  /**
   * Returns the maximum number of attempts per call, the first included.
   *
   * @return the maximum attempts, at least 1
   */
  public int maxAttempts() {
    return config.maxAttempts();
  }

  /**
   * Returns the configuration at a glance, e.g. {@code Pacer[strategy=burstThenSpread(0.2),
   * jitter=full, maxWait=30 s, maxAttempts=3, partitions=3]}.
   */
  @Override
  public String toString() {
    return "Pacer[strategy=" + config.strategy() + ", jitter=" + config.jitter() + ", maxWait="
        + Texts.seconds(config.maxWait()) + ", maxAttempts=" + config.maxAttempts()
        + ", partitions=" + engine.partitionCount() + "]";
  }

  /** Configures a {@link Pacer}. Not thread-safe. */
  public static final class Builder {
    private final PacerSettings settings = new PacerSettings();

    private Builder() {}

    /**
     * Sets the monotonic time source; default {@link Ticker#system()}.
     *
     * @param ticker the monotonic time source, in nanoseconds
     * @return this builder
     */
    public Builder ticker(Ticker ticker) {
      settings.ticker(ticker);
      return this;
    }

    /**
     * Sets the wall clock; default {@link InstantSource#system()}.
     *
     * @param wallClock the wall clock that reset instants and HTTP dates are read against
     * @return this builder
     */
    public Builder wallClock(InstantSource wallClock) {
      settings.wallClock(wallClock);
      return this;
    }

    /**
     * Sets the scheduler every wait goes through. Default: the pacer's own timer (one daemon
     * thread, started on first use, gone after 30 idle seconds, stopped by {@link #close()}),
     * which runs only the pacer's own short tasks. A scheduler you give is not stopped by
     * {@code close()}.
     *
     * @param scheduler the scheduler of every wait
     * @return this builder
     */
    public Builder scheduler(Scheduler scheduler) {
      settings.scheduler(scheduler);
      return this;
    }

    /**
     * Sets where user code runs that the pacer calls back: {@link PacerListener}s, and the
     * completion of {@link Pacer#acquireAsync} futures (so whatever you chained on them with
     * {@code thenApply} and friends). Default: with the pacer's own scheduler, a bounded executor
     * of its own (2 daemon threads started on demand and gone after 30 idle seconds, a queue of
     * 10,000 callbacks; when full, a callback runs on the thread that raised it, unless that is
     * the pacer's timer thread: then it waits for one of the executor's threads), stopped by
     * {@link #close()}; with a scheduler you gave (such as a virtual clock in tests), the
     * callbacks run where they are raised (the caller's thread, or your scheduler's), so that
     * you decide where everything runs. A slow listener or a blocking {@code thenApply} then
     * delays only callbacks, never pacing. An executor you give is not stopped by
     * {@code close()}.
     *
     * @param executor the executor of listeners and of async completions
     * @return this builder
     */
    public Builder executor(Executor executor) {
      settings.executor(executor);
      return this;
    }

    /**
     * Shares this pacer's quota with other instances (other processes, or other pacers) through
     * {@code store}: every count a server reports is told to the store, a request spends units
     * leased from the fleet's budget (a few at a time, with no round trip per request), and a
     * throttled response holds the whole fleet. The pacer never waits on the store past a
     * caller's {@code maxWait}, and never fails a request because the store is slow or down: it
     * then paces locally, as without a store, logs once, and resumes sharing when the store
     * answers again. Instances share a partition only when they resolve it to the same key (the
     * default resolver, by origin, does; see
     * {@link PartitionKeyResolver#originAndCredential} for keys from credentials). The store is
     * not closed by the pacer. One store object is one instance of the fleet: a pacer built with
     * a store that another open pacer uses runs on {@link
     * dev.headway.store.QuotaStore#anotherInstance() another instance} of it (same shared state
     * and connection, an instance id of its own), so that the two share the quota as two
     * processes would. Default: none.
     *
     * @param store the store the fleet shares its quota through
     * @return this builder
     * @see dev.headway.store.QuotaStore
     */
    public Builder store(dev.headway.store.QuotaStore store) {
      settings.store(store);
      return this;
    }

    /**
     * Sets the signal parser; default {@link SignalParser#create()}.
     *
     * @param signalParser the parser of responses' rate-limit fields and bodies
     * @return this builder
     */
    public Builder signalParser(SignalParser signalParser) {
      settings.signalParser(signalParser);
      return this;
    }

    /**
     * Sets the longest any call waits for a permit or a retry; default 30 seconds. It also paces
     * the checks of a quota spent for longer than it, so it must be positive: for calls that
     * never wait, give zero to the call ({@link Pacer#acquire(RequestInfo, Duration)}) or to the
     * adapter's builder, or use {@link Pacer#tryAcquire}.
     *
     * @param maxWait the longest wait
     * @return this builder
     * @throws IllegalArgumentException if not positive
     */
    public Builder maxWait(Duration maxWait) {
      settings.maxWait(maxWait);
      return this;
    }

    /**
     * Sets the number of attempts per call, the first included; default 3.
     *
     * @param maxAttempts the maximum attempts, the first included
     * @return this builder
     * @throws IllegalArgumentException if less than 1
     */
    public Builder maxAttempts(int maxAttempts) {
      settings.maxAttempts(maxAttempts);
      return this;
    }

    /**
     * Sets the cost function; default {@link RequestCost#oneUnit()}.
     *
     * @param cost how many quota units each request spends
     * @return this builder
     */
    public Builder cost(RequestCost cost) {
      settings.cost(cost);
      return this;
    }

    /**
     * Sets how requests map to partitions; default {@link PartitionKeyResolver#origin()}.
     *
     * @param resolver the resolver of a request's partition key
     * @return this builder
     */
    public Builder partitionKeyResolver(PartitionKeyResolver resolver) {
      settings.partitionKeyResolver(resolver);
      return this;
    }

    /**
     * Sets the pacing strategy; default {@link PacingStrategy#burstThenSpread(double)} with 0.2:
     * a typical API client is bursty and far from its quota most of the time, so it should not
     * wait at all then; below the last fifth of the quota it spreads the rest evenly over the
     * time to reset, so that it never runs into a 429 and leaves headroom for other clients of
     * the same quota.
     *
     * @param strategy the strategy that spreads requests over the quota
     * @return this builder
     */
    public Builder strategy(PacingStrategy strategy) {
      settings.strategy(strategy);
      return this;
    }

    /**
     * Sets the jitter; default {@link Jitter#full()}: full jitter spreads clients furthest
     * apart, and for server-given times it only ever adds (see {@link #maxJitter}).
     *
     * @param jitter the jitter added to computed waits
     * @return this builder
     */
    public Builder jitter(Jitter jitter) {
      settings.jitter(jitter);
      return this;
    }

    /**
     * Seeds the random generator of jitter and of random fixed-window starts, for reproducible
     * runs (one generator, shared by every thread without a lock); by default each thread draws
     * from its own generator, seeded from the system.
     *
     * @param seed the seed of the one shared generator
     * @return this builder
     */
    public Builder jitterSeed(long seed) {
      settings.jitterSeed(seed);
      return this;
    }

    /**
     * Sets the most jitter added to a time the server gave (a reset, {@code Retry-After}); it
     * is also at most a fifth of the wait and at most 2% of the policy's window when the window
     * is known (20 ms at a 1-second window), and never takes a wait past {@code maxWait}.
     * Default 1 second: enough to spread a herd of clients, a small share of typical 60-second
     * windows.
     *
     * @param maxJitter the most jitter added to a server-given time; zero adds none
     * @return this builder
     * @throws IllegalArgumentException if negative
     */
    public Builder maxJitter(Duration maxJitter) {
      settings.maxJitter(maxJitter);
      return this;
    }

    /**
     * Sets the most partitions kept; past it the least recently used tenth is evicted. A
     * server's {@code pk} sub-partitions do not count: each partition keeps at most 4 of its own,
     * so a server sending a new {@code pk} on every response replaces only its own and never
     * evicts another partition. Default 10,000: a typical client talks to a handful of origins, a
     * multi-tenant one to thousands of credentials; 10,000 partitions are a few megabytes at
     * most.
     *
     * @param maxPartitions the most partitions kept
     * @return this builder
     * @throws IllegalArgumentException if less than 1
     */
    public Builder maxPartitions(int maxPartitions) {
      settings.maxPartitions(maxPartitions);
      return this;
    }

    /**
     * Sets how many requests may be in flight at once to a partition whose state is stale (a
     * reset passed and the quota is unknown, or the quota is spent and no reset was given);
     * default 2: a few probes learn the new state without a stampede of every waiting caller.
     *
     * @param probes the most requests in flight to a stale partition
     * @return this builder
     * @throws IllegalArgumentException if less than 1
     */
    public Builder probes(int probes) {
      settings.probes(probes);
      return this;
    }

    /**
     * Sets how often a waiting caller looks again when no time is known (probing a stale
     * partition, a full concurrency cap); default 50 milliseconds, a typical response time.
     *
     * @param recheckInterval how often a caller with no known time to wait looks again
     * @return this builder
     * @throws IllegalArgumentException if not positive
     */
    public Builder recheckInterval(Duration recheckInterval) {
      settings.recheckInterval(recheckInterval);
      return this;
    }

    /**
     * Sets the first exponential backoff after a throttled response that gave no time; default
     * 1 second (doubling per attempt).
     *
     * @param baseBackoff the first backoff without server advice
     * @return this builder
     * @throws IllegalArgumentException if not positive
     */
    public Builder baseBackoff(Duration baseBackoff) {
      settings.baseBackoff(baseBackoff);
      return this;
    }

    /**
     * Sets the longest exponential backoff; default 30 seconds, the default {@code maxWait}.
     *
     * @param maxBackoff the longest backoff without server advice
     * @return this builder
     * @throws IllegalArgumentException if not positive
     */
    public Builder maxBackoff(Duration maxBackoff) {
      settings.maxBackoff(maxBackoff);
      return this;
    }

    /**
     * Sets whether a non-idempotent request (POST, PATCH) is retried after a 503 with
     * {@code Retry-After}; default false: a 503 may have been half-processed, while a 429 says
     * the request was refused before any work, so 429s are retried for every method.
     *
     * @param retry true to retry POST and PATCH after a 503 with {@code Retry-After}
     * @return this builder
     */
    public Builder retryNonIdempotentOn503(boolean retry) {
      settings.retryNonIdempotentOn503(retry);
      return this;
    }

    /**
     * Sets the retry budget of each partition: how many retries of throttled or unavailable
     * responses its callers may send together, and how fast successes earn them back. A retry
     * the budget cannot pay for is not sent: the call returns the response it got, at once, and
     * a {@link PacerEvent.RetryRefused} says why. {@link QuotaSnapshot#retriesLeft()} shows what
     * is left. Default: {@link RetryBudget#off()} (no budget: each call retries within its own
     * {@code maxAttempts} and {@code maxWait}); {@link RetryBudget#recommended()} is 20 retries,
     * a fifth of one back per success.
     *
     * @param budget the budget of each partition
     * @return this builder
     */
    public Builder retryBudget(RetryBudget budget) {
      settings.retryBudget(java.util.Objects.requireNonNull(budget, "budget must not be null"));
      return this;
    }

    /**
     * Sets how long a permit may stay neither completed nor released before the pacer reclaims
     * it (its units stop counting as in flight, a {@link PacerEvent.PermitExpired} says so, and
     * its late {@code complete} or {@code release} does nothing). A permit lost by a bug (never
     * completed, never released, its future completed by someone else) would otherwise hold its
     * units forever. Default: the longer of 5 minutes and twice {@code maxWait}: a permit lives
     * for its wait (at most {@code maxWait}) plus its request's own time, and a slow API (a large
     * download, an LLM completion) can take minutes. Raise it if your requests take longer.
     *
     * @param permitLease how long a permit lives unless completed or released
     * @return this builder
     * @throws IllegalArgumentException if not positive
     */
    public Builder permitLease(Duration permitLease) {
      settings.permitLease(permitLease);
      return this;
    }

    /**
     * Adds a listener of {@link PacerEvent}s; none by default.
     *
     * @param listener the listener; it runs on the pacer's {@link #executor}
     * @return this builder
     */
    public Builder listener(PacerListener listener) {
      settings.listener(listener);
      return this;
    }

    /**
     * Declares a client policy every partition gets (each its own state).
     *
     * @param policy the policy every partition enforces on itself
     * @return this builder
     */
    public Builder declare(ClientPolicy policy) {
      settings.declare(policy);
      return this;
    }

    /**
     * Declares a client policy for one partition. With the default resolver (and
     * {@link PartitionKeyResolver#originAndCredential}) name it by host ({@code
     * api.example.com}, meaning HTTPS on port 443), host and port ({@code
     * api.example.com:8443}) or origin ({@code http://localhost:8080}); it is spelled as the
     * resolver spells partitions ({@code https://api.example.com:443}). With any other resolver,
     * name it exactly as that resolver does.
     *
     * @param partition the partition the policy applies to
     * @param policy the policy that partition enforces on itself
     * @return this builder
     * @throws IllegalArgumentException if {@code partition} is blank; and from {@link #build()}
     *     if it can never match a partition of the default resolver (a path, a query, a scheme
     *     other than http or https, no host)
     */
    public Builder declare(String partition, ClientPolicy policy) {
      settings.declare(partition, policy);
      return this;
    }

    /**
     * Declares which requests a server policy counts, where the server does not say: the policy
     * named {@code policy} (as its responses name it, such as GitHub's {@code search}) constrains
     * exactly the requests of {@code partition} that match {@code route}, and those of its other
     * declared routes. Without a declaration the pacer learns a policy's routes from the
     * responses that report it.
     *
     * <p>{@code route} is an optional upper-case method and a path whose segments are literal,
     * {@code *} or {@code {name}} (any one segment), and may end with {@code **} (any rest):
     * {@code "GET /search/*"}, {@code "/repos/{owner}/{repo}/**"}.
     *
     * <pre>{@code
     * Pacer.builder().declare("api.github.com", "/search/**", "search")
     * }</pre>
     *
     * @param partition the partition as the resolver names it; a host ({@code api.github.com})
     *     or origin ({@code https://api.github.com}) is read as the default resolver's key
     *     ({@code https://api.github.com:443})
     * @param route the requests the policy counts, such as {@code "GET /search/*"}
     * @param policy the server policy's name, as its responses spell it
     * @return this builder
     * @throws IllegalArgumentException if {@code route} is not such a pattern (it could never
     *     match a request), or {@code partition} or {@code policy} is blank
     */
    public Builder declare(String partition, String route, String policy) {
      settings.declare(partition, route, policy);
      return this;
    }

    /**
     * Names the request attribute that selects which of a server's quotas count a request, where
     * the route alone does not: for a language-model API whose limits are per model on one host
     * and key, the model the request names. Each value gets its own copy of every policy its
     * responses report. Null or blank: no attribute; an exception thrown by the function is as
     * if it returned null. None by default.
     *
     * <pre>{@code
     * Pacer.builder().scopeAttribute(request -> request.headers().firstValue("x-model")
     *     .orElse(null))
     * }</pre>
     *
     * @param attribute returns the request's scope value, or null for none
     * @return this builder
     */
    public Builder scopeAttribute(Function<? super RequestInfo, @Nullable String> attribute) {
      settings.scopeAttribute(attribute);
      return this;
    }

    /**
     * Returns the pacer.
     *
     * @return a new pacer with this builder's settings
     * @throws IllegalArgumentException if {@code maxBackoff} is less than {@code baseBackoff},
     *     a partition given to {@link #declare(String, ClientPolicy)} can never match one of
     *     the resolver's partitions, or a {@linkplain #store store} is given with a resolver that
     *     is, or calls, {@link PartitionKeyResolver#originAndCredential(String)} (its keys differ
     *     in every process; {@code build()} calls a resolver of yours once, on a made-up {@code
     *     GET https://headway-probe.invalid/}, to find out), or the store is used by another
     *     open pacer and cannot give {@linkplain dev.headway.store.QuotaStore#anotherInstance()
     *     another instance}
     */
    public Pacer build() {
      return new Pacer(settings.build());
    }
  }
}
