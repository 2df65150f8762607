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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The rule of the asynchronous waiters woken together: the waiters due at one instant are woken
 * by one task of the scheduler, in the order they asked, and a permit handed out closes the
 * batches not yet woken. What the permit's caller then schedules for one of their instants runs
 * after the waiters already in it, and a waiter that asks for that instant later runs after it:
 * at one instant, everything runs in the order it was asked for, as with one task each.
 */
class PermitHandedOutClosesWakeUpsTest {
  static final RequestInfo SPENT = RequestInfo.get(URI.create("https://spent.example.com/a"));
  static final RequestInfo LATER = RequestInfo.get(URI.create("https://later.example.com/a"));
  static final RequestInfo OPEN = RequestInfo.get(URI.create("https://open.example.com/b"));

  /** The ways a permit is handed out at once. */
  enum HandOut {
    ACQUIRE, TRY_ACQUIRE, RESERVE, ACQUIRE_ASYNC;

    Permit take(Pacer pacer) throws Exception {
      return switch (this) {
        case ACQUIRE -> pacer.acquire(OPEN);
        case TRY_ACQUIRE -> pacer.tryAcquire(OPEN).orElseThrow();
        case RESERVE -> pacer.reserve(OPEN).permit();
        case ACQUIRE_ASYNC -> pacer.acquireAsync(OPEN).getNow(null);
      };
    }
  }

  private final VirtualClock clock = VirtualClock.create();
  private final Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
      .executor(Runnable::run).jitterSeed(1).build();
  private final List<String> order = new ArrayList<>();

  /** Waits for a permit of {@code request}, noting when and in what order it was granted. */
  private void waiter(String name, RequestInfo request) {
    CompletableFuture<Permit> future = pacer.acquireAsync(request);
    assertThat(future).as("%s waits", name).isNotDone();
    future.whenComplete((permit, e) -> {
      order.add(name + (e == null ? " granted" : " refused") + " at "
          + clock.elapsed().toMillis() + " ms");
      if (permit != null) {
        permit.release();
      }
    });
  }

  /** A task of the caller's own (its request's answer, say) at {@code atMillis}. */
  private void callersTask(String name, long atMillis) {
    clock.schedule(() -> order.add(name + " at " + clock.elapsed().toMillis() + " ms"),
        Duration.ofMillis(atMillis).minus(clock.elapsed()));
  }

  @ParameterizedTest
  @EnumSource(HandOut.class)
  void aPermitHandedOutWhileABatchIsOpenRunsItsCallersTaskBetweenTheWaiters(HandOut verb)
      throws Exception {
    pacer.acquire(SPENT).complete(Signals.limit(200, 100, 10, 0, 10));
    pacer.acquire(OPEN).complete(Signals.limit(200, 1_000, 10, 999, 10));
    waiter("first waiter", SPENT); // due at the reset, 10 s

    Permit permit = verb.take(pacer); // handed out at once, with a waiter due at 10 s
    assertThat(permit).isNotNull();
    callersTask("the caller's task", 10_000);
    waiter("second waiter", SPENT); // also due at 10 s, asked after the caller's task

    clock.advance(Duration.ofSeconds(11));
    assertThat(order).containsExactly(
        "first waiter granted at 10000 ms",
        "the caller's task at 10000 ms",
        "second waiter granted at 10000 ms");
  }

  @Test
  void aWaiterHandedOutItsPermitClosesTheBatchesOfLaterInstants() throws Exception {
    pacer.acquire(SPENT).complete(Signals.limit(200, 100, 10, 0, 10));
    pacer.acquire(LATER).complete(Signals.limit(200, 100, 20, 0, 20));
    waiter("waiter at 20 s", LATER); // opens the batch of 20 s
    CompletableFuture<Permit> atTen = pacer.acquireAsync(SPENT);
    atTen.thenAccept(permit -> {
      // Granted at 10 s, by its batch's task: its caller's task and a new waiter, both at 20 s.
      callersTask("its caller's task", 20_000);
      waiter("new waiter at 20 s", LATER);
      permit.release();
    });

    clock.advance(Duration.ofSeconds(21));
    assertThat(atTen).isCompleted();
    assertThat(order).containsExactly(
        "waiter at 20 s granted at 20000 ms",
        "its caller's task at 20000 ms",
        "new waiter at 20 s granted at 20000 ms");
  }
}
