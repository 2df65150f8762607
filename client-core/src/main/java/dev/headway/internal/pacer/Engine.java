package dev.headway.internal.pacer;

import dev.headway.HttpFields;
import dev.headway.Permit;
import dev.headway.QuotaSnapshot;
import dev.headway.RateLimitSignal;
import dev.headway.RateLimitedException;
import dev.headway.RequestInfo;
import dev.headway.Reservation;
import dev.headway.dialect.DialectContext;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * The pacing engine behind {@code dev.headway.Pacer}: wires its parts and names them. Owns no
 * state. How it works, and why: docs/pacer.md ("How the pacer decides").
 *
 * <ul>
 *   <li>{@link PacerSettings}: what {@code Pacer.Builder} collects, validated and wired into
 *       an {@link EngineConfig}; {@link Settings}: that configuration as the engine reads it,
 *       and the {@link JitterSource};
 *   <li>{@link PartitionStore} ({@link Registry}): where the quota state lives, one
 *       {@link Partition} per key, with its policies, {@link InFlight} units, {@link Hold} and
 *       {@link WaitingLine}; {@link DeclaredPolicies} seeds new partitions;
 *   <li>{@link PolicyState}: one policy's state and rules: a {@link ServerPolicy} (with its
 *       {@link HeldCount}, {@link ServerWindow} and {@link RefillPacing}), or a declared
 *       {@link TokenBucketPolicy} or {@link FixedWindowPolicy};
 *   <li>{@link Admission}: decides ({@link Decision}), commits and releases permits;
 *   <li>{@link Fleet} and {@link SharedBudget}: with a {@code QuotaStore}, a partition's share
 *       of a fleet's quota (leased units, holds, counts told to the store);
 *   <li>{@link Acquirer} and {@link AsyncAcquire}: the blocking, trying, reserving and
 *       asynchronous front ends;
 *   <li>{@link ResponseReader}: what a response says, into the state;
 *   <li>{@link RetryAdvisor}: retry advice and backoff, the server's retry verdict, and the
 *       partitions' {@link RetryBudgets};
 *   <li>{@link Snapshots}: inspection; {@link EventSink}: the listeners; {@link EventLog}: the
 *       log ({@code System.Logger} {@code dev.headway.pacer}).
 * </ul>
 *
 * <p>Thread-safe.
 */
public final class Engine {
  private final Settings settings;
  private final Admission admission;
  private final Acquirer acquirer;
  private final ResponseReader responses;
  private final RetryAdvisor retries;
  private final Snapshots snapshots;
  private final Swallowed swallowed = new Swallowed();
  private final Runnable onClose;

  /** Creates an engine from a validated configuration. */
  public Engine(EngineConfig config) {
    this.settings = new Settings(config, swallowed);
    this.onClose = config.onClose();
    EventSink events = EventLog.of(settings.ticker)
        .around(EventSink.of(config.listeners(), swallowed, config.executor()));
    PartitionStore store = new Registry(config.maxPartitions(),
        new DeclaredPolicies(config, settings.jitter));
    Fleet fleet = config.store() == null ? null : new Fleet(config.store(), settings);
    this.admission = new Admission(this, settings, store, events, fleet);
    this.acquirer = new Acquirer(settings, admission, events);
    RetryBudgets budgets = new RetryBudgets(config.retryBudget(), config.maxPartitions());
    this.retries = new RetryAdvisor(settings, admission, events, budgets);
    this.snapshots = new Snapshots(settings, store, budgets);
    this.responses = new ResponseReader(settings, retries, snapshots, events);
  }

  // ---------------------------------------------------------------- acquiring

  /** Blocks until the request may be sent; see {@code Pacer.acquire}. */
  public Permit acquire(RequestInfo request, Duration maxWait)
      throws InterruptedException, RateLimitedException {
    return acquirer.acquire(request, maxWait);
  }

  /** Returns a permit if the request may be sent now. */
  public Optional<Permit> tryAcquire(RequestInfo request) {
    return acquirer.tryAcquire(request);
  }

  /** Completes a future once the request may be sent; see {@code Pacer.acquireAsync}. */
  public CompletableFuture<Permit> acquireAsync(RequestInfo request, Duration maxWait) {
    return acquirer.acquireAsync(request, maxWait);
  }

  /** Commits a permit for a later time without waiting; see {@code Pacer.reserve}. */
  public Reservation reserve(RequestInfo request, Duration maxWait) throws RateLimitedException {
    return acquirer.reserve(request, maxWait);
  }

  /**
   * Closes the engine: new acquires fail, waiting callers are released (their futures fail, their
   * threads wake and throw), then what the pacer owns stops. Idempotent.
   */
  public void close() {
    if (acquirer.close()) {
      onClose.run();
    }
  }

  /** Whether {@link #close()} was called. */
  public boolean isClosed() {
    return acquirer.isClosed();
  }

  // ---------------------------------------------------------------- a permit's end

  /**
   * Parses a response for {@code permit}; see {@code Permit.complete}. Values measured from its
   * {@code Date} are measured from what the partition's earlier answers said of the server's
   * clock when that is more exact (see {@link ServerClock}), and this answer's {@code Date}, parsed
   * once for both, is recorded for the next.
   */
  RateLimitSignal parse(PermitImpl permit, int status, HttpFields headers,
      byte @Nullable [] body) {
    Instant receivedAt = settings.wallClock.instant();
    Partition base = permit.base;
    if (base == null || headers.joined("date") == null) {
      return settings.reader.read(status, headers, body, receivedAt);
    }
    long now = settings.ticker.read();
    ServerClock clock = base.serverClock;
    DialectContext context = DialectContext.of(status, headers, receivedAt,
        clock.atLeast(permit.sendAtNanos, now));
    RateLimitSignal signal = settings.reader.read(context, body);
    context.serverDate().ifPresent(date -> clock.answered(date, permit.sendAtNanos, now));
    return signal;
  }

  /** Logs an exception the pacer swallowed (see {@link Swallowed}). */
  void swallowed(String where, Throwable e) {
    swallowed.report(where, e);
  }

  /** Applies the response to a committed permit's request. */
  void onResponse(PermitImpl permit, RateLimitSignal signal) {
    responses.onResponse(permit, signal);
    retries.onResponse(permit.key(), signal);
  }

  /** Gives back a committed permit that ends without a response. */
  void onRelease(PermitImpl permit) {
    admission.release(permit);
  }

  /** Takes a permit released before its commit out of its partition's line. */
  void leaveLine(PermitImpl permit) {
    admission.leaveLine(permit);
  }

  // ---------------------------------------------------------------- retries

  /** See {@code Pacer.retryDelay}. */
  public Optional<Duration> retryDelay(RequestInfo request, RateLimitSignal signal, int attempts,
      Duration budget) {
    return retries.retryDelay(request, signal, attempts, budget);
  }

  // ---------------------------------------------------------------- inspection

  /** Returns the snapshot of {@code uri}'s partition (and its current server sub-partition). */
  public QuotaSnapshot quota(URI uri) {
    return snapshots.quota(uri);
  }

  /** Returns a snapshot of every known partition, sorted by key. */
  public List<QuotaSnapshot> partitions() {
    return snapshots.partitions();
  }

  /** Returns the number of partitions held. */
  public int partitionCount() {
    return snapshots.partitionCount();
  }
}
