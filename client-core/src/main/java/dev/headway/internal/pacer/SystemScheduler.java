package dev.headway.internal.pacer;

import dev.headway.Scheduler;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The production {@link Scheduler}: real time, one daemon timer thread (started on first use,
 * gone after 30 idle seconds). Each {@code Pacer} without a scheduler of its own owns one, and
 * stops it when closed: {@link #shutdown()} drops pending tasks and ends every {@link #sleep} at
 * once. {@link #INSTANCE} is the shared one {@link Scheduler#system()} returns; it is never shut
 * down.
 */
public final class SystemScheduler implements Scheduler {
  /** The shared instance. */
  public static final SystemScheduler INSTANCE = new SystemScheduler("headway-scheduler");

  /** What an interrupted sleep says: the caller was waiting for its turn under a quota. */
  private static final String INTERRUPTED = "interrupted while waiting for the rate limit";

  private final ScheduledThreadPoolExecutor timer;
  private final Set<Thread> sleepers = ConcurrentHashMap.newKeySet();
  private volatile boolean shutdown;

  /** Creates a scheduler whose timer thread is named {@code threadName}. */
  public SystemScheduler(String threadName) {
    timer = new ScheduledThreadPoolExecutor(1, r -> {
      Thread thread = new TimerThread(r, threadName);
      thread.setDaemon(true);
      return thread;
    });
    timer.setRemoveOnCancelPolicy(true);
    timer.setKeepAliveTime(30, TimeUnit.SECONDS);
    timer.allowCoreThreadTimeOut(true);
  }

  /**
   * Parks the calling thread for {@code delay}; returns at once (early) once this scheduler is
   * shut down, so that whoever waits can see why.
   */
  @Override
  public void sleep(Duration delay) throws InterruptedException {
    long deadline = System.nanoTime() + delay.toNanos();
    Thread self = Thread.currentThread();
    sleepers.add(self);
    try {
      for (long left = delay.toNanos(); left > 0 && !shutdown;
          left = deadline - System.nanoTime()) {
        if (Thread.interrupted()) {
          throw new InterruptedException(INTERRUPTED);
        }
        LockSupport.parkNanos(this, left);
      }
    } finally {
      sleepers.remove(self);
    }
    if (Thread.interrupted()) {
      throw new InterruptedException(INTERRUPTED);
    }
  }

  /**
   * Whether the calling thread is the timer thread of a {@code SystemScheduler}: code that may
   * run user code (a callback executor that runs a task where it was raised) hands it elsewhere.
   */
  public static boolean onTimerThread() {
    return Thread.currentThread() instanceof TimerThread;
  }

  /** The timer thread: known by its class, so that user code is never run on it. */
  private static final class TimerThread extends Thread {
    TimerThread(Runnable task, String name) {
      super(task, name);
    }
  }

  @Override
  public Future<?> schedule(Runnable task, Duration delay) {
    return timer.schedule(task, Math.max(0, delay.toNanos()), TimeUnit.NANOSECONDS);
  }

  /** Stops the timer (pending tasks never run; new ones are refused) and ends every sleep. */
  public void shutdown() {
    shutdown = true;
    timer.shutdownNow();
    for (Thread sleeper : sleepers) {
      LockSupport.unpark(sleeper);
    }
  }
}
