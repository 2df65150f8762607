package dev.headway.internal.pacer;

import dev.headway.Scheduler;
import java.time.Duration;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/** The production {@link Scheduler}: real time, one shared daemon timer thread. */
public final class SystemScheduler implements Scheduler {
  /** The shared instance. */
  public static final SystemScheduler INSTANCE = new SystemScheduler();

  private final ScheduledThreadPoolExecutor timer;

  private SystemScheduler() {
    timer = new ScheduledThreadPoolExecutor(1, r -> {
      Thread thread = new Thread(r, "headway-scheduler");
      thread.setDaemon(true);
      return thread;
    });
    timer.setRemoveOnCancelPolicy(true);
  }

  @Override
  public void sleep(Duration delay) throws InterruptedException {
    long deadline = System.nanoTime() + delay.toNanos();
    for (long left = delay.toNanos(); left > 0; left = deadline - System.nanoTime()) {
      if (Thread.interrupted()) {
        throw new InterruptedException();
      }
      LockSupport.parkNanos(this, left);
    }
    if (Thread.interrupted()) {
      throw new InterruptedException();
    }
  }

  @Override
  public Future<?> schedule(Runnable task, Duration delay) {
    return timer.schedule(task, Math.max(0, delay.toNanos()), TimeUnit.NANOSECONDS);
  }
}
