package dev.headway.internal.pacer;

import dev.headway.PacerEvent;
import dev.headway.Permit;
import dev.headway.RateLimitedException;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Owns an asynchronous acquire: the future, woken by the scheduler at the committed send time
 * (or to look again), with the other acquires due at that instant ({@link WakeUps}), never
 * blocking a thread. However the future ends other than with its own
 * permit (cancelled, completed exceptionally e.g. by {@code orTimeout}, completed with another
 * value by {@code complete}, {@code completeOnTimeout}, {@code obtrudeValue}...), the permit is
 * released: nothing is sent. A failure while deciding completes it exceptionally, and so does
 * closing the pacer; it never stays incomplete. The pacer completes it on its callback executor
 * ({@link Callbacks}), so that what the caller chained on it never runs on the scheduler's
 * thread.
 */
final class AsyncAcquire extends CompletableFuture<Permit> implements Runnable {
  private final Settings settings;
  private final Admission admission;
  private final Acquirer acquirer;
  private final PermitImpl permit;
  private final long startNanos;
  private final @Nullable String cause;
  private final long deadlineNanos;
  private final long budgetNanos;
  private volatile WakeUps.@Nullable Place task;
  /** How late past its deadline a waiter may be woken and still decide: 1 ms. */
  static final long LATE_NANOS = 1_000_000L;

  private boolean announced;
  /** The time and decider of the last decision (what a refusal past the deadline reports). */
  private long lastAtNanos;
  private @Nullable String lastDecider;
  /** Set once by whoever ends the wait (hand-out, cancel, failure): the winner acts alone. */
  private final AtomicBoolean ended = new AtomicBoolean();

  AsyncAcquire(Settings settings, Admission admission, Acquirer acquirer, PermitImpl permit,
      long startNanos, @Nullable String cause, long deadlineNanos, long budgetNanos) {
    this.budgetNanos = budgetNanos;
    this.settings = settings;
    this.admission = admission;
    this.acquirer = acquirer;
    this.permit = permit;
    this.startNanos = startNanos;
    this.cause = cause;
    this.deadlineNanos = deadlineNanos;
    permit.waiter = this;
  }

  /** Acts on a decision. */
  void after(Decision decision) {
    lastAtNanos = decision.atNanos;
    lastDecider = decision.decider;
    switch (decision.verdict) {
      case GO:
        if (decision.goesNow()) {
          handOut();
        } else {
          if (!announced) {
            announced = true;
            acquirer.delayed(permit, decision.atNanos - decision.decidedNanos, decision.decider);
          }
          wakeAt(decision.atNanos);
        }
        break;
      case RECHECK:
        wakeAt(decision.atNanos);
        break;
      case REJECT:
        refuse(decision);
        break;
      default:
        break; // cancelled
    }
  }

  @Override
  public void run() {
    if (ended.get() && !isDone()) {
      return; // ended by another wake-up of this acquire (its time moved earlier): it acts alone
    }
    if (isDone()) {
      // Ended by a path that bypasses the overrides below (completeAsync): give the permit back.
      if (end()) {
        permit.release();
      }
      return;
    }
    if (acquirer.isClosed()) {
      closed();
      return;
    }
    try {
      long now = settings.ticker.read();
      if (permit.isCommitted()) {
        if (now < permit.sendAtNanos) {
          wakeAt(permit.sendAtNanos);
          return;
        }
        if (!admission.heldBeyond(permit)) {
          handOut();
          return;
        }
        admission.uncommit(permit);
      }
      if (Time.sub(now, deadlineNanos) > LATE_NANOS) {
        // Woken past its deadline (the timer ran late: thousands of waiters due together): its
        // maxWait is over, it is refused without deciding again, which also costs the timer
        // less per late waiter.
        refuse(Decision.reject(Math.max(lastAtNanos, now), now, lastDecider));
        return;
      }
      after(admission.decide(permit, now, deadlineNanos));
    } catch (RuntimeException | LinkageError | StackOverflowError e) {
      failed(e);
    }
  }

  /** Completes the future exceptionally after a failure while deciding (the permit released). */
  void failed(Throwable e) {
    fail(new IllegalStateException(
        "Headway failed while deciding when this request may be sent; nothing was sent", e));
  }

  /** The pacer closed while this acquire waited: it fails, nothing is sent. */
  void closed() {
    fail(Acquirer.closedWhileWaiting());
  }

  /** Ends the wait: true for the one caller that ends it. */
  private boolean end() {
    if (!ended.compareAndSet(false, true)) {
      return false;
    }
    acquirer.ended(this);
    return true;
  }

  /** Fails the future on the callback executor, the permit released first. */
  private void fail(Throwable ex) {
    if (!end()) {
      return;
    }
    cleanUp();
    Callbacks.run(settings.executor, () -> super.completeExceptionally(ex));
  }

  /**
   * Refuses: the permit is released at once; the exception is built, and the future failed, on
   * the callback executor, so that many refusals falling due together cost the scheduler's
   * thread little each (the wall clock is read now: the retry time does not drift).
   */
  private void refuse(Decision decision) {
    if (!end()) {
      return;
    }
    cleanUp();
    Instant wallNow = settings.wallClock.instant();
    long start = Time.sub(deadlineNanos, budgetNanos);
    Callbacks.run(settings.executor, () -> super.completeExceptionally(
        acquirer.reject(permit, decision, start, budgetNanos, wallNow)));
  }

  private void handOut() {
    if (!end()) {
      // Whoever ended the wait gave the permit back or handed it out (another wake-up of this
      // acquire, its time moved earlier): releasing it here would take it from the caller.
      return;
    }
    permit.handedOut = true;
    acquirer.wakeUps.close();
    Callbacks.run(settings.executor, () -> {
      if (!super.complete(permit)) {
        permit.handedOut = false;
        permit.release(); // someone forced another outcome meanwhile (obtrude*, completeAsync)
        return;
      }
      ended(PacerEvent.Waited.Outcome.ACQUIRED);
    });
  }

  /**
   * Wakes this acquire at its permit's send time, moved earlier by {@link Retiming} (the wake-up
   * it had is cancelled; one already running finds the acquire ended or schedules the same time).
   */
  void sooner() {
    if (ended.get()) {
      return;
    }
    try {
      WakeUps.Place t = task;
      if (t != null) {
        t.cancel();
      }
      wakeAt(permit.sendAtNanos);
    } catch (RuntimeException | LinkageError | StackOverflowError e) {
      failed(e); // its wake-up cancelled and none scheduled: it would wait for ever
    }
  }

  /** Wakes this acquire at {@code atNanos}, with the others due then ({@link WakeUps}). */
  private void wakeAt(long atNanos) {
    task = acquirer.wakeUps.at(this, atNanos);
    if (isDone()) {
      WakeUps.Place t = task;
      if (t != null) {
        t.cancel();
      }
      if (end()) {
        permit.release();
      }
    }
  }

  @Override
  public boolean cancel(boolean mayInterruptIfRunning) {
    // Release before the future completes, so that whoever sees it cancelled also sees the
    // permit's units given back.
    if (!end()) {
      return isCancelled();
    }
    cleanUp();
    ended(PacerEvent.Waited.Outcome.CANCELLED);
    return super.cancel(mayInterruptIfRunning);
  }

  @Override
  public boolean completeExceptionally(Throwable ex) {
    if (!end()) {
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

  /** Completed by someone else (e.g. {@code completeOnTimeout}): the permit is given back. */
  @Override
  public boolean complete(Permit value) {
    if (!end()) {
      return false;
    }
    cleanUp();
    return super.complete(value);
  }

  @Override
  public void obtrudeValue(Permit value) {
    end();
    super.obtrudeValue(value);
    if (value != permit) {
      cleanUp();
    }
  }

  @Override
  public void obtrudeException(Throwable ex) {
    end();
    super.obtrudeException(ex);
    cleanUp();
  }

  private void cleanUp() {
    WakeUps.Place t = task;
    if (t != null) {
      t.cancel();
    }
    permit.release();
  }
}
