package dev.headway.benchmarks.sim;

import dev.headway.Scheduler;
import dev.headway.Ticker;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.PriorityQueue;
import java.util.concurrent.CancellationException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * The simulator's discrete-event loop, which is also the {@link Ticker}, wall clock and
 * {@link Scheduler} of every simulated client and server: one thread, virtual time.
 *
 * <p>Events (network deliveries, callers' timers and every task the Pacer schedules) run in
 * time order, ties in the order they were scheduled, with the clock set to their time. Nothing
 * ever blocks: {@link #sleep} is refused, since a parked thread would stop the whole simulation;
 * simulated callers use {@code tryAcquire}, {@code acquireAsync} and {@code retryDelay} instead.
 *
 * <p>Not thread-safe: everything runs on the thread that calls {@link #runUntil}.
 */
public final class SimClock implements Ticker, InstantSource, Scheduler {
  private final Instant epoch;
  private final PriorityQueue<Event> queue = new PriorityQueue<>();
  private long nowNanos;
  private long sequence;
  private long eventsRun;
  private boolean stopped;

  /** Creates a clock whose wall time reads {@code epoch} at virtual time zero. */
  public SimClock(Instant epoch) {
    this.epoch = epoch;
  }

  @Override
  public long read() {
    return nowNanos;
  }

  /** Returns the virtual time in nanoseconds since the start. */
  public long nanos() {
    return nowNanos;
  }

  @Override
  public Instant instant() {
    return epoch.plusNanos(nowNanos);
  }

  /** Returns the wall time at virtual time zero. */
  public Instant epoch() {
    return epoch;
  }

  /** Returns how many events have run. */
  public long eventsRun() {
    return eventsRun;
  }

  /** Refused: the simulation has one thread, and parking it would stop time. */
  @Override
  public void sleep(Duration delay) {
    throw new UnsupportedOperationException(
        "the simulator runs on one thread; simulated callers must not block");
  }

  @Override
  public Future<?> schedule(Runnable task, Duration delay) {
    return at(nowNanos + Math.max(0, delay.toNanos()), task);
  }

  /** Runs {@code task} after {@code delayNanos} of virtual time (at once if not positive). */
  public Event after(long delayNanos, Runnable task) {
    return at(nowNanos + Math.max(0, delayNanos), task);
  }

  /** Runs {@code task} at virtual time {@code timeNanos} (now if that has passed). */
  public Event at(long timeNanos, Runnable task) {
    Event event = new Event(Math.max(timeNanos, nowNanos), sequence++, task);
    queue.add(event);
    return event;
  }

  /** Runs events in time order until the next one is after {@code endNanos}; then sets the clock
   * to {@code endNanos}. */
  public void runUntil(long endNanos) {
    while (!stopped) {
      Event next = queue.peek();
      if (next == null || next.timeNanos > endNanos) {
        break;
      }
      queue.poll();
      if (next.state != 0) {
        continue;
      }
      next.state = 1;
      nowNanos = next.timeNanos;
      eventsRun++;
      next.task.run();
    }
    if (!stopped) {
      nowNanos = Math.max(nowNanos, endNanos);
    }
  }

  /** Makes {@link #runUntil} return after the event running now; the clock stays where it is. */
  public void stop() {
    stopped = true;
  }

  /** One scheduled task. Cancelling it before it runs means it never runs. */
  public static final class Event implements Future<Object>, Comparable<Event> {
    private final long timeNanos;
    private final long seq;
    private final Runnable task;
    private int state; // 0 pending, 1 ran, 2 cancelled

    Event(long timeNanos, long seq, Runnable task) {
      this.timeNanos = timeNanos;
      this.seq = seq;
      this.task = task;
    }

    @Override
    public int compareTo(Event o) {
      int c = Long.compare(timeNanos, o.timeNanos);
      return c != 0 ? c : Long.compare(seq, o.seq);
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
      if (state != 0) {
        return false;
      }
      state = 2; // stays in the queue, skipped when reached: O(1) cancel
      return true;
    }

    @Override
    public boolean isCancelled() {
      return state == 2;
    }

    @Override
    public boolean isDone() {
      return state != 0;
    }

    @Override
    public Object get() {
      if (state == 2) {
        throw new CancellationException();
      }
      return null;
    }

    @Override
    public Object get(long timeout, TimeUnit unit) {
      return get();
    }
  }
}
