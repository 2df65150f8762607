package dev.headway.testing;

import dev.headway.Pacer;
import dev.headway.Scheduler;
import dev.headway.Ticker;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A virtual clock for tests and simulations: one object that is the {@link Ticker}, the wall
 * clock ({@link InstantSource}) and the {@link Scheduler}, so that the whole library runs in
 * virtual time.
 *
 * <p>Time moves only when {@link #advance} is called, or, in {@linkplain #autoAdvance auto-advance
 * mode}, when a thread sleeps (the sleep moves the clock to the sleeper's deadline). In manual
 * mode a sleeping thread blocks until another thread advances past its deadline, or until it is
 * interrupted; {@link #awaitSleepers} lets a test wait until its threads are parked.
 *
 * <p>Scheduled tasks run on the thread that advances the clock, in deadline order, with the clock
 * set to each task's deadline. Thread-safe.
 */
public final class VirtualClock implements Ticker, InstantSource, Scheduler {
  /** The default wall-clock origin: 2025-01-01T00:00:00Z. */
  public static final Instant DEFAULT_EPOCH = Instant.parse("2025-01-01T00:00:00Z");

  private final Instant epoch;
  private long nanos;
  private long sequence;
  private boolean autoAdvance;
  private final PriorityQueue<Task> tasks = new PriorityQueue<>();
  /** Deadlines of the threads blocked in {@link #sleep} right now (manual mode). */
  private final PriorityQueue<Long> sleeperDeadlines = new PriorityQueue<>();

  private VirtualClock(Instant epoch) {
    this.epoch = epoch;
  }

  /** Returns a manual clock whose wall time starts at {@link #DEFAULT_EPOCH}. */
  public static VirtualClock create() {
    return new VirtualClock(DEFAULT_EPOCH);
  }

  /** Returns a manual clock whose wall time starts at {@code epoch}. */
  public static VirtualClock startingAt(Instant epoch) {
    return new VirtualClock(epoch);
  }

  /** Makes every {@link #sleep} advance the clock to the sleeper's deadline; returns this. */
  public synchronized VirtualClock autoAdvance(boolean enabled) {
    this.autoAdvance = enabled;
    notifyAll();
    return this;
  }

  @Override
  public synchronized long read() {
    return nanos;
  }

  @Override
  public synchronized Instant instant() {
    return epoch.plusNanos(nanos);
  }

  /** Returns how much virtual time has passed since the clock was created. */
  public synchronized Duration elapsed() {
    return Duration.ofNanos(nanos);
  }

  /** Moves the clock forward by {@code duration}, running tasks and waking sleepers due. */
  public void advance(Duration duration) {
    if (duration.isNegative()) {
      throw new IllegalArgumentException("duration must not be negative but was " + duration);
    }
    long target;
    synchronized (this) {
      target = nanos + duration.toNanos();
    }
    advanceTo(target);
  }

  private void advanceTo(long target) {
    while (true) {
      Task due;
      synchronized (this) {
        Task head = tasks.peek();
        if (head == null || head.deadline > target) {
          nanos = Math.max(nanos, target);
          notifyAll();
          return;
        }
        due = tasks.poll();
        nanos = Math.max(nanos, due.deadline);
        notifyAll();
      }
      due.run(); // outside the lock: tasks may call back into the clock
    }
  }

  /** Runs every task due now (deadline not after the current time). */
  public void runDueTasks() {
    long now;
    synchronized (this) {
      now = nanos;
    }
    advanceTo(now);
  }

  @Override
  public void sleep(Duration delay) throws InterruptedException {
    if (Thread.interrupted()) {
      throw new InterruptedException();
    }
    long deadline;
    boolean auto;
    synchronized (this) {
      deadline = nanos + Math.max(0, delay.toNanos());
      auto = autoAdvance;
    }
    if (auto) {
      advanceTo(deadline);
      return;
    }
    synchronized (this) {
      sleeperDeadlines.add(deadline);
      notifyAll();
      try {
        while (nanos < deadline) {
          if (autoAdvance) {
            break;
          }
          wait();
        }
      } finally {
        sleeperDeadlines.remove(deadline);
        notifyAll();
      }
    }
    if (autoAdvance()) {
      advanceTo(deadline);
    }
  }

  private synchronized boolean autoAdvance() {
    return autoAdvance;
  }

  @Override
  public Future<?> schedule(Runnable task, Duration delay) {
    Task t;
    synchronized (this) {
      t = new Task(task, nanos + Math.max(0, delay.toNanos()), sequence++);
      tasks.add(t);
      notifyAll();
    }
    return t;
  }

  /**
   * Returns the delay from now to the next thing the clock would do: the earliest deadline of a
   * pending task or of a thread sleeping on the clock; empty if there is none.
   */
  public synchronized java.util.Optional<Duration> nextEventDelay() {
    long next = Long.MAX_VALUE;
    for (Task t : tasks) {
      if (!t.isDone()) {
        next = Math.min(next, t.deadline);
      }
    }
    Long sleeper = sleeperDeadlines.peek();
    if (sleeper != null) {
      next = Math.min(next, sleeper);
    }
    return next == Long.MAX_VALUE
        ? java.util.Optional.empty()
        : java.util.Optional.of(Duration.ofNanos(Math.max(0, next - nanos)));
  }

  /**
   * Advances the clock to its next event ({@link #nextEventDelay()}), running what is due and
   * waking the sleepers due. Unlike {@linkplain #autoAdvance auto-advance}, time moves only when
   * the test says so, one event at a time: a waiter that polls cannot run virtual time ahead of
   * work that happens in real time (such as an HTTP exchange).
   *
   * @return whether there was an event to advance to
   */
  public boolean advanceToNextEvent() {
    java.util.Optional<Duration> next = nextEventDelay();
    next.ifPresent(this::advance);
    return next.isPresent();
  }

  /** Returns a pacer builder whose ticker, wall clock and scheduler are this clock. */
  public Pacer.Builder pacer() {
    return Pacer.builder().ticker(this).wallClock(this).scheduler(this);
  }

  /**
   * Waits for {@code call} while virtual time passes: whenever it has not completed for 5 real
   * milliseconds, the clock moves to its next event (a scheduled wait ends). Returns its result,
   * or throws as it failed; gives up after 20 s of real time ({@link TimeoutException}).
   */
  public <T> T await(Future<T> call)
      throws InterruptedException, ExecutionException, TimeoutException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (true) {
      try {
        return call.get(5, TimeUnit.MILLISECONDS);
      } catch (TimeoutException e) {
        if (System.nanoTime() > deadline) {
          throw e;
        }
        advanceToNextEvent();
      }
    }
  }

  /** Returns the number of scheduled tasks not yet run or cancelled. */
  public synchronized int pendingTasks() {
    return (int) tasks.stream().filter(t -> !t.isDone()).count();
  }

  /** Returns the delays from now of the pending tasks, soonest first. */
  public synchronized List<Duration> pendingDelays() {
    List<Duration> delays = new ArrayList<>();
    tasks.stream().filter(t -> !t.isDone()).sorted()
        .forEach(t -> delays.add(Duration.ofNanos(t.deadline - nanos)));
    return delays;
  }

  /**
   * Returns the number of threads blocked in {@link #sleep} right now: those whose deadline the
   * clock has not reached. A sleeper the clock has passed but that has not yet run again is not
   * counted, so a test that advances "when every worker sleeps" waits for it to act first.
   */
  public synchronized int sleepers() {
    return blocked();
  }

  private int blocked() {
    int count = 0;
    for (long deadline : sleeperDeadlines) {
      if (deadline > nanos) {
        count++;
      }
    }
    return count;
  }

  /**
   * Blocks (in real time, at most {@code timeout}) until at least {@code count} threads sleep on
   * this clock. For synchronizing a test with its worker threads; no time passes on the clock.
   *
   * @throws AssertionError if the count is not reached in time
   */
  public synchronized void awaitSleepers(int count, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (blocked() < count) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        throw new AssertionError("expected " + count + " sleepers but saw " + blocked());
      }
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
  }

  /**
   * Blocks (in real time, at most {@code timeout}) until at least {@code count} tasks are pending.
   *
   * @throws AssertionError if the count is not reached in time
   */
  public synchronized void awaitPendingTasks(int count, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (pendingTasks() < count) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        throw new AssertionError("expected " + count + " tasks but saw " + pendingTasks());
      }
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
  }

  @Override
  public String toString() {
    return "VirtualClock[" + instant() + "]";
  }

  private final class Task implements Future<Object>, Comparable<Task> {
    private final Runnable action;
    private final long deadline;
    private final long seq;
    private int state; // 0 pending, 1 done, 2 cancelled

    Task(Runnable action, long deadline, long seq) {
      this.action = action;
      this.deadline = deadline;
      this.seq = seq;
    }

    void run() {
      synchronized (VirtualClock.this) {
        if (state != 0) {
          return;
        }
        state = 1;
      }
      action.run();
    }

    @Override
    public int compareTo(Task o) {
      int c = Long.compare(deadline, o.deadline);
      return c != 0 ? c : Long.compare(seq, o.seq);
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
      synchronized (VirtualClock.this) {
        if (state != 0) {
          return false;
        }
        state = 2;
        tasks.remove(this);
        return true;
      }
    }

    @Override
    public boolean isCancelled() {
      synchronized (VirtualClock.this) {
        return state == 2;
      }
    }

    @Override
    public boolean isDone() {
      synchronized (VirtualClock.this) {
        return state != 0;
      }
    }

    @Override
    public Object get() throws ExecutionException {
      if (isCancelled()) {
        throw new CancellationException();
      }
      return null;
    }

    @Override
    public Object get(long timeout, TimeUnit unit) throws ExecutionException, TimeoutException {
      return get();
    }
  }
}
