package dev.headway.pacer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
import dev.headway.Permit;
import dev.headway.RateLimitedException;
import dev.headway.RequestInfo;
import dev.headway.Scheduler;
import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code maxWait} is a bound even when the timer runs late (thousands of waiters falling due
 * together on one thread): a waiter woken past its deadline is refused, never handed a permit
 * after its budget ran out.
 */
@Timeout(30)
class LateTimerTest {
  static final RequestInfo GET = RequestInfo.get(URI.create("https://api.example.com/items"));

  /** A timer that runs its tasks only when told to: as late as the test likes. */
  private static final class LateTimer implements Scheduler {
    final List<FutureTask<?>> tasks = new ArrayList<>();

    @Override
    public void sleep(Duration delay) {
      throw new UnsupportedOperationException("asynchronous waiters only");
    }

    @Override
    public synchronized Future<?> schedule(Runnable task, Duration delay) {
      FutureTask<?> f = new FutureTask<>(task, null);
      tasks.add(f);
      return f;
    }

    void runAll() {
      List<FutureTask<?>> due;
      synchronized (this) {
        due = new ArrayList<>(tasks);
        tasks.clear();
      }
      due.forEach(FutureTask::run);
    }
  }

  @Test
  void aWaiterWokenPastItsMaxWaitIsRefusedNotHandedAPermit() throws Exception {
    // Failed before: woken 5 s after it called, with a 3 s budget, it decided again and went
    // (the probe it waited behind was past its patience): a 5 s wait for a 3 s maxWait.
    VirtualClock clock = VirtualClock.create();
    LateTimer timer = new LateTimer();
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(timer)
        .executor(Runnable::run).probes(1).maxWait(Duration.ofSeconds(3)).build();
    Permit probe = pacer.acquire(GET); // first contact: the one probe, not answered yet
    CompletableFuture<Permit> waiter = pacer.acquireAsync(GET);
    assertThat(waiter).as("waits behind the probe").isNotDone();

    clock.advance(Duration.ofSeconds(5)); // the timer is busy: nothing runs meanwhile
    timer.runAll();

    assertThat(waiter).isCompletedExceptionally();
    try {
      waiter.get();
    } catch (ExecutionException e) {
      assertThat(e.getCause()).isInstanceOf(RateLimitedException.class);
    }
    assertThat(pacer.quota(GET.uri()).inFlight()).as("nothing else in flight").isEqualTo(1);
    probe.release();
  }
}
