package dev.headway.internal.pacer;

import dev.headway.PacerEvent;
import dev.headway.Permit;
import dev.headway.RateLimitedException;
import dev.headway.RequestInfo;
import dev.headway.Reservation;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * Owns the front ends of acquiring: blocking ({@code acquire}: the caller parks through the
 * scheduler until its time), trying, reserving, and starting an {@link AsyncAcquire}; and what a
 * wait or a refusal tells the caller (the exception, the events). Holds no state of its own.
 */
final class Acquirer {
  private final Settings settings;
  private final Admission admission;
  private final EventSink events;

  Acquirer(Settings settings, Admission admission, EventSink events) {
    this.settings = settings;
    this.admission = admission;
    this.events = events;
  }

  /** Blocks until the request may be sent; see {@code Pacer.acquire}. */
  Permit acquire(RequestInfo request, Duration maxWait)
      throws InterruptedException, RateLimitedException {
    long waitNanos = Time.nanos(maxWait);
    PermitImpl permit = admission.newPermit(request);
    Decision decision = admission.decideFirst(permit, waitNanos);
    if (decision.goesNow()) {
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
          throw reject(permit, decision);
        case CANCELLED:
          waited(permit, now - start, cause, PacerEvent.Waited.Outcome.CANCELLED);
          throw new IllegalStateException("permit released while acquiring");
        default:
          break;
      }
      if (decision.goesNow()) {
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
        now = settings.ticker.read();
      } while (now < wake);
      if (go) {
        if (!admission.heldBeyond(permit)) {
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
    PermitImpl permit = admission.newPermit(request);
    Decision decision = admission.decideFirst(permit, 0);
    if (decision.goesNow()) {
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
    long waitNanos = Time.nanos(maxWait);
    PermitImpl permit = admission.newPermit(request);
    Decision decision = admission.decideFirst(permit, waitNanos);
    if (decision.goesNow()) {
      permit.handOut();
      return CompletableFuture.completedFuture(permit);
    }
    if (decision.verdict == Decision.Verdict.REJECT) {
      return CompletableFuture.failedFuture(reject(permit, decision));
    }
    AsyncAcquire future = new AsyncAcquire(settings, admission, this, permit,
        decision.decidedNanos, decision.decider, Time.add(decision.decidedNanos, waitNanos));
    future.after(decision);
    return future;
  }

  /** Commits a permit for a later time without waiting; see {@code Pacer.reserve}. */
  Reservation reserve(RequestInfo request, Duration maxWait) throws RateLimitedException {
    PermitImpl permit = admission.newPermit(request);
    Decision decision = admission.decideFirst(permit, Time.nanos(maxWait));
    if (decision.verdict != Decision.Verdict.GO) {
      RateLimitedException e = reject(permit, decision);
      permit.release();
      throw e;
    }
    permit.handOut();
    long delay = decision.waitNanos();
    if (delay > 0) {
      delayed(permit, delay, decision.decider);
    }
    return new Reservation(permit, Duration.ofNanos(delay));
  }

  /** Returns the exception of a refused permit (and tells the listeners). */
  RateLimitedException reject(PermitImpl permit, Decision decision) {
    long wait = decision.waitNanos();
    Instant retryAt = settings.wallClock.instant().plusNanos(wait);
    Duration required = Duration.ofNanos(wait);
    String partition = permit.partition();
    if (events.enabled()) {
      events.emit(new PacerEvent.Rejected(partition, required, retryAt,
          Optional.ofNullable(decision.decider)));
    }
    return new RateLimitedException(partition, retryAt, required, decision.decider);
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
