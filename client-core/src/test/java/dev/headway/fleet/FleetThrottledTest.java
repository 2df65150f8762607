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
import dev.headway.store.QuotaKey;
import dev.headway.store.RefillRate;
import dev.headway.store.SharedQuota;
import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What a fleet sharing one quota through a store (1 ms round trip, virtual time) makes of a
 * request the server refused: its units go back to the fleet, and the refill rate the fleet
 * shares slows down.
 */
@Timeout(60)
class FleetThrottledTest {
  static final RequestInfo GET = RequestInfo.get(URI.create("https://api.example.com/items"));
  static final QuotaKey KEY = new QuotaKey("https://api.example.com:443", "requests");

  private final VirtualClock clock = VirtualClock.create();
  private final InMemoryQuotaStore store = InMemoryQuotaStore.builder().clock(clock)
      .roundTrip(Duration.ofMillis(1), clock).build();

  private Pacer pacer(String name) {
    return Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .jitterSeed(name.hashCode()).store(store.instance(name)).build();
  }

  /** Acquires within {@code maxWait}, stepping the clock 1 ms at a time until answered. */
  private Permit acquire(Pacer pacer, Duration maxWait) {
    CompletableFuture<Permit> call = pacer.acquireAsync(GET, maxWait);
    for (long i = 0; i <= maxWait.toMillis() && !call.isDone(); i++) {
      clock.advance(Duration.ofMillis(1));
    }
    return call.join();
  }

  /** A response of a server allowing 100 requests per minute. */
  private static RateLimitSignal answer(int status, Optional<Long> remaining, long resetSeconds,
      Optional<Duration> retryAfter) {
    List<QuotaPolicy> policies = remaining.isEmpty() ? List.of()
        : List.of(new QuotaPolicy("default", 100, QuotaUnit.REQUESTS,
            Optional.of(Duration.ofSeconds(60)), Optional.empty(), "ietf"));
    List<QuotaLimit> limits = remaining.isEmpty() ? List.of()
        : List.of(new QuotaLimit("default", remaining.get(),
            Optional.of(Duration.ofSeconds(resetSeconds)), Optional.empty(), "ietf"));
    return new RateLimitSignal(status, policies, limits, retryAfter, Optional.empty(),
        Optional.empty(), List.of(), List.of("ietf"), List.of(), status == 429);
  }

  private RefillRate rate() {
    CompletableFuture<SharedQuota> read = store.read(KEY).toCompletableFuture();
    clock.advance(Duration.ofMillis(1)); // the store's round trip
    assertThat(read).isCompleted();
    return read.join().refillRate().orElseThrow();
  }

  /**
   * The server refused a request for a reason of its own, with no count: it did not count it, so
   * the unit it took from the fleet's last one is the fleet's again. Kept taken, the fleet would
   * believe itself spent until the reset, and no count that says otherwise would come.
   */
  @Test
  void aThrottledRequestsUnitGoesBackToTheFleet() {
    Pacer first = pacer("p0");
    first.tryAcquire(GET).orElseThrow()
        .complete(answer(200, Optional.of(1L), 60, Optional.empty())); // 1 left
    clock.advance(Duration.ofMillis(10));
    Permit refused = acquire(pacer("p1"), Duration.ofSeconds(5)); // once p0's lease is back
    refused.complete(answer(429, Optional.empty(), 0, Optional.of(Duration.ofSeconds(1))));
    clock.advance(Duration.ofMillis(10));
    List<CompletableFuture<Permit>> calls = new ArrayList<>();
    List<Pacer> others = List.of(pacer("p2"), pacer("p3"));
    for (Pacer p : others) {
      for (int j = 0; j < 2; j++) {
        calls.add(p.acquireAsync(GET, Duration.ofSeconds(5)));
      }
    }
    clock.advance(Duration.ofSeconds(6));
    assertThat(calls).allSatisfy(c -> assertThat(c).isDone());
    assertThat(calls.stream().filter(c -> !c.isCompletedExceptionally()).count())
        .as("the last unit, given back by the refused request, is sent once").isEqualTo(1);
  }

  /**
   * A pacer paced at a token bucket's refill rate shares it (100 per 60 s); the server's 429
   * says the fleet goes too fast: the shared rate slows, so every instance refills the count
   * slower. Before, the first 429's slowdown (1/64) was exactly the change the rate was told
   * again for, not more, and the store kept the rate the fleet overshot.
   */
  @Test
  void theFleetsSharedRateSlowsAfterTheFleets429() {
    Pacer p = pacer("p0");
    p.tryAcquire(GET).orElseThrow().complete(answer(200, Optional.of(5L), 60, Optional.empty()));
    clock.advance(Duration.ofSeconds(1));
    // 5 left again a second later: the server gave a unit back before its reset (it refills).
    acquire(p, Duration.ofSeconds(1)).complete(answer(200, Optional.of(5L), 59, Optional.empty()));
    clock.advance(Duration.ofMillis(100));
    acquire(p, Duration.ofSeconds(1)).complete(answer(200, Optional.of(4L), 59, Optional.empty()));
    clock.advance(Duration.ofMillis(10));
    RefillRate shared = rate();
    assertThat(shared.units()).isEqualTo(100);
    assertThat(shared.period()).as("1/16 below the edge: a count's instant is before the server's")
        .isEqualTo(Duration.ofNanos(63_750_000_000L));

    acquire(p, Duration.ofSeconds(1)).complete(
        answer(429, Optional.of(0L), 59, Optional.of(Duration.ofMillis(600))));
    clock.advance(Duration.ofSeconds(2));
    acquire(p, Duration.ofSeconds(5)).complete(answer(200, Optional.of(2L), 57, Optional.empty()));
    clock.advance(Duration.ofMillis(10));
    RefillRate slowed = rate();
    assertThat(slowed.units()).isEqualTo(100);
    assertThat(slowed.period()).as("slower after the 429").isGreaterThan(shared.period());
    assertThat(slowed.learnedAt()).isAfter(shared.learnedAt());
  }
  /**
   * After a 429 the fleet's shared rate comes back to its floor (1/16 below quota / window) as
   * successes follow, 1/256 of the slowdown per success. Before, a slowdown below 256/1024 lost
   * nothing per success (an integer 1/256 of it is 0): one 429 left the fleet's rate slower by
   * 1/16 of the window for good, 67.5 s per 100 instead of 63.75 s.
   */
  @Test
  void theFleetsSharedRateComesBackAfterSuccesses() {
    Pacer p = pacer("p0");
    p.tryAcquire(GET).orElseThrow().complete(answer(200, Optional.of(50L), 60, Optional.empty()));
    clock.advance(Duration.ofSeconds(1));
    acquire(p, Duration.ofSeconds(1)).complete(answer(200, Optional.of(50L), 59, Optional.empty()));
    clock.advance(Duration.ofMillis(100));
    acquire(p, Duration.ofSeconds(1)).complete(answer(200, Optional.of(49L), 59, Optional.empty()));
    clock.advance(Duration.ofMillis(10));
    Duration floor = rate().period();
    acquire(p, Duration.ofSeconds(1)).complete(
        answer(429, Optional.of(0L), 59, Optional.of(Duration.ofMillis(600))));
    clock.advance(Duration.ofSeconds(2));
    acquire(p, Duration.ofSeconds(5)).complete(answer(200, Optional.of(49L), 57, Optional.empty()));
    clock.advance(Duration.ofMillis(10));
    assertThat(rate().period()).as("slower after the 429").isGreaterThan(floor);
    for (int i = 0; i < 400; i++) {
      acquire(p, Duration.ofSeconds(5)).complete(
          answer(200, Optional.of(49L), 57, Optional.empty()));
    }
    clock.advance(Duration.ofMillis(10));
    assertThat(rate().period()).as("back within 1/128 of the floor after 400 successes")
        .isLessThan(floor.plus(floor.dividedBy(128)));
  }
}
