package dev.headway.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
import dev.headway.Permit;
import dev.headway.QuotaLimit;
import dev.headway.QuotaPolicy;
import dev.headway.QuotaUnit;
import dev.headway.RateLimitSignal;
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
 * A token bucket (100 back per 60 s) whose reset is when the bucket is full again: spent, it
 * announces a reset a minute away. An instance that never saw a count rise itself (the other
 * instances' requests, counted between two of its own, hide every unit given back) used to take
 * that count for a window spent until its reset and refuse its callers past maxWait, while the
 * store, told the refill rate by an instance that saw it, lent the units to the others. Virtual
 * time.
 */
@Timeout(30)
class FleetTokenBucketTest {
  private static final RequestInfo GET =
      RequestInfo.get(URI.create("https://api.example.com/items"));

  private final VirtualClock clock = VirtualClock.create();
  private final InMemoryQuotaStore store = InMemoryQuotaStore.builder().clock(clock)
      .roundTrip(Duration.ofMillis(1), clock).build();

  @Test
  void anInstanceThatNeverSawTheBucketRefillWaitsForItsRefillNotItsReset() {
    Pacer a = pacer("a");
    Pacer b = pacer("b");
    // Instance a sees a count rise (50 left, then 50 left after its own request): the server
    // gives units back before its reset, and a tells the store its refill rate.
    send(a, 50, 30);
    clock.advance(Duration.ofSeconds(2));
    send(a, 50, 30);
    clock.advance(Duration.ofSeconds(2));
    send(a, 49, 31);
    // Instance b has not seen it: its own request's answer says the bucket is spent, full again
    // in 60 s (the others spent it).
    send(b, 0, 60);
    clock.advance(Duration.ofMillis(100));
    CompletableFuture<Permit> next = b.acquireAsync(GET, Duration.ofSeconds(30));
    clock.advance(Duration.ofSeconds(5));
    assertThat(next).as("b's next call, a unit back in 0.6 s (not refused for a 60 s reset)")
        .isCompleted().isNotCompletedExceptionally();
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
