package dev.headway.internal.pacer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.ClientPolicy;
import dev.headway.Pacer;
import dev.headway.Permit;
import dev.headway.QuotaUnit;
import dev.headway.RequestInfo;
import dev.headway.Scheduler;
import dev.headway.Ticker;
import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link Retiming} moves a waiter's time earlier and {@link AsyncAcquire#sooner} schedules a
 * second wake-up, cancelling the first with {@code cancel(false)}, which does not stop one
 * already running. {@link Scheduler#schedule} runs tasks "on a thread of the scheduler's
 * choosing": with a scheduler of more than one thread the two wake-ups run at once, both find the
 * permit due and both hand it out; the loser's {@code handOut} releases the permit the winner
 * just gave the caller, whose request is then sent on a unit the pacer no longer counts.
 */
@Timeout(30)
class TwoWakeUpsTest {
  static final RequestInfo GET = RequestInfo.get(URI.create("https://api.example.com/items"));

  @Test
  void twoWakeUpsRunningAtOnceDoNotReleaseThePermitHandedOut() throws Exception {
    VirtualClock clock = VirtualClock.create();
    List<Runnable> tasks = new ArrayList<>();
    // A scheduler whose tasks the test runs, on the threads it chooses.
    Scheduler scheduler = new Scheduler() {
      @Override
      public void sleep(Duration delay) throws InterruptedException {
        clock.sleep(delay);
      }

      @Override
      public Future<?> schedule(Runnable task, Duration delay) {
        synchronized (tasks) {
          tasks.add(task);
        }
        return new CompletableFuture<Void>(); // cancel(false) cannot stop a task running
      }
    };
    CountDownLatch firstReading = new CountDownLatch(1);
    CountDownLatch otherDone = new CountDownLatch(1);
    Thread[] blocked = new Thread[1];
    Ticker ticker = () -> {
      if (Thread.currentThread() == blocked[0] && firstReading.getCount() > 0) {
        firstReading.countDown();
        try {
          otherDone.await(10, TimeUnit.SECONDS); // the first wake-up is inside run()
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      return clock.read();
    };
    Pacer pacer = Pacer.builder().ticker(ticker).wallClock(clock).scheduler(scheduler)
        .executor(Runnable::run).maxJitter(Duration.ZERO)
        .declare(ClientPolicy.tokenBucket("tb", 1, Duration.ofSeconds(1))).build();

    Permit first = pacer.acquireAsync(GET).join();
    CompletableFuture<Permit> second = pacer.acquireAsync(GET);
    assertThat(second).isNotDone();
    AsyncAcquire waiter = (AsyncAcquire) second;
    Runnable wakeUp;
    synchronized (tasks) {
      assertThat(tasks).hasSize(1);
      wakeUp = tasks.remove(0);
    }
    clock.advance(Duration.ofSeconds(2)); // its time has come

    // The first wake-up runs on a scheduler thread and is held inside run() ...
    Thread t1 = new Thread(wakeUp);
    blocked[0] = t1;
    t1.start();
    assertThat(firstReading.await(10, TimeUnit.SECONDS)).isTrue();
    // ... while an answer moves the time earlier (as Retiming does) and the second wake-up runs.
    waiter.sooner();
    Runnable again;
    synchronized (tasks) {
      assertThat(tasks).hasSize(1);
      again = tasks.remove(0);
    }
    again.run();
    assertThat(second).isCompleted();
    PermitImpl handedOut = (PermitImpl) second.join();
    otherDone.countDown();
    t1.join(10_000);

    // The caller holds the permit and has not sent yet: it must still be counted.
    assertThat(handedOut.isDone()).as("the permit handed out was released behind the caller")
        .isFalse();
    synchronized (handedOut.base) {
      assertThat(handedOut.base.inFlight.units(QuotaUnit.REQUESTS)).as("in flight").isEqualTo(2);
    }
    first.release();
    handedOut.release();
    pacer.close();
  }
}
