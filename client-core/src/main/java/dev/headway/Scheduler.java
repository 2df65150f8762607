package dev.headway;

import java.time.Duration;
import java.util.concurrent.Future;

/**
 * How Headway waits: parks a thread, or runs a task later. The one seam through which every wait
 * passes, so that a virtual clock can drive the whole library in tests and simulations.
 *
 * <p>Implementations must be thread-safe.
 */
public interface Scheduler {
  /**
   * Parks the calling thread for {@code delay}, or until interrupted.
   *
   * @param delay how long to park
   * @throws InterruptedException if the thread is interrupted; the wait ends at once
   */
  void sleep(Duration delay) throws InterruptedException;

  /**
   * Runs {@code task} once after {@code delay} on a thread of the scheduler's choosing; cancelling
   * the returned future before then means it never runs.
   *
   * @param task the task to run; it should be short
   * @param delay how long to wait before running it
   * @return a future of the task, to cancel it
   */
  Future<?> schedule(Runnable task, Duration delay);

  /**
   * Returns the system scheduler: {@link java.util.concurrent.locks.LockSupport#parkNanos} for
   * {@link #sleep}, and one shared daemon thread for {@link #schedule} (tasks must be short; the
   * adapters only complete futures there).
   *
   * @return the shared system scheduler
   */
  static Scheduler system() {
    return dev.headway.internal.pacer.SystemScheduler.INSTANCE;
  }
}
