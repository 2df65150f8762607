package dev.headway.pacer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
import dev.headway.Permit;
import dev.headway.RequestInfo;
import dev.headway.Scheduler;
import dev.headway.Ticker;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Thousands of asynchronous waiters on one spent partition, due at the same instants (the reset,
 * then once the new window's probes may have answered), with a clock that moves while the pacer
 * decides, as a real one does: each decision takes its own time. The waiters due at one instant
 * are woken by one task of the scheduler, in the order they came, not each by its own task
 * (whose due time would carry its own decision's duration: on a real timer some younger waiters
 * then ran before older ones and were told to look again).
 */
@Timeout(120)
class WaitersWokenTogetherTest {
  static final RequestInfo GET = RequestInfo.get(URI.create("https://api.example.com/items"));

  /** A clock that moves 1-20 us at each reading (seeded), and a scheduler in its time. */
  private static final class MovingClock implements Ticker, Scheduler {
    private record Task(long due, long seq, FutureTask<?> run) {}

    private final SplittableRandom random = new SplittableRandom(3);
    private final PriorityQueue<Task> tasks = new PriorityQueue<>(
        (a, b) -> a.due != b.due ? Long.compare(a.due, b.due) : Long.compare(a.seq, b.seq));
    private long nanos = 1_000_000_000L;
    private long seq;
    long scheduled;

    @Override
    public long read() {
      nanos += 1_000 + random.nextLong(19_000);
      return nanos;
    }

    @Override
    public void sleep(Duration delay) {
      throw new UnsupportedOperationException("asynchronous waiters only");
    }

    @Override
    public Future<?> schedule(Runnable task, Duration delay) {
      scheduled++;
      FutureTask<?> f = new FutureTask<>(task, null);
      tasks.add(new Task(nanos + delay.toNanos(), seq++, f));
      return f;
    }

    void runUntil(long until) {
      Task t;
      while ((t = tasks.peek()) != null && t.due <= until) {
        tasks.poll();
        if (t.due > nanos) {
          nanos = t.due;
        }
        t.run.run();
      }
    }
  }

  @Test
  void waitersDueAtOneInstantAreWokenByOneTaskInTheOrderTheyCame() throws Exception {
    // Failed before: 4,000 waiters asked the scheduler for 4,000 wake-ups, one each (on a real
    // timer, 32,000 of them cost its heap a quarter of its work); now 2, one per instant.
    MovingClock clock = new MovingClock();
    Pacer pacer = Pacer.builder().ticker(clock).scheduler(clock).executor(Runnable::run)
        .jitterSeed(5).maxWait(Duration.ofSeconds(3)).build();
    long quota = 100_000;
    pacer.acquire(GET).complete(Signals.limit(200, quota, 10, 0, 2));
    long windowEnd = clock.read() + 2_000_000_000L;
    int waiters = 4_000;
    AtomicLong used = new AtomicLong();
    List<Integer> granted = new ArrayList<>();
    AtomicLong refused = new AtomicLong();
    for (int i = 0; i < waiters; i++) {
      int index = i;
      CompletableFuture<Permit> future = pacer.acquireAsync(GET);
      future.whenComplete((permit, e) -> {
        if (e != null) {
          refused.incrementAndGet();
          return;
        }
        granted.add(index);
        long now = clock.nanos;
        long left = now < windowEnd ? 0 : quota - used.incrementAndGet();
        permit.complete(Signals.limit(left < 0 ? 429 : 200, quota, 10, Math.max(0, left), 8));
      });
    }
    long asked = clock.scheduled;
    clock.runUntil(windowEnd + 10_000_000_000L);
    System.out.printf("%d waiters: %d granted, %d refused; wake-ups asked %d before the reset,"
        + " %d in all%n", waiters, granted.size(), refused.get(), asked, clock.scheduled);
    assertThat(granted).as("every waiter granted, in the order it came").hasSize(waiters)
        .isSorted();
    assertThat(clock.scheduled).as("wake-ups asked of the scheduler for %d waiters", waiters)
        .isLessThanOrEqualTo(waiters / 10);
  }
}
