package dev.headway.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.store.InMemoryQuotaStore;
import dev.headway.testing.VirtualClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A fleet backing off from its own hold against a server that answers bare 429s: the hold
 * doubles only when nothing the fleet sent since the latest hold ended was admitted, judged on
 * every instance's answers. Virtual time, the store 1 ms away.
 */
@Timeout(300)
class FleetBackoffTest {

  /**
   * Ten instances of 2 callers against a server that gives one request back every 455 ms (a
   * bucket of one) and answers bare 429s, 53 ms away, for 120 s. After each fleet hold a few
   * requests go together: the first to arrive is admitted, the others are refused. Before, each
   * refused instance judged "nothing admitted since the hold" from its own answers and doubled
   * the fleet's hold (1, 2, 4, 8, 16 s) while another instance's request had been admitted: 42
   * admitted with the store (25 429s) against 105 without (122 429s). Now the store judges it on
   * the fleet's answers: 85 admitted (22 429s). The fleet's own budget, learned low at the first
   * holds, keeps it below the instances alone (a known limit).
   */
  @Test
  void aFleetHoldDoublesOnlyWhenTheFleetHadNothingAdmitted() {
    VirtualClock plainClock = VirtualClock.create();
    InMemoryQuotaStore unused = InMemoryQuotaStore.builder().clock(plainClock).build();
    SilentBucket alone = new SilentBucket(plainClock, 1, Duration.ofMillis(455), false)
        .drive(SilentBucket.pacers(plainClock, unused, 10, false), 2, 120, 53);

    VirtualClock clock = VirtualClock.create();
    InMemoryQuotaStore store = InMemoryQuotaStore.builder().clock(clock)
        .roundTrip(Duration.ofMillis(1), clock).build();
    SilentBucket shared = new SilentBucket(clock, 1, Duration.ofMillis(455), false)
        .drive(SilentBucket.pacers(clock, store, 10, true), 2, 120, 53);

    assertThat(shared.ok).as("admitted with the store (%d 429s) against %d without (%d 429s)",
        shared.throttled, alone.ok, alone.throttled).isGreaterThanOrEqualTo(alone.ok * 3 / 4);
    assertThat(shared.throttled).as("429s with the store, against %d without", alone.throttled)
        .isLessThanOrEqualTo(alone.throttled / 3);
  }
}
