package dev.headway.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
import dev.headway.store.InMemoryQuotaStore;
import dev.headway.testing.VirtualClock;
import dev.headway.testing.store.StoreFaults;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What a fleet costs its store when the quota binds: fifty instances of four callers, 61 ms from
 * a fixed window of 100 per 60 s (draft-02 headers), for 10 minutes, every caller sending its
 * next request as soon as the last one ends. Store calls are counted for the whole fleet.
 * Virtual time.
 */
@Timeout(120)
class FleetStoreCostTest {
  private static final long RUN_NANOS = 600_000_000_000L;

  private final VirtualClock clock = VirtualClock.create();

  /**
   * An instance the store refuses because the server's count of a window is spent, the key
   * having shown it gives its quota back whole at its reset, waits for that reset (the store's
   * refusal says it) without asking again. Before, each asked every 250 ms until the reset:
   * about 100 store round trips per admitted request. And the store counts it in the fleet until
   * then (it was told to wait, it did not leave): otherwise, past the heartbeat, the first
   * instances back at the reset saw themselves alone and went on their own, and drew 429s.
   */
  @Test
  void instancesRefusedByASpentWindowWaitForItsResetWithoutAskingAgain() {
    SlidingWindowLoop server = SlidingWindowLoop.fixedWindow(clock, 100, 60_000_000_000L,
        47_842_000_000L, "draft-polli", 30_500_000L, 30_500_000L, RUN_NANOS).jitter(2);
    StoreFaults calls = new StoreFaults();
    server.fleet(50, 4, calls::wrap);
    clock.advance(Duration.ofNanos(RUN_NANOS + 60_000_000_000L));
    assertThat(server.throttled).as("429s of %d admitted", server.ok).isZero();
    assertThat(server.ok).as("admitted").isGreaterThanOrEqualTo(1_090);
    assertThat((double) calls.calls() / server.ok).as("store calls per admitted request")
        .isLessThan(25);
  }

  /**
   * An instance the store shows no other instance paces as without a store: what it tells the
   * store is only for an instance that may join. Alone against the same fixed window (four
   * callers), it made 1.5 store calls per admitted request before: every count told (counts
   * were told on every response once 64 or fewer units were left), a lease about every second
   * and its unused units given back. Now at most one call a second, with its latest count.
   */
  @Test
  void aLoneInstanceMakesFewerStoreCallsThanRequestsAdmitted() {
    SlidingWindowLoop server = SlidingWindowLoop.fixedWindow(clock, 100, 60_000_000_000L,
        47_842_000_000L, "draft-polli", 30_500_000L, 30_500_000L, RUN_NANOS).jitter(2);
    StoreFaults calls = new StoreFaults();
    server.fleet(1, 4, calls::wrap);
    clock.advance(Duration.ofNanos(RUN_NANOS + 60_000_000_000L));
    System.out.printf("lone, counted: %d admitted, %d 429s, %d store calls%n", server.ok,
        server.throttled, calls.calls());
    assertThat(server.throttled).as("429s of %d admitted", server.ok).isZero();
    assertThat(server.ok).as("admitted").isGreaterThanOrEqualTo(1_090);
    assertThat((double) calls.calls() / server.ok).as("store calls per admitted request")
        .isLessThan(0.8);
  }

  /**
   * The same against a fixed window of 100 per 60 s that says nothing but a bare 429 when spent
   * (four callers, 61 ms away): before, the lone instance leased from the fleet's own budget (a
   * bucket of two units) about every admitted request.
   */
  @Test
  void aLoneInstanceOfASilentServerMakesFewerStoreCallsThanRequestsAdmitted() {
    StoreFaults calls = new StoreFaults();
    InMemoryQuotaStore store = InMemoryQuotaStore.builder().clock(clock)
        .roundTrip(Duration.ofMillis(1), clock).build();
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock).jitterSeed(1)
        .store(calls.wrap(store.instance("alone"))).build();
    SilentWindow server = new SilentWindow(clock, 100, Duration.ofSeconds(60))
        .drive(List.of(pacer), 4, 600, 61);
    System.out.printf("lone, silent: %d admitted, %d 429s, %d store calls%n", server.ok,
        server.throttled, calls.calls());
    assertThat(server.ok).as("admitted").isGreaterThanOrEqualTo(900);
    assertThat((double) calls.calls() / server.ok).as("store calls per admitted request")
        .isLessThan(0.8);
  }
}
