package dev.headway.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
import dev.headway.RateLimitSignal;
import dev.headway.store.InMemoryQuotaStore;
import dev.headway.testing.VirtualClock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The first 429 of a fleet at first contact with a server that says nothing of its limits holds
 * the whole fleet, as every later one does: 50 instances of 4 closed-loop callers against a
 * bucket of 10 that gives one back every 600 ms (100 a minute), 50 ms away, the store 1 ms away.
 */
@Timeout(300)
class FleetFirstHoldTest {
  private static final long ROUND_TRIP_MS = 50;
  private static final long STORE_MS = 1;

  private final VirtualClock clock = VirtualClock.create();
  private final InMemoryQuotaStore store = InMemoryQuotaStore.builder().clock(clock)
      .roundTrip(Duration.ofMillis(STORE_MS), clock).build();

  /**
   * After the first 429's answer came back (its instance told the store the hold at once), no
   * request of the fleet reaches the server until that hold ends. Before, an instance waiting
   * its turn under the fleet's first bound sent from the unit the store had lent it before the
   * hold: 50 instances drew 44 429s in their first second, 37 of them to requests sent after
   * the first 429 was known.
   */
  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  void theFirst429HoldsTheFleet(boolean retryAfter) {
    Recorder server = new Recorder(new SilentBucket(clock, 10, Duration.ofMillis(600),
        retryAfter));
    List<Pacer> pacers = SilentBucket.pacers(clock, store, 50, true);
    SilentBucket.drive(clock, server::handle, pacers, 4, 5, ROUND_TRIP_MS);
    assertThat(server.first429Nanos).as("the bucket ran dry").isPositive();
    // Its answer is back half a round trip after the server refused it; the store knows the
    // hold a store round trip later; a request sent then reaches the server half a round trip
    // later again.
    long known = server.first429Nanos + Duration.ofMillis(ROUND_TRIP_MS + 2 * STORE_MS + 1)
        .toNanos();
    long holdEnds = server.first429Nanos + Duration.ofMillis(ROUND_TRIP_MS / 2).toNanos()
        + Duration.ofSeconds(1).toNanos();
    assertThat(server.between(known, holdEnds))
        .as("requests reaching the server after the first 429 was known, before its hold ended"
            + " (429s in the first second: %d)", server.throttledWithin(1))
        .isZero();
  }

  /**
   * What a fleet of 50 pays to discover that bucket, against what one instance of the same 4
   * callers pays: the 429s within 2 s of the first. One instance: 4. Before, 50 instances: 52
   * with {@code Retry-After}, 55 with bare 429s (every instance waiting its turn under the
   * fleet's first bound sent into the spent bucket); now 13 and 11.
   */
  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  void aFleetOfFiftyPaysAboutWhatOneInstancePays(boolean retryAfter) {
    SilentBucket one = burst(1, retryAfter);
    SilentBucket fleet = burst(50, retryAfter);
    assertThat(fleet.firstBurst).as("429s of 50 instances when the bucket first ran dry, against"
        + " %d of one", one.firstBurst).isLessThanOrEqualTo(4 * one.firstBurst);
  }

  /** Runs {@code n} instances of 4 callers sharing a store for 10 s against a bucket of 10. */
  private static SilentBucket burst(int n, boolean retryAfter) {
    VirtualClock c = VirtualClock.create();
    InMemoryQuotaStore st = InMemoryQuotaStore.builder().clock(c)
        .roundTrip(Duration.ofMillis(STORE_MS), c).build();
    SilentBucket bucket = new SilentBucket(c, 10, Duration.ofMillis(600), retryAfter);
    SilentBucket.drive(c, bucket::handle, SilentBucket.pacers(c, st, n, true), 4, 10,
        ROUND_TRIP_MS);
    return bucket;
  }

  /** Records when each request reached the server and what it answered. */
  private final class Recorder {
    private final SilentBucket bucket;
    private final java.util.ArrayList<long[]> log = new java.util.ArrayList<>();
    long first429Nanos = -1;

    Recorder(SilentBucket bucket) {
      this.bucket = bucket;
    }

    RateLimitSignal handle() {
      RateLimitSignal s = bucket.handle();
      long now = clock.read();
      log.add(new long[] {now, s.status()});
      if (s.status() == 429 && first429Nanos < 0) {
        first429Nanos = now;
      }
      return s;
    }

    long between(long from, long to) {
      return log.stream().filter(e -> e[0] > from && e[0] < to).count();
    }

    long throttledWithin(long seconds) {
      return log.stream().filter(e -> e[1] == 429
          && e[0] - first429Nanos < Duration.ofSeconds(seconds).toNanos()).count();
    }
  }
}
