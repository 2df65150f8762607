package dev.headway.pacer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.headway.Jitter;
import dev.headway.Pacer;
import dev.headway.PacerEvent;
import dev.headway.PacingStrategy;
import dev.headway.Permit;
import dev.headway.RequestInfo;
import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * User code (listeners, callers' chained stages, strategies, resolvers, cost functions) runs
 * where it cannot stall pacing or leave a future incomplete; a pacer can be closed.
 */
@Timeout(30)
class CloseAndCallbacksTest {
  static final URI API = URI.create("https://api.example.com/items");
  static final RequestInfo GET = RequestInfo.get(API);

  private final VirtualClock clock = VirtualClock.create();

  private Pacer.Builder virtual() {
    return Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock).jitter(Jitter.none());
  }

  @Test
  void asyncFuturesAreCompletedOnTheExecutor() throws Exception {
    List<Runnable> callbacks = new ArrayList<>();
    Pacer pacer = virtual().executor(callbacks::add).build();
    pacer.acquire(GET).complete(Signals.limit(200, 10, 60, 0, 5));
    CompletableFuture<Permit> future = pacer.acquireAsync(GET);
    clock.advance(Duration.ofSeconds(5));
    assertThat(future).as("completed by the executor, not the scheduler's thread").isNotDone();
    assertThat(callbacks).hasSize(1);
    callbacks.get(0).run();
    assertThat(future).isDone();
    future.join().release();
  }

  @Test
  void aBlockingListenerNeverStallsTheCaller() throws Exception {
    CountDownLatch unblock = new CountDownLatch(1);
    Pacer pacer = Pacer.builder().listener(event -> {
      try {
        unblock.await(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }).build();
    try {
      CompletableFuture<Void> calls = CompletableFuture.runAsync(() -> {
        try {
          for (int i = 0; i < 5; i++) {
            pacer.acquire(GET).complete(Signals.limit(200, 100, 60, 99 - i, 60));
          }
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      });
      assertThat(calls).as("five calls while every listener call blocks")
          .succeedsWithin(Duration.ofSeconds(5));
    } finally {
      unblock.countDown();
      pacer.close();
    }
  }

  @Test
  void chainedCodeNeverRunsOnTheSchedulersThreadEvenWhenTheExecutorIsFull() throws Exception {
    Pacer pacer = Pacer.builder().maxWait(Duration.ofSeconds(60)).build();
    CountDownLatch unblock = new CountDownLatch(1);
    try {
      pacer.acquire(GET).complete(Signals.limit(200, 10, 60, 0, 1)); // spent for 1 s
      ThreadPoolExecutor callbacks = (ThreadPoolExecutor) pacer.executor();
      CountDownLatch busy = new CountDownLatch(2);
      for (int i = 0; i < 2; i++) {
        callbacks.execute(() -> {
          busy.countDown();
          try {
            unblock.await(20, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        });
      }
      assertThat(busy.await(5, TimeUnit.SECONDS)).isTrue();
      while (callbacks.getQueue().remainingCapacity() > 0) {
        callbacks.execute(() -> { });
      }
      // The executor is full: its threads are blocked, its queue too.
      CompletableFuture<String> ranOn = pacer.acquireAsync(GET).thenApply(permit -> {
        permit.release();
        return Thread.currentThread().getName();
      });
      assertThat(ranOn).as("not completed while the executor is blocked")
          .failsWithin(Duration.ofSeconds(3));
      unblock.countDown();
      assertThat(ranOn.get(10, TimeUnit.SECONDS)).startsWith("headway-callbacks");
    } finally {
      unblock.countDown();
      pacer.close();
    }
  }

  @Test
  void eachCallbackThreadHasItsOwnName() throws Exception {
    Pacer pacer = Pacer.builder().build();
    try {
      CountDownLatch both = new CountDownLatch(2);
      java.util.Set<String> names = java.util.concurrent.ConcurrentHashMap.newKeySet();
      for (int i = 0; i < 2; i++) {
        pacer.executor().execute(() -> {
          names.add(Thread.currentThread().getName());
          both.countDown();
          try {
            both.await(10, TimeUnit.SECONDS); // both threads busy at once
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        });
      }
      assertThat(both.await(10, TimeUnit.SECONDS)).isTrue();
      assertThat(names).as("a thread dump tells the two callback threads apart").hasSize(2)
          .allMatch(name -> name.matches("headway-callbacks-\\d+-[12]"));
    } finally {
      pacer.close();
    }
  }

  @Test
  void throwingUserCodeNeverLeavesAFutureIncomplete() throws Exception {
    PacingStrategy throwing = (available, limit, timeToResetNanos) -> {
      throw new IllegalStateException("strategy bug");
    };
    Pacer pacer = virtual().strategy(throwing)
        .partitionKeyResolver(request -> {
          throw new IllegalStateException("resolver bug");
        })
        .cost(request -> {
          throw new IllegalStateException("cost bug");
        })
        .listener(event -> {
          throw new IllegalStateException("listener bug");
        })
        .build();
    Permit first = pacer.acquire(GET);
    Permit second = pacer.acquire(GET);
    // First contact: two probes out; the third looks again on the scheduler's thread.
    CompletableFuture<Permit> third = pacer.acquireAsync(GET);
    assertThat(third).isNotDone();
    first.complete(Signals.limit(200, 100, 60, 99, 60));
    second.complete(Signals.limit(200, 100, 60, 98, 60));
    clock.advance(Duration.ofMillis(50));
    assertThat(third).succeedsWithin(Duration.ofSeconds(1));
    assertThat(third.join().partition()).as("the origin's partition")
        .isEqualTo("https://api.example.com:443");
    assertThat(third.join().cost()).isEqualTo(1);
    third.join().release();
  }

  @Test
  void afterCloseAcquiresFailAndWaitersAreReleased() throws Exception {
    Pacer pacer = virtual().build();
    pacer.acquire(GET).complete(Signals.limit(200, 10, 60, 0, 5));
    CompletableFuture<Permit> waiting = pacer.acquireAsync(GET);
    assertThat(pacer.quota(API).policy("default").orElseThrow().inFlight()).isEqualTo(1);
    pacer.close();
    assertThat(waiting).failsWithin(Duration.ofSeconds(1))
        .withThrowableOfType(ExecutionException.class)
        .withCauseInstanceOf(IllegalStateException.class)
        .withMessageContaining("closed while this request waited");
    assertThat(pacer.quota(API).policy("default").orElseThrow().inFlight()).isZero();
    assertThatThrownBy(() -> pacer.acquire(GET)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
    assertThatThrownBy(() -> pacer.tryAcquire(GET)).isInstanceOf(IllegalStateException.class);
    assertThat(pacer.acquireAsync(GET)).isCompletedExceptionally();
    pacer.close(); // idempotent
  }

  @Test
  void closeWakesABlockedCallerAndStopsThePacersThreads() throws Exception {
    Pacer pacer = Pacer.builder().maxWait(Duration.ofSeconds(60)).build();
    pacer.acquire(GET).complete(Signals.limit(200, 10, 60, 0, 50));
    AtomicReference<Throwable> thrown = new AtomicReference<>();
    Thread caller = new Thread(() -> {
      try {
        pacer.acquire(GET).release();
      } catch (Throwable e) {
        thrown.set(e);
      }
    });
    caller.start();
    // Wait (really) until the caller is parked in its 50-second wait.
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (caller.getState() != Thread.State.TIMED_WAITING && System.nanoTime() < until) {
      Thread.onSpinWait();
    }
    pacer.close();
    caller.join(5_000);
    assertThat(caller.isAlive()).as("released at once").isFalse();
    assertThat(thrown.get()).isInstanceOf(IllegalStateException.class);
    ThreadPoolExecutor callbacks = (ThreadPoolExecutor) pacer.executor();
    assertThat(callbacks.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void eventsStillReachListenersThroughTheExecutor() throws Exception {
    List<PacerEvent> events = new ArrayList<>();
    Pacer pacer = virtual().listener(events::add).build();
    pacer.acquire(GET).complete(Signals.limit(200, 10, 60, 9, 60));
    assertThat(events).hasAtLeastOneElementOfType(PacerEvent.QuotaUpdated.class);
  }
}
