package dev.headway.pacer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
import dev.headway.Permit;
import dev.headway.RequestInfo;
import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A quota of 1 per 5 s, spent; three calls wait for the reset. Cancelling the first two gives
 * their slots back: the third goes at the first reset, and a call started after the cancel
 * waits behind it.
 */
@Timeout(30)
class CancelledWaiterSlotTest {
  static final RequestInfo GET = RequestInfo.get(URI.create("https://api.example.com/items"));

  private final VirtualClock clock = VirtualClock.create();

  @Test
  void theNextWaiterGoesAtTheFirstResetAfterTheOnesAheadAreCancelled() throws Exception {
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .executor(Runnable::run).build();
    pacer.acquire(GET).complete(Signals.limit(200, 1, 5, 0, 5));
    List<CompletableFuture<Permit>> waiters = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      waiters.add(pacer.acquireAsync(GET));
    }
    clock.advance(Duration.ofMillis(500));
    assertThat(waiters).noneMatch(CompletableFuture::isDone);
    assertThat(waiters.get(0).cancel(true)).isTrue();
    assertThat(waiters.get(1).cancel(true)).isTrue();
    CompletableFuture<Permit> fourth = pacer.acquireAsync(GET);
    long[] thirdAt = {-1};
    long[] fourthAt = {-1};
    waiters.get(2).thenAccept(p -> {
      thirdAt[0] = clock.elapsed().toMillis();
      p.complete(Signals.limit(200, 1, 5, 0, 5));
    });
    fourth.thenAccept(p -> {
      fourthAt[0] = clock.elapsed().toMillis();
      p.complete(Signals.limit(200, 1, 5, 0, 5));
    });
    for (int i = 0; i < 200 && (fourthAt[0] < 0 || thirdAt[0] < 0)
        && clock.advanceToNextEvent(); i++) {
      // the timer runs the waiters as their times come
    }
    assertThat(thirdAt[0]).as("third waiter, ms").isBetween(5_000L, 5_600L);
    assertThat(fourthAt[0]).as("call started after the cancel, ms").isGreaterThan(thirdAt[0])
        .isBetween(10_000L, 10_600L);
  }
}
