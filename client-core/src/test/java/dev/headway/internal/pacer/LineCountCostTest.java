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
 * Thousands of asynchronous waiters in one partition's line for a window of known quota that
 * serves them over many windows: each, woken for a later window's units, counts the callers
 * ahead of it in line. The count costs a few steps per decision however long the line, not a
 * step per older caller (virtual time; the work is counted, not timed).
 */
@Timeout(300)
class LineCountCostTest {
  private static final RequestInfo GET =
      RequestInfo.get(URI.create("https://api.example.com/items"));
  private static final long SECOND = 1_000_000_000L;

  /** One virtual-time thread running the timer's wake-ups and the callbacks as they fall due. */
  private static final class VirtualThread implements Scheduler, Executor {
    private record Task(long due, long seq, FutureTask<?> run) {}

    final VirtualClock clock;
    private final PriorityQueue<Task> tasks = new PriorityQueue<>(
        (a, b) -> a.due != b.due ? Long.compare(a.due, b.due) : Long.compare(a.seq, b.seq));
    private long seq;

    VirtualThread(VirtualClock clock) {
      this.clock = clock;
    }

    @Override
    public void sleep(Duration delay) {
      throw new UnsupportedOperationException("asynchronous waiters only");
    }

    @Override
    public Future<?> schedule(Runnable task, Duration delay) {
      FutureTask<?> f = new FutureTask<>(task, null);
      tasks.add(new Task(clock.read() + delay.toNanos(), seq++, f));
      return f;
    }

    @Override
    public void execute(Runnable command) {
      tasks.add(new Task(clock.read(), seq++, new FutureTask<>(command, null)));
    }

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
      }
    }
  }

  private static RateLimitSignal window(int status, long quota, long remaining, long reset) {
    return new RateLimitSignal(status,
        List.of(new QuotaPolicy("default", quota, QuotaUnit.REQUESTS,
            Optional.of(Duration.ofSeconds(1)), Optional.empty(), "ietf")),
        List.of(new QuotaLimit("default", remaining, Optional.of(Duration.ofSeconds(reset)),
            Optional.empty(), "ietf")),
        Optional.empty(), Optional.empty(), Optional.empty(), List.of(), List.of("ietf"),
        List.of(), status == 429);
  }

  private record Outcome(long granted, long refused, long throttled, long counts, long steps,
      long lineSize) {}

  /**
   * {@code waiters} callers at once against a fixed window of {@code quota} per second spent
   * until 1 s from now, with a {@code maxWait} that lets most of them be served.
   */
  private static Outcome run(int waiters, long quota, Duration maxWait) throws Exception {
    VirtualClock clock = VirtualClock.create();
    VirtualThread thread = new VirtualThread(clock);
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(thread)
        .executor(thread).jitterSeed(5).maxWait(maxWait).build();
    long start = clock.read();
    PermitImpl first = (PermitImpl) pacer.acquire(GET);
    first.complete(window(200, quota, 0, 1));
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
        permit.complete(window(left < 0 ? 429 : 200, quota, Math.max(0, left), 1));
      });
    }
    long most = line.size();
    thread.runUntil(clock.read() + maxWait.toNanos() + 5 * SECOND);
    return new Outcome(granted.get(), refused.get(), throttled.get(), line.olderCounts,
        line.olderSteps, most);
  }

  @Test
  void countingTheCallersAheadCostsAFewStepsPerDecisionHoweverLongTheLine() throws Exception {
    // Failed before: the count walked every older caller in line waiting for the policy, up to
    // the count that would refuse it: 8,000 waiters at 500 a second took 2,279 steps a count
    // (155 million in all), 83 for 1,000 waiters; now 16 and 4, the same waiters all granted.
    Outcome small = run(1_000, 500, Duration.ofSeconds(12));
    Outcome large = run(8_000, 500, Duration.ofSeconds(20));
    for (Outcome o : List.of(small, large)) {
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
