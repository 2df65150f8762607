package dev.headway.internal.pacer;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The pacer's own callback executor runs what the timer raises (the completions of waiting
 * futures) in the order raised, also past its queue: the callers the timer granted first, whose
 * deadlines come first, are not put behind those granted after them.
 */
@Timeout(60)
class CallbackOrderTest {
  @Test
  void callbacksTheTimerRaisesPastTheQueueRunInTheOrderRaised() throws Exception {
    ThreadPoolExecutor executor = Callbacks.defaultExecutor("order-callbacks");
    SystemScheduler timer = new SystemScheduler("order-timer");
    CountDownLatch unblock = new CountDownLatch(1);
    try {
      // Both threads busy, the queue full but for 100 places.
      CountDownLatch busy = new CountDownLatch(Callbacks.DEFAULT_THREADS);
      for (int i = 0; i < Callbacks.DEFAULT_THREADS; i++) {
        executor.execute(() -> {
          busy.countDown();
          try {
            unblock.await(30, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        });
      }
      assertThat(busy.await(10, TimeUnit.SECONDS)).isTrue();
      while (executor.getQueue().remainingCapacity() > 100) {
        executor.execute(() -> { });
      }
      // The timer raises 300 callbacks: 100 fit in the queue, 200 do not.
      int raised = 300;
      CountDownLatch ran = new CountDownLatch(raised);
      Map<Thread, List<Integer>> orderSeen = new ConcurrentHashMap<>();
      timer.schedule(() -> {
        for (int i = 0; i < raised; i++) {
          int index = i;
          executor.execute(() -> {
            orderSeen.computeIfAbsent(Thread.currentThread(), t -> new ArrayList<>()).add(index);
            ran.countDown();
          });
        }
      }, Duration.ZERO).get(10, TimeUnit.SECONDS);
      unblock.countDown();
      assertThat(ran.await(30, TimeUnit.SECONDS)).isTrue();
      // Each thread takes the oldest callback left: what it ran, it ran in the order raised.
      // (Failed before: the threads ran the 200 past the queue first, then the 100 in it.)
      for (List<Integer> seen : orderSeen.values()) {
        assertThat(seen).as("callbacks one thread ran, by the order the timer raised them")
            .isSorted();
      }
      assertThat(orderSeen.values().stream().mapToInt(List::size).sum()).isEqualTo(raised);
    } finally {
      unblock.countDown();
      timer.shutdown();
      executor.shutdown();
    }
  }
}
