package dev.headway.internal.pacer;

import dev.headway.PacerEvent;
import dev.headway.Permit;
import dev.headway.RateLimitedException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import org.jspecify.annotations.Nullable;

/**
 * Owns an asynchronous acquire: the future, woken by the scheduler at the committed send time
 * (or to look again), never blocking a thread. Cancelling it, or completing it exceptionally (e.g.
 * {@code orTimeout}), releases the permit: nothing is sent.
 */
final class AsyncAcquire extends CompletableFuture<Permit> implements Runnable {
  private final Settings settings;
  private final Admission admission;
  private final Acquirer acquirer;
  private final PermitImpl permit;
  private final long startNanos;
  private final @Nullable String cause;
  private final long deadlineNanos;
  private volatile Future<?> task;
  private boolean announced;
  /** Set once by whoever ends the wait (hand-out, cancel, failure): the winner acts alone. */
  private final java.util.concurrent.atomic.AtomicBoolean ended =
      new java.util.concurrent.atomic.AtomicBoolean();

  AsyncAcquire(Settings settings, Admission admission, Acquirer acquirer, PermitImpl permit,
      long startNanos, @Nullable String cause, long deadlineNanos) {
    this.settings = settings;
    this.admission = admission;
    this.acquirer = acquirer;
    this.permit = permit;
    this.startNanos = startNanos;
    this.cause = cause;
    this.deadlineNanos = deadlineNanos;
  }

  /** Acts on a decision. */
  void after(Decision decision) {
    switch (decision.verdict) {
      case GO:
        if (decision.goesNow()) {
          handOut();
        } else {
          if (!announced) {
            announced = true;
            acquirer.delayed(permit, decision.atNanos - decision.decidedNanos, decision.decider);
          }
          schedule(decision.atNanos - decision.decidedNanos);
        }
        break;
      case RECHECK:
        schedule(decision.atNanos - decision.decidedNanos);
        break;
      case REJECT:
        completeExceptionally(acquirer.reject(permit, decision));
        break;
      default:
        break; // cancelled
    }
  }

  @Override
  public void run() {
    if (isDone()) {
      if (isCompletedExceptionally()) {
        permit.release();
      }
      return;
    }
    long now = settings.ticker.read();
    if (permit.isCommitted()) {
      if (now < permit.sendAtNanos) {
        schedule(permit.sendAtNanos - now);
        return;
      }
      if (!admission.heldBeyond(permit)) {
        handOut();
        return;
      }
      admission.uncommit(permit);
    }
    after(admission.decide(permit, now, deadlineNanos));
  }

  private void handOut() {
    if (!ended.compareAndSet(false, true)) {
      permit.release();
      return;
    }
    permit.handedOut = true;
    if (!complete(permit)) {
      permit.handedOut = false;
      permit.release();
      return;
    }
    ended(PacerEvent.Waited.Outcome.ACQUIRED);
  }

  private void schedule(long delayNanos) {
    task = settings.scheduler.schedule(this, Duration.ofNanos(Math.max(0, delayNanos)));
    if (isDone()) {
      Future<?> t = task;
      if (t != null) {
        t.cancel(false);
      }
      if (isCompletedExceptionally()) {
        permit.release();
      }
    }
  }

  @Override
  public boolean cancel(boolean mayInterruptIfRunning) {
    // Release before the future completes, so that whoever sees it cancelled also sees the
    // permit's units given back.
    if (!ended.compareAndSet(false, true)) {
      return isCancelled();
    }
    cleanUp();
    ended(PacerEvent.Waited.Outcome.CANCELLED);
    return super.cancel(mayInterruptIfRunning);
  }

  @Override
  public boolean completeExceptionally(Throwable ex) {
    if (!ended.compareAndSet(false, true)) {
      return false;
    }
    cleanUp();
    ended(ex instanceof RateLimitedException ? PacerEvent.Waited.Outcome.REJECTED
        : PacerEvent.Waited.Outcome.CANCELLED);
    return super.completeExceptionally(ex);
  }

  private void ended(PacerEvent.Waited.Outcome outcome) {
    acquirer.waited(permit, settings.ticker.read() - startNanos, cause, outcome);
  }

  private void cleanUp() {
    Future<?> t = task;
    if (t != null) {
      t.cancel(false);
    }
    permit.release();
  }
}
