package dev.headway.internal.pacer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
import dev.headway.Permit;
import dev.headway.QuotaLimit;
import dev.headway.QuotaPolicy;
import dev.headway.QuotaUnit;
import dev.headway.RateLimitSignal;
import dev.headway.RequestInfo;
import dev.headway.Scheduler;
import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Thousands of asynchronous waiters on one partition, run by one timer thread in virtual time.
 * At a reset whose window holds them all, every one is granted within {@code maxWait}, and each
 * is woken a few times, not once per older caller, even when the timer takes time over each
 * wake-up (a loaded machine). In the line of a window of known quota that serves them over many
 * windows, each, woken for a later window's units, counts the callers ahead of it in a few steps
 * per decision however long the line, not a step per older caller (the work is counted, not
 * timed).
 */
@Timeout(300)
class ManyWaitersTest {
  private static final URI API = URI.create("https://api.example.com/items");
  private static final RequestInfo GET = RequestInfo.get(API);
  private static final long SECOND = 1_000_000_000L;

  /**
   * One thread in virtual time running the timer's wake-ups and the callbacks in the order they
   * fall due, each task taking {@code costNanos} of the clock: with a cost, a timer that falls
   * behind when thousands fall due together. Callbacks run {@code callbackNanos} after they are
   * raised.
   */
  private static final class TimerThread implements Scheduler, Executor {
    private record Task(long due, long seq, FutureTask<?> run) {}

    final VirtualClock clock;
    final long costNanos;
    final long callbackNanos;
    final AtomicLong wakeUps = new AtomicLong();
    private final PriorityQueue<Task> tasks = new PriorityQueue<>(
        (a, b) -> a.due != b.due ? Long.compare(a.due, b.due) : Long.compare(a.seq, b.seq));
    private long seq;

    TimerThread(VirtualClock clock, long costNanos, long callbackNanos) {
      this.clock = clock;
      this.costNanos = costNanos;
      this.callbackNanos = callbackNanos;
    }

    @Override
    public void sleep(Duration delay) {
      throw new UnsupportedOperationException("asynchronous waiters only");
    }

    @Override
    public Future<?> schedule(Runnable task, Duration delay) {
      wakeUps.incrementAndGet();
      FutureTask<?> f = new FutureTask<>(task, null);
      tasks.add(new Task(clock.read() + delay.toNanos(), seq++, f));
      return f;
    }

    @Override
    public void execute(Runnable command) {
      tasks.add(new Task(clock.read() + callbackNanos, seq++, new FutureTask<>(command, null)));
    }

    /** Runs the tasks due until {@code until}, or none are left. */
    void runUntil(long until) {
      Task t;
      while ((t = tasks.peek()) != null && t.due <= until) {
        tasks.poll();
        if (t.run.isCancelled()) {
          continue;
        }
        long now = clock.read();
        if (t.due > now) {
          clock.advance(Duration.ofNanos(t.due - now));
        }
        t.run.run();
        clock.advance(Duration.ofNanos(costNanos));
      }
    }
  }

  /** A response advertising {@code "default";q=quota;w=window} and {@code r}, {@code t}. */
  private static RateLimitSignal limit(int status, long quota, long windowSeconds,
      long remaining, long resetSeconds) {
    return new RateLimitSignal(status,
        List.of(new QuotaPolicy("default", quota, QuotaUnit.REQUESTS,
            Optional.of(Duration.ofSeconds(windowSeconds)), Optional.empty(), "ietf")),
        List.of(new QuotaLimit("default", remaining, Optional.of(Duration.ofSeconds(resetSeconds)),
            Optional.empty(), "ietf")),
        Optional.empty(), Optional.empty(), Optional.empty(), List.of(), List.of("ietf"),
        List.of(), status == 429);
  }

  private record ResetOutcome(long granted, long refused, long longestNanos, long wakeUps) {}

  private static ResetOutcome runAtAReset(int waiters, long quota, long costNanos) throws Exception {
    VirtualClock clock = VirtualClock.create();
    TimerThread thread = new TimerThread(clock, costNanos, 100_000);
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(thread)
        .executor(thread).jitterSeed(5).maxWait(Duration.ofSeconds(3)).build();
    long windowEnd = clock.read() + 2_000_000_000L;
    pacer.acquire(GET).complete(limit(200, quota, 10, 0, 2));
    AtomicLong used = new AtomicLong();
    AtomicLong granted = new AtomicLong();
    AtomicLong refused = new AtomicLong();
    AtomicLong longest = new AtomicLong();
    for (int i = 0; i < waiters; i++) {
      long start = clock.read();
      CompletableFuture<Permit> future = pacer.acquireAsync(GET);
      future.whenComplete((permit, e) -> {
        long now = clock.read();
        longest.accumulateAndGet(now - start, Math::max);
        if (e != null) {
          refused.incrementAndGet();
          return;
        }
        granted.incrementAndGet();
        // The server: spent until its window ends, then a fresh window of the quota.
        long left = now < windowEnd ? 0 : quota - used.incrementAndGet();
        long reset = now < windowEnd ? windowEnd - now : windowEnd + 10_000_000_000L - now;
        permit.complete(limit(left < 0 ? 429 : 200, quota, 10, Math.max(0, left),
            Math.max(1, (reset + 999_999_999L) / 1_000_000_000L)));
      });
    }
    thread.runUntil(clock.read() + 20_000_000_000L);
    return new ResetOutcome(granted.get(), refused.get(), longest.get(), thread.wakeUps.get());
  }

  @Test
  void aWindowThatFitsThemAllGrantsEveryWaiterWithinMaxWaitWakingEachOnce() throws Exception {
    // Failed before: every waiter but the two probes was woken at the reset only to be told to
    // look again once the probes had answered (63,998 wake-ups for 32,000 waiters), a whole pass
    // of the timer that granted nothing; with 15 us a wake-up, 295 were refused, the longest
    // wait 3.44 s for a 3 s maxWait.
    int waiters = 32_000;
    ResetOutcome o = runAtAReset(waiters, 100_000, 15_000);
    System.out.printf("%d waiters, 15 us a task: granted %d, refused %d, longest %.3f s,"
        + " wake-ups %d%n", waiters, o.granted, o.refused, o.longestNanos / 1e9, o.wakeUps);
    assertThat(o.wakeUps).as("wake-ups asked of the timer for %d waiters", waiters)
        .isLessThanOrEqualTo(waiters + waiters / 10);
    assertThat(o.granted).as("the window at the reset holds every waiter").isEqualTo(waiters);
    assertThat(o.longestNanos).as("the longest wait").isLessThanOrEqualTo(3_050_000_000L);
  }

  private record LineOutcome(long granted, long refused, long throttled, long counts, long steps,
      long lineSize) {}

  /**
   * {@code waiters} callers at once against a fixed window of {@code quota} per second spent
   * until 1 s from now, with a {@code maxWait} that lets most of them be served.
   */
  private static LineOutcome runInLine(int waiters, long quota, Duration maxWait) throws Exception {
    VirtualClock clock = VirtualClock.create();
    TimerThread thread = new TimerThread(clock, 0, 0);
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(thread)
        .executor(thread).jitterSeed(5).maxWait(maxWait).build();
    long start = clock.read();
    PermitImpl first = (PermitImpl) pacer.acquire(GET);
    first.complete(limit(200, quota, 1, 0, 1));
    WaitingLine line = first.base.line;
    AtomicLong granted = new AtomicLong();
    AtomicLong refused = new AtomicLong();
    AtomicLong throttled = new AtomicLong();
    long[] usedIn = new long[1024];
    for (int i = 0; i < waiters; i++) {
      CompletableFuture<Permit> future = pacer.acquireAsync(GET);
      future.whenComplete((permit, e) -> {
        if (e != null) {
          refused.incrementAndGet();
          return;
        }
        granted.incrementAndGet();
        // The server: windows of a second from start + 1 s (the first, before it, spent).
        long since = clock.read() - start;
        int w = (int) (since / SECOND);
        long left = w == 0 ? -1 : quota - ++usedIn[w];
        if (left < 0) {
          throttled.incrementAndGet();
        }
        permit.complete(limit(left < 0 ? 429 : 200, quota, 1, Math.max(0, left), 1));
      });
    }
    long most = line.size();
    thread.runUntil(clock.read() + maxWait.toNanos() + 5 * SECOND);
    return new LineOutcome(granted.get(), refused.get(), throttled.get(), line.olderCounts,
        line.olderSteps, most);
  }

  @Test
  void countingTheCallersAheadCostsAFewStepsPerDecisionHoweverLongTheLine() throws Exception {
    // Failed before: the count walked every older caller in line waiting for the policy, up to
    // the count that would refuse it: 8,000 waiters at 500 a second took 2,279 steps a count
    // (155 million in all), 83 for 1,000 waiters; now 16 and 4, the same waiters all granted.
    LineOutcome small = runInLine(1_000, 500, Duration.ofSeconds(12));
    LineOutcome large = runInLine(8_000, 500, Duration.ofSeconds(20));
    for (LineOutcome o : List.of(small, large)) {
      System.out.printf("line of %d: granted %d, refused %d, throttled %d; %d counts, %d steps"
          + " (%.1f a count)%n", o.lineSize, o.granted, o.refused, o.throttled, o.counts, o.steps,
          o.counts == 0 ? 0.0 : (double) o.steps / o.counts);
    }
    assertThat(large.counts).as("callers woken for a later window counted the line ahead")
        .isGreaterThan(1_000);
    assertThat(large.throttled).as("429s drawn").isZero();
    assertThat((double) large.steps / large.counts).as("steps per count, a line of 8,000")
        .isLessThanOrEqualTo(64);
  }

  @Test
  void rankedTicketsCountTheTicketsBelowAsASortedSetDoes() {
    SplittableRandom random = new SplittableRandom(11);
    RankedTickets ranked = new RankedTickets();
    TreeSet<Long> sorted = new TreeSet<>();
    for (int i = 0; i < 20_000; i++) {
      long ticket = random.nextLong(5_000);
      if (sorted.contains(ticket)) {
        sorted.remove(ticket);
        ranked.remove(ticket);
      } else {
        sorted.add(ticket);
        ranked.add(ticket);
      }
      long probe = random.nextLong(5_100);
      assertThat(ranked.below(probe)).isEqualTo(sorted.headSet(probe).size());
      assertThat(ranked.size()).isEqualTo(sorted.size());
    }
    ranked.remove(99_999); // not in the set: nothing changes
    assertThat(ranked.size()).isEqualTo(sorted.size());
  }
}
