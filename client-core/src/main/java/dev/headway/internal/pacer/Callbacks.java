package dev.headway.internal.pacer;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

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
   * {@code name} (started on demand, gone after 30 idle seconds) and a queue of
   * {@link #DEFAULT_QUEUE} tasks; past that a task runs on the thread that submitted it (back
   * pressure rather than a lost callback or an unbounded queue), as it does once shut down.
   */
  public static ThreadPoolExecutor defaultExecutor(String name) {
    ThreadPoolExecutor executor = new ThreadPoolExecutor(DEFAULT_THREADS, DEFAULT_THREADS, 30,
        TimeUnit.SECONDS, new ArrayBlockingQueue<>(DEFAULT_QUEUE), r -> {
          Thread thread = new Thread(r, name);
          thread.setDaemon(true);
          return thread;
        }, (task, pool) -> task.run()); // full or shut down: run here, never drop it
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
