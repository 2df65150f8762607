package dev.headway.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
import dev.headway.Permit;
import dev.headway.QuotaLimit;
import dev.headway.QuotaPolicy;
import dev.headway.QuotaUnit;
import dev.headway.RateLimitSignal;
import dev.headway.RateLimitedException;
import dev.headway.RequestInfo;
import dev.headway.store.InMemoryQuotaStore;
import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A caller whose {@code maxWait} ends while its instance waits for the store's answer goes on
 * its own, paced locally, only when the store is slow: when that answer has been on its way
 * longer than the store's last answer took. A caller whose wait ends just after another caller
 * of its instance took the last unit the store lent, the store asked again a moment before, is
 * refused as a spent local count would refuse it. Before, it went on its own, paced by its own
 * count (which said the window had units left): the simulator's GCRA with draft-02 headers, 50
 * instances of 4 callers, drew four 429s so (grid seed 12409), each from a caller that had
 * waited its whole {@code maxWait} for the fleet and reached its end a tenth of a millisecond
 * after another caller's lease request went out, the store a millisecond away. Virtual time.
 */
@Timeout(30)
class FleetDeadlineTest {
  private static final RequestInfo GET =
      RequestInfo.get(URI.create("https://api.example.com/items"));

  private final VirtualClock clock = VirtualClock.create();
  private final InMemoryQuotaStore store = InMemoryQuotaStore.builder().clock(clock)
      .roundTrip(Duration.ofMillis(1), clock).build();

  @Test
  void aCallerWhoseWaitEndsAsTheStoreIsAskedAgainIsRefusedNotSentPastTheLastUnit() {
    Pacer a = pacer("a");
    Pacer b = pacer("b");
    send(a, 95, 30);
    // b's own count says 90 left: paced alone, b would send.
    send(b, 90, 30);
    // a's count, newer, is the fleet's: one unit left in this window.
    send(a, 1, 30);
    clock.advance(Duration.ofMillis(100));
    // Two callers of b: the first asks the store for a lease (1 ms away) and takes its unit;
    // the second's wait ends half a millisecond after that unit went, as b asks again.
    CompletableFuture<Permit> first = b.acquireAsync(GET, Duration.ofSeconds(30));
    clock.advance(Duration.ofNanos(500_000));
    CompletableFuture<Permit> second = b.acquireAsync(GET, Duration.ofNanos(1_000_000));
    clock.advance(Duration.ofMillis(10));
    assertThat(first).as("the first caller, lent the fleet's last unit").isCompleted()
        .isNotCompletedExceptionally();
    assertThat(second).as("the second caller, nothing left for the fleet").isDone();
    assertThat(second.handle((permit, error) -> error).join())
        .as("the second caller is refused, not sent into the spent window")
        .isInstanceOf(RateLimitedException.class);
  }

  @Test
  void aCallerWhoseWaitEndsWhileASlowStoreHasNotAnsweredGoesOnItsOwn() {
    InMemoryQuotaStore slow = InMemoryQuotaStore.builder().clock(clock)
        .roundTrip(Duration.ofMillis(40), clock).build();
    Pacer a = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .store(slow.instance("a")).build();
    Pacer b = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .store(slow.instance("b")).build();
    send(b, 90, 50);
    send(a, 80, 50);
    clock.advance(Duration.ofMillis(100));
    // b's leases are asked for 40 ms away: a caller that can wait 10 ms goes on its own, paced
    // locally (its count has units left), rather than fail for a store that is slow.
    CompletableFuture<Permit> hurried = b.acquireAsync(GET, Duration.ofMillis(10));
    clock.advance(Duration.ofMillis(20));
    assertThat(hurried).as("a caller of 10 ms, the store 40 ms away").isCompleted()
        .isNotCompletedExceptionally();
  }

  private Pacer pacer(String name) {
    return Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .store(store.instance(name)).build();
  }

  /** One request through {@code pacer}, answered 50 ms later with the count given. */
  private void send(Pacer pacer, long remaining, long resetSeconds) {
    CompletableFuture<Permit> permit = pacer.acquireAsync(GET, Duration.ofSeconds(30));
    clock.advance(Duration.ofMillis(50));
    assertThat(permit).as("permit for a request %d left", remaining).isCompleted();
    permit.join().complete(new RateLimitSignal(200,
        List.of(new QuotaPolicy("default", 100, QuotaUnit.REQUESTS,
            Optional.of(Duration.ofSeconds(60)), Optional.empty(), "ietf")),
        List.of(new QuotaLimit("default", remaining,
            Optional.of(Duration.ofSeconds(resetSeconds)), Optional.empty(), "ietf")),
        Optional.empty(), Optional.empty(), Optional.empty(), List.of(), List.of("ietf"),
        List.of(), false));
  }
}
