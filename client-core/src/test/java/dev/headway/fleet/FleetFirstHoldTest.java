package dev.headway.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
import dev.headway.RateLimitSignal;
import dev.headway.store.InMemoryQuotaStore;
import dev.headway.testing.VirtualClock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
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

  /**
   * That bucket answering bare 429s, 50 instances for 120 s, with the store and without. A bare
   * 429 to an instance that saw nothing admitted since the fleet's rate last changed was taken
   * for a spent server and cut nothing; with the first 429 holding the whole fleet, most
   * instances see few admitted responses of their own, and the rate another instance raised
   * (32 a second against a server giving 1.7) was never cut: the fleet was paced by its holds
   * alone, 106 admitted (27 429s) against 208 without the store (612 429s). A raise is made on
   * admitted responses, so a bare 429 after one answers it: 209 (22).
   */
  @Test
  void aBare429AnswersARaiseAnotherInstanceMade() {
    SilentBucket shared = run(50, true);
    SilentBucket alone = run(50, false);
    assertThat(shared.ok).as("admitted with the store (%d 429s) against %d without (%d 429s)",
        shared.throttled, alone.ok, alone.throttled).isGreaterThanOrEqualTo(alone.ok * 90 / 100);
    assertThat(shared.throttled).as("429s with the store")
        .isLessThanOrEqualTo(alone.throttled / 10);
  }

  /** Runs {@code n} instances of 4 callers for 120 s against that bucket (bare 429s). */
  private static SilentBucket run(int n, boolean shared) {
    VirtualClock c = VirtualClock.create();
    InMemoryQuotaStore st = InMemoryQuotaStore.builder().clock(c)
        .roundTrip(Duration.ofMillis(STORE_MS), c).build();
    SilentBucket bucket = new SilentBucket(c, 10, Duration.ofMillis(600), false);
    SilentBucket.drive(c, bucket::handle, SilentBucket.pacers(c, st, n, shared), 4, 120,
        ROUND_TRIP_MS);
    return bucket;
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
