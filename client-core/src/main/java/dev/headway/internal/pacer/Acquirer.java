package dev.headway.internal.pacer;

import dev.headway.PacerEvent;
import dev.headway.Permit;
import dev.headway.RateLimitedException;
import dev.headway.RequestInfo;
import dev.headway.Reservation;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * Owns the front ends of acquiring: blocking ({@code acquire}: the caller parks through the
 * scheduler until its time), trying, reserving, and starting an {@link AsyncAcquire}; and what a
 * wait or a refusal tells the caller (the exception, the events). Holds no state of its own.
 */
final class Acquirer {
  private final Settings settings;
  /** Wakes the asynchronous acquires due at one instant together. */
  final WakeUps wakeUps;
  private final Admission admission;
  private final EventSink events;
  /** The asynchronous acquires still waiting (failed when the pacer closes). */
  private final Set<AsyncAcquire> waiting = ConcurrentHashMap.newKeySet();
  private final AtomicBoolean closed = new AtomicBoolean();

  Acquirer(Settings settings, Admission admission, EventSink events) {
    this.settings = settings;
    this.admission = admission;
    this.events = events;
    this.wakeUps = new WakeUps(settings.scheduler, settings.ticker);
  }

  /** Blocks until the request may be sent; see {@code Pacer.acquire}. */
  Permit acquire(RequestInfo request, Duration maxWait)
      throws InterruptedException, RateLimitedException {
    checkOpen();
    long waitNanos = Time.nanos(maxWait);
    PermitImpl permit = admission.newPermit(request);
    try {
      return acquire(permit, waitNanos);
    } catch (RuntimeException | Error e) {
      permit.release(); // whatever failed (a scheduler, a bug): the permit never stays committed
      throw e;
    }
  }

  private Permit acquire(PermitImpl permit, long waitNanos)
      throws InterruptedException, RateLimitedException {
    Decision decision = admission.decideFirst(permit, waitNanos);
    if (decision.goesNow()) {
      wakeUps.close(); // what its caller schedules then runs after the waiters due before
      permit.handOut();
      return permit;
    }
    long now = decision.decidedNanos;
    final long start = now;
    final @Nullable String cause = decision.decider;
    long deadline = Time.add(now, waitNanos);
    boolean announced = false;
    while (true) {
      switch (decision.verdict) {
        case REJECT:
          if (now > start) {
            waited(permit, now - start, cause, PacerEvent.Waited.Outcome.REJECTED);
          }
          throw reject(permit, decision, start, waitNanos);
        case CANCELLED:
          waited(permit, now - start, cause, PacerEvent.Waited.Outcome.CANCELLED);
          throw new IllegalStateException("permit released while acquiring");
        default:
          break;
      }
      if (decision.goesNow()) {
        wakeUps.close(); // what its caller schedules then runs after the waiters due before
        permit.handOut();
        waited(permit, now - start, cause, PacerEvent.Waited.Outcome.ACQUIRED);
        return permit;
      }
      boolean go = decision.verdict == Decision.Verdict.GO;
      long wake = decision.atNanos;
      if (go && !announced) {
        announced = true;
        delayed(permit, wake - now, decision.decider);
      }
      do {
        try {
          settings.scheduler.sleep(Duration.ofNanos(wake - now));
        } catch (InterruptedException e) {
          permit.release();
          Thread.currentThread().interrupt();
          waited(permit, settings.ticker.read() - start, cause,
              PacerEvent.Waited.Outcome.INTERRUPTED);
          throw e;
        }
        if (closed.get()) {
          throw closedWhileWaiting();
        }
        now = settings.ticker.read();
      } while (now < wake);
      if (go) {
        if (!admission.heldBeyond(permit)) {
          wakeUps.close(); // what its caller schedules then runs after the waiters due before
          permit.handOut();
          waited(permit, now - start, cause, PacerEvent.Waited.Outcome.ACQUIRED);
          return permit;
        }
        admission.uncommit(permit);
      }
      decision = admission.decide(permit, now, deadline);
      now = decision.decidedNanos;
    }
  }

  /** Returns a permit if the request may be sent now. */
  Optional<Permit> tryAcquire(RequestInfo request) {
    checkOpen();
    PermitImpl permit = admission.newPermit(request);
    Decision decision = admission.decideFirst(permit, 0);
    if (decision.goesNow()) {
      wakeUps.close(); // what its caller schedules then runs after the waiters due before
      permit.handOut();
      return Optional.of(permit);
    }
    permit.release();
    if (events.enabled()) {
      events.emit(new PacerEvent.Refused(permit.partition(),
          Optional.ofNullable(decision.decider)));
    }
    return Optional.empty();
  }

  /** Completes a future once the request may be sent; see {@code Pacer.acquireAsync}. */
  CompletableFuture<Permit> acquireAsync(RequestInfo request, Duration maxWait) {
    if (closed.get()) {
      return CompletableFuture.failedFuture(closedException());
    }
    long waitNanos = Time.nanos(maxWait);
    PermitImpl permit = admission.newPermit(request);
    Decision decision;
    try {
      decision = admission.decideFirst(permit, waitNanos);
    } catch (RuntimeException | LinkageError | StackOverflowError e) {
      permit.release();
      return CompletableFuture.failedFuture(new IllegalStateException(
          "Headway failed while deciding when this request may be sent; nothing was sent", e));
    }
    if (decision.goesNow()) {
      wakeUps.close(); // what its caller schedules then runs after the waiters due before
      permit.handOut();
      return CompletableFuture.completedFuture(permit);
    }
    if (decision.verdict == Decision.Verdict.REJECT) {
      return CompletableFuture.failedFuture(reject(permit, decision, decision.decidedNanos,
          waitNanos));
    }
    AsyncAcquire future = new AsyncAcquire(settings, admission, this, permit,
        decision.decidedNanos, decision.decider, Time.add(decision.decidedNanos, waitNanos),
        waitNanos);
    waiting.add(future);
    try {
      future.after(decision);
    } catch (RuntimeException | LinkageError | StackOverflowError e) {
      future.failed(e);
    }
    if (closed.get()) {
      future.closed(); // closed meanwhile: close() may have missed it
    }
    return future;
  }

  /** Commits a permit for a later time without waiting; see {@code Pacer.reserve}. */
  Reservation reserve(RequestInfo request, Duration maxWait) throws RateLimitedException {
    checkOpen();
    PermitImpl permit = admission.newPermit(request);
    long waitNanos = Time.nanos(maxWait);
    Decision decision = admission.decideFirst(permit, waitNanos);
    if (decision.verdict != Decision.Verdict.GO) {
      RateLimitedException e = reject(permit, decision, decision.decidedNanos, waitNanos);
      permit.release();
      throw e;
    }
    wakeUps.close(); // what its caller schedules then runs after the waiters due before
    permit.handOut();
    long delay = decision.waitNanos();
    if (delay > 0) {
      delayed(permit, delay, decision.decider);
    }
    return new Reservation(permit, Duration.ofNanos(delay));
  }

  /** An asynchronous acquire ended: it no longer waits. */
  void ended(AsyncAcquire future) {
    waiting.remove(future);
  }

  /** Whether the pacer is closed. */
  boolean isClosed() {
    return closed.get();
  }

  /**
   * Closes the front ends: new acquires fail, every asynchronous acquire still waiting fails
   * (nothing was sent), and blocked callers throw when they wake. Returns whether this call
   * closed them (false if already closed).
   */
  boolean close() {
    if (!closed.compareAndSet(false, true)) {
      return false;
    }
    for (AsyncAcquire future : waiting) {
      future.closed();
    }
    return true;
  }

  private void checkOpen() {
    if (closed.get()) {
      throw closedException();
    }
  }

  private static IllegalStateException closedException() {
    return new IllegalStateException("This Pacer is closed: it paces no more requests");
  }

  /** The exception of a caller that waited while the pacer closed. */
  static IllegalStateException closedWhileWaiting() {
    return new IllegalStateException(
        "The Pacer was closed while this request waited for its permit; nothing was sent");
  }

  /**
   * Returns the exception of a refused permit (and tells the listeners): what it waited for,
   * how long since {@code startNanos}, and its budget of {@code budgetNanos}.
   */
  RateLimitedException reject(PermitImpl permit, Decision decision, long startNanos,
      long budgetNanos) {
    return reject(permit, decision, startNanos, budgetNanos, settings.wallClock.instant());
  }

  /** As above, with the wall-clock time of the decision, {@code wallNow}, read already. */
  RateLimitedException reject(PermitImpl permit, Decision decision, long startNanos,
      long budgetNanos, Instant wallNow) {
    long wait = decision.waitNanos();
    Instant retryAt = wallNow.plusNanos(wait);
    Duration required = Duration.ofNanos(wait);
    String partition = permit.partition();
    if (events.enabled()) {
      events.emit(new PacerEvent.Rejected(partition, required, retryAt,
          Optional.ofNullable(decision.decider)));
    }
    long waited = Math.max(0, Time.sub(decision.decidedNanos, startNanos));
    return new RateLimitedException(partition, retryAt, required, decision.decider,
        decision.reason(), Duration.ofNanos(waited), Duration.ofNanos(budgetNanos));
  }

  /** Tells the listeners that a permit's wait ended after {@code waitedNanos}. */
  void waited(PermitImpl permit, long waitedNanos, @Nullable String decider,
      PacerEvent.Waited.Outcome outcome) {
    if (events.enabled()) {
      events.emit(new PacerEvent.Waited(permit.partition(),
          Duration.ofNanos(Math.max(0, waitedNanos)), Optional.ofNullable(decider), outcome));
    }
  }

  /** Tells the listeners that a permit waits {@code delayNanos} before it goes. */
  void delayed(PermitImpl permit, long delayNanos, @Nullable String decider) {
    if (events.enabled()) {
      events.emit(new PacerEvent.Delayed(permit.partition(), Duration.ofNanos(delayNanos),
          Optional.ofNullable(decider)));
    }
  }
}
