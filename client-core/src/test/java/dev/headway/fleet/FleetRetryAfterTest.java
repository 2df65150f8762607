package dev.headway.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
import dev.headway.Permit;
import dev.headway.RequestInfo;
import dev.headway.store.InMemoryQuotaStore;
import dev.headway.store.QuotaKey;
import dev.headway.store.SharedQuota;
import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A fleet against a server that says only {@code Retry-After} (a token bucket of 5 requests,
 * one back every 600 ms): with no count to share, the fleet keeps a budget of its own that a 429
 * empties and that refills at the rate the fleet learned. Single-threaded, virtual time (1 ms
 * steps, store round trip 1 ms).
 */
@Timeout(120)
class FleetRetryAfterTest {
  static final RequestInfo GET = RequestInfo.get(URI.create("https://api.example.com/items"));
  static final QuotaKey LEARNED = new QuotaKey("https://api.example.com:443", "learned");

  private final VirtualClock clock = VirtualClock.create();
  private final InMemoryQuotaStore store = InMemoryQuotaStore.builder().clock(clock)
      .roundTrip(Duration.ofMillis(1), clock).build();

  /** Runs {@code instances} pacers of 2 callers each for {@code seconds}; returns the server. */
  private SilentBucket run(int instances, long seconds) {
    SilentBucket server = new SilentBucket(clock, 5, Duration.ofMillis(600), true);
    List<Pacer> pacers = new ArrayList<>();
    List<CompletableFuture<Permit>> calls = new ArrayList<>();
    for (int i = 0; i < instances; i++) {
      Pacer p = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
          .jitterSeed(i).store(store.instance("pod-" + i)).build();
      pacers.add(p);
      calls.add(p.acquireAsync(GET, Duration.ofSeconds(30)));
      calls.add(p.acquireAsync(GET, Duration.ofSeconds(30)));
    }
    for (long ms = 0; ms < seconds * 1000; ms++) {
      clock.advance(Duration.ofMillis(1));
      for (int c = 0; c < calls.size(); c++) {
        CompletableFuture<Permit> call = calls.get(c);
        if (call.isDone()) {
          if (!call.isCompletedExceptionally()) {
            call.join().complete(server.handle());
          }
          calls.set(c, pacers.get(c / 2).acquireAsync(GET, Duration.ofSeconds(30)));
        }
      }
    }
    return server;
  }

  /**
   * Before, every instance paced alone at what it learned, and the end of each fleet-wide hold
   * sent them all at once: 10 instances drew a 429 for about every second request admitted.
   */
  @Test
  void tenInstancesPaceTogetherAtTheRateTheFleetLearned() {
    SilentBucket server = run(10, 300);
    double admittedPerSecond = server.ok / 300.0;
    assertThat(server.throttled).as("429s against %d admitted", server.ok)
        .isLessThanOrEqualTo(server.ok * 3 / 100 + 12);
    assertThat(admittedPerSecond).as("the bucket gives 1.67 a second").isGreaterThan(1.5);

    CompletableFuture<SharedQuota> read = store.read(LEARNED).toCompletableFuture();
    clock.advance(Duration.ofMillis(1));
    SharedQuota budget = read.join();
    assertThat(budget.refillRate()).as("the fleet's rate is in the store").isPresent();
    assertThat(budget.count()).as("the count a 429 implies").isPresent();
  }
}
