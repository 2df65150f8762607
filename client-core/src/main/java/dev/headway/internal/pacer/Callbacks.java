package dev.headway.internal.pacer;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Where user code runs that the pacer calls back: {@code PacerListener}s and the completion of
 * the futures {@code acquireAsync} returned (and so whatever the caller chained on them). Never
 * the pacer's scheduler thread when the pacer owns it, so a slow listener or a blocking
 * {@code thenApply} cannot stall pacing.
 */
public final class Callbacks {
  /** Threads of the default executor. */
  public static final int DEFAULT_THREADS = 2;
  /** Tasks the default executor queues before running new ones on the submitting thread. */
  public static final int DEFAULT_QUEUE = 10_000;

  private Callbacks() {}

  /**
   * Returns the default executor: at most {@link #DEFAULT_THREADS} daemon threads named
   * {@code name-1}, {@code name-2}, ... (started on demand, gone after 30 idle seconds) and a
   * queue of {@link #DEFAULT_QUEUE} tasks; past that a task runs on the thread that submitted it (back
   * pressure rather than a lost callback or an unbounded queue), as it does once shut down;
   * except on a pacer's timer thread, which never runs user code: there a task past the queue
   * waits in an overflow, and so does every task the timer raises after it while the overflow
   * holds any. The executor's threads move the overflow's oldest tasks into the queue as it has
   * room (after each task), so the timer's tasks run in the order raised: the completions of
   * the waiters granted first (whose deadlines come first) are not put behind later ones. The
   * overflow holds only what the timer raises while the queue is full (the completions of
   * waiting futures, the events of its decisions).
   */
  public static ThreadPoolExecutor defaultExecutor(String name) {
    ArrayBlockingQueue<Runnable> queue = new ArrayBlockingQueue<>(DEFAULT_QUEUE);
    Deque<Runnable> overflow = new ArrayDeque<>(); // guarded by itself
    AtomicInteger threads = new AtomicInteger();
    ThreadPoolExecutor executor = new ThreadPoolExecutor(DEFAULT_THREADS, DEFAULT_THREADS, 30,
        TimeUnit.SECONDS, queue, r -> {
          Thread thread = new Thread(r, name + "-" + threads.incrementAndGet());
          thread.setDaemon(true);
          return thread;
        }, (task, pool) -> {
          if (SystemScheduler.onTimerThread() && !pool.isShutdown()) {
            synchronized (overflow) {
              overflow.addLast(task); // every thread is busy: moved to the queue as it has room
            }
          } else {
            task.run(); // full or shut down: run here, never drop it
          }
        }) {
      @Override
      public void execute(Runnable task) {
        if (SystemScheduler.onTimerThread() && !isShutdown()) {
          synchronized (overflow) {
            if (!overflow.isEmpty()) {
              overflow.addLast(task); // after those raised before it
              return;
            }
          }
        }
        super.execute(task);
      }

      @Override
      protected void afterExecute(Runnable task, Throwable thrown) {
        synchronized (overflow) {
          for (Runnable next; (next = overflow.peekFirst()) != null && queue.offer(next); ) {
            overflow.pollFirst();
          }
        }
      }
    };
    executor.allowCoreThreadTimeOut(true);
    return executor;
  }

  /** Runs {@code task} on {@code executor}, or here if it refuses (e.g. shut down). */
  static void run(Executor executor, Runnable task) {
    try {
      executor.execute(task);
    } catch (RejectedExecutionException e) {
      task.run();
    }
  }
}
