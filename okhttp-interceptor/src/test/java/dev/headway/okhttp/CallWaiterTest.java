package dev.headway.okhttp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The 50 ms cancellation promise, checked without a clock: the waiter never blocks longer than
 * its poll interval, and looks at the call's flag between any two blocks.
 */
class CallWaiterTest {
  /** The promise: a cancelled call stops waiting within 50 ms. */
  private static final long CANCEL_PROMISE_MILLIS = 50;

  /** Records each poll's timeout, and lets it time out at once (as if the interval passed). */
  private static final class CountingBlocking implements CallWaiter.Blocking {
    final List<Long> timeouts = new CopyOnWriteArrayList<>();

    @Override
    public <T> T get(CompletableFuture<T> future, long millis) throws TimeoutException {
      timeouts.add(millis);
      throw new TimeoutException();
    }
  }

  @Test
  void aCancelledCallStopsWaitingAtTheNextPollAndNoPollIsLongerThanTheInterval() {
    AtomicInteger checks = new AtomicInteger();
    CountingBlocking blocking = new CountingBlocking();
    // Cancelled while the third poll blocks: the fourth look at the flag sees it.
    CallWaiter waiter = new CallWaiter(() -> checks.incrementAndGet() > 3, blocking);
    CompletableFuture<String> never = new CompletableFuture<>();

    assertThatThrownBy(() -> waiter.await(never, value -> { }))
        .isInstanceOf(IOException.class).hasMessage("Canceled");

    assertThat(blocking.timeouts).as("polls before the cancel was seen").hasSize(3);
    assertThat(blocking.timeouts).allSatisfy(millis -> assertThat(millis)
        .isEqualTo(CallWaiter.POLL_MILLIS).isLessThan(CANCEL_PROMISE_MILLIS));
    assertThat(never).as("the abandoned wait is cancelled").isCancelled();
  }

  @Test
  void aValueThatArrivesAfterTheCancelIsHandedToDiscard() {
    CompletableFuture<String> future = new CompletableFuture<>();
    List<String> discarded = new CopyOnWriteArrayList<>();
    AtomicInteger checks = new AtomicInteger();
    CallWaiter waiter = new CallWaiter(() -> checks.incrementAndGet() > 1,
        new CallWaiter.Blocking() {
          @Override
          public <T> T get(CompletableFuture<T> f, long millis) throws TimeoutException {
            future.complete("permit"); // completes during the last poll, which times out
            throw new TimeoutException();
          }
        });

    assertThatThrownBy(() -> waiter.await(future, discarded::add)).hasMessage("Canceled");

    assertThat(discarded).containsExactly("permit");
  }
}
