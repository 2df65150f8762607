package dev.headway.jdk;

import dev.headway.Scheduler;
import dev.headway.Ticker;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Delayed;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Failsafe's scheduler SPI on top of the pacer's {@link Scheduler}, so that Failsafe's retry
 * delays pass through the same seam as every other wait (and run in virtual time in tests).
 *
 * <p>One per call. The first task, if due now, runs at once on the calling thread: Failsafe
 * schedules the first async attempt with a zero delay, and an attempt only starts non-blocking
 * work (an async acquire, an async send). Every later task goes through the pacer's scheduler,
 * even one due now (a retry after {@code Retry-After: 0}): Failsafe cancels the previous
 * attempt's dependencies right after {@code schedule} returns, so a retry that had already
 * started inside {@code schedule} would be cancelled with it, and the caller would get a
 * {@link java.util.concurrent.CancellationException}. Thread-safe.
 */
final class PacerScheduling implements dev.failsafe.spi.Scheduler {
  private final Scheduler scheduler;
  private final Ticker ticker;
  private final AtomicBoolean firstTaskScheduled = new AtomicBoolean();

  PacerScheduling(Scheduler scheduler, Ticker ticker) {
    this.scheduler = scheduler;
    this.ticker = ticker;
  }

  @Override
  public ScheduledFuture<?> schedule(Callable<?> callable, long delay, TimeUnit unit) {
    long nanos = unit.toNanos(delay);
    if (nanos <= 0 && firstTaskScheduled.compareAndSet(false, true)) {
      CompletableFuture<Object> done = new CompletableFuture<>();
      try {
        done.complete(callable.call());
      } catch (Exception e) {
        done.completeExceptionally(e);
      }
      return new Task(done, ticker.read());
    }
    firstTaskScheduled.set(true);
    nanos = Math.max(0, nanos);
    long deadline = ticker.read() + nanos;
    CompletableFuture<Object> outcome = new CompletableFuture<>();
    Future<?> scheduled = scheduler.schedule(() -> {
      try {
        outcome.complete(callable.call());
      } catch (Exception e) {
        outcome.completeExceptionally(e);
      }
    }, Duration.ofNanos(nanos));
    return new Task(outcome, deadline) {
      @Override
      public boolean cancel(boolean mayInterruptIfRunning) {
        scheduled.cancel(mayInterruptIfRunning);
        return super.cancel(mayInterruptIfRunning);
      }
    };
  }

  private class Task implements ScheduledFuture<Object> {
    private final CompletableFuture<Object> outcome;
    private final long deadlineNanos;

    Task(CompletableFuture<Object> outcome, long deadlineNanos) {
      this.outcome = outcome;
      this.deadlineNanos = deadlineNanos;
    }

    @Override
    public long getDelay(TimeUnit unit) {
      return unit.convert(deadlineNanos - ticker.read(), TimeUnit.NANOSECONDS);
    }

    @Override
    public int compareTo(Delayed other) {
      return Long.compare(getDelay(TimeUnit.NANOSECONDS), other.getDelay(TimeUnit.NANOSECONDS));
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
      return outcome.cancel(mayInterruptIfRunning);
    }

    @Override
    public boolean isCancelled() {
      return outcome.isCancelled();
    }

    @Override
    public boolean isDone() {
      return outcome.isDone();
    }

    @Override
    public Object get() throws InterruptedException, ExecutionException {
      return outcome.get();
    }

    @Override
    public Object get(long timeout, TimeUnit unit)
        throws InterruptedException, ExecutionException, TimeoutException {
      return outcome.get(timeout, unit);
    }
  }
}
