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
import dev.headway.store.Lease;
import dev.headway.store.QuotaKey;
import dev.headway.store.QuotaStore;
import dev.headway.testing.VirtualClock;
import dev.headway.testing.store.ForwardingQuotaStore;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The timers a fleet's leases schedule do not pile up: each lease schedules two (to give its
 * units back and tell what it sent before it ends), cancelled once the lease is dropped. Virtual
 * time, store round trip 1 ms, leases of one unit that last an hour.
 */
@Timeout(120)
class FleetLeaseTimersTest {
  static final RequestInfo GET = RequestInfo.get(URI.create("https://api.example.com/items"));

  private final VirtualClock clock = VirtualClock.create();

  /** A store that counts the leases it grants. */
  private static final class CountingStore extends ForwardingQuotaStore {
    private final AtomicLong leases;

    CountingStore(QuotaStore store, AtomicLong leases) {
      super(store);
      this.leases = leases;
    }

    @Override
    public CompletionStage<Lease> lease(QuotaKey key, long minUnits, long maxUnits) {
      return super.lease(key, minUnits, maxUnits).thenApply(l -> {
        if (l.granted() > 0) {
          leases.incrementAndGet();
        }
        return l;
      });
    }
  }

  /** A count of a server allowing 10 million requests an hour. */
  private static RateLimitSignal counted(long remaining) {
    return new RateLimitSignal(200,
        List.of(new QuotaPolicy("default", 10_000_000, QuotaUnit.REQUESTS,
            Optional.of(Duration.ofHours(1)), Optional.empty(), "ietf")),
        List.of(new QuotaLimit("default", remaining, Optional.of(Duration.ofMinutes(50)),
            Optional.empty(), "ietf")),
        Optional.empty(), Optional.empty(), Optional.empty(), List.of(), List.of("ietf"),
        List.of(), false);
  }

  /**
   * 10<sup>4</sup> requests, each from a lease of its own: the timers pending stay at a few
   * hundred (302 at most: the leases whose units no count has told yet), never grow with the
   * leases taken.
   * Before, every lease's two timers stayed pending until it ended, an hour later: 2 per lease,
   * 20,100 pending at the end.
   */
  @Test
  void leaseTimersStayBoundedOverTenThousandLeases() {
    AtomicLong leases = new AtomicLong();
    InMemoryQuotaStore real = InMemoryQuotaStore.builder().clock(clock)
        .roundTrip(Duration.ofMillis(1), clock).maxLeaseUnits(1)
        .maxLeaseDuration(Duration.ofHours(1)).build();
    InMemoryQuotaStore store = real.instance("pod-0");
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .store(new CountingStore(store, leases)).build();
    int maxPending = 0;
    long remaining = 10_000_000;
    for (int i = 0; i < 10_000; i++) {
      CompletableFuture<Permit> call = pacer.acquireAsync(GET, Duration.ofSeconds(5));
      while (!call.isDone()) {
        clock.advance(Duration.ofMillis(1));
      }
      clock.advance(Duration.ofMillis(1));
      call.join().complete(counted(--remaining));
      maxPending = Math.max(maxPending, clock.pendingTasks());
    }
    assertThat(leases.get()).as("leases taken").isGreaterThanOrEqualTo(5_000);
    assertThat(maxPending).as("timers pending at most, over %d leases", leases.get())
        .isLessThan(1_000);
  }
}
