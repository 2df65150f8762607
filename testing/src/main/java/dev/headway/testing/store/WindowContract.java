package dev.headway.testing.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.store.Lease;
import dev.headway.store.QuotaStore;
import dev.headway.store.RefillRate;
import dev.headway.store.ServerCount;
import dev.headway.store.SharedQuota;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/**
 * The part of {@link QuotaStoreContractTest} about windows: a lease never outlives its window,
 * the windows a store starts by itself, and counts that refill at a rate.
 */
abstract class WindowContract extends StoreContractSupport {
  WindowContract() {}

  @Test
  void aLeaseNeverOutlivesItsWindowAndTheNextWindowStartsFull() {
    QuotaStore store = store();
    await(store.observe(KEY, ServerCount.of(10, clock.instant(), at(300), 10,
        Duration.ofSeconds(1))));
    Lease lease = await(store.lease(KEY, 1, 8));
    assertThat(lease.granted()).isEqualTo(8);
    assertThat(lease.validUntil()).isEqualTo(at(300));
    assertThat(await(store.lease(KEY, 3, 3)).granted()).isZero();

    clock.advance(Duration.ofMillis(300));
    SharedQuota next = await(store.read(KEY));
    assertThat(next.taken()).isZero();
    assertThat(next.available()).hasValue(10);
    assertThat(next.count().orElseThrow().resetAt()).contains(at(1000));

    clock.advance(Duration.ofMillis(3500)); // several windows later
    assertThat(await(store.read(KEY)).count().orElseThrow().resetAt()).contains(at(500));
  }

  @Test
  void aWindowTheStoreStartedItselfLendsTwoUnitsUntilACountOfItArrives() {
    // Before: the whole quota at once (at 50 instances, a sliding window's fixed-window end let
    // 100 requests go together: 99 429s). A server need not give it all back at its reset.
    QuotaStore store = store();
    await(store.observe(KEY, ServerCount.of(0, clock.instant(), at(300), 10,
        Duration.ofSeconds(1))));
    clock.advance(Duration.ofMillis(300));
    // Until the key shows it gives its quota back at the reset, the probes go as a server that
    // gives 10 per second back evenly has them back (a sliding window refuses one at the reset).
    assertThat(await(store.lease(KEY, 1, 8)).granted()).as("at the reset").isZero();
    clock.advance(Duration.ofMillis(100));
    Lease probe = await(store.lease(KEY, 1, 8));
    assertThat(probe.granted()).as("one back").isEqualTo(1);
    clock.advance(Duration.ofMillis(100));
    assertThat(await(store.lease(KEY, 1, 8)).granted()).as("two back").isEqualTo(1);
    assertThat(await(store.lease(KEY, 1, 8)).granted()).as("the probes are out").isZero();
    // The first count of the window, on the first probe, within a second and with more left:
    // newer news, and a server that gives its quota back at the reset.
    await(store.observe(KEY, ServerCount.of(9, at(-100), at(800), 10, Duration.ofSeconds(1)),
        probe, 1, at(-110)));
    clock.advance(Duration.ofMillis(30));
    assertThat(await(store.lease(KEY, 1, 8)).granted()).as("9 less the other probe")
        .isEqualTo(8);
    clock.advance(Duration.ofMillis(770));
    assertThat(await(store.lease(KEY, 1, 8)).granted()).as("the next window's probes, at once")
        .isEqualTo(2);
  }

  @Test
  void theProbesOfALongWindowWaitForARefillNoLongerThanALeaseLasts() {
    // 10 per hour: a server giving them back evenly has one back 6 minutes after the reset. The
    // probes wait at most a lease's duration (1 s by default), not minutes.
    QuotaStore store = store();
    await(store.observe(KEY, ServerCount.of(0, clock.instant(), at(300), 10,
        Duration.ofHours(1))));
    clock.advance(Duration.ofMillis(300));
    assertThat(await(store.lease(KEY, 1, 8)).granted()).as("at the reset").isZero();
    clock.advance(Duration.ofMillis(999));
    assertThat(await(store.lease(KEY, 1, 8)).granted()).isZero();
    clock.advance(Duration.ofMillis(1));
    assertThat(await(store.lease(KEY, 1, 8)).granted()).as("a lease's duration on").isEqualTo(2);
  }

  @Test
  void aCountOfAProbeSentJustBeforeTheStoreStartedTheWindowReplacesIt() {
    // The probe's count of the new window holds for 10 ms before the window the store started
    // (requests overtake each other; a token bucket's count often does). Before, it was older
    // news, and the fleet sent 2 requests per 2 minutes.
    QuotaStore store = store();
    await(store.observe(KEY, ServerCount.of(0, clock.instant(), at(300), 100,
        Duration.ofMinutes(1))));
    clock.advance(Duration.ofMillis(1_500));
    assertThat(await(store.lease(KEY, 1, 8)).granted()).isEqualTo(2);
    // The window started 1.2 s ago (its probes go once 100 per minute would give them back).
    await(store.observe(KEY, ServerCount.of(99, at(-1_210), at(58_790), 100,
        Duration.ofMinutes(1))));
    assertThat(await(store.lease(KEY, 1, 8)).granted()).isEqualTo(8);
  }

  @Test
  void aFirstCountOfAWindowTheStoreStartedHoldingLessThanHalfTheQuotaMakesTheKeyRefill() {
    // A sliding window's reset is the end of its fixed window; the previous window still weighs
    // at its start: 3 of 100 back. Before, the fleet waited for the next reset, a minute later
    // (5 instances on a sliding window: 57.6% goodput).
    QuotaStore store = store();
    await(store.observe(KEY, ServerCount.of(0, clock.instant(), at(300), 100,
        Duration.ofMinutes(1))));
    clock.advance(Duration.ofMillis(1_500));
    Lease probes = await(store.lease(KEY, 1, 8));
    assertThat(probes.granted()).as("the probes, once 100 per minute gave them back")
        .isEqualTo(2);
    clock.advance(Duration.ofMillis(50));
    // The count came back on the first probe.
    SharedQuota state = await(store.observe(KEY, ServerCount.of(3, at(-20), at(59_950), 100,
        Duration.ofMinutes(1)), probes, 1, at(-30)));
    assertThat(state.refillRate()).as("quota per window, from now")
        .contains(new RefillRate(100, Duration.ofMinutes(1), clock.instant()));
    // 3 left (the first probe's unit in them), the second probe leased: 2 now; one more every
    // 0.6 s from the count's instant.
    assertThat(await(store.lease(KEY, 1, 8)).granted()).isEqualTo(2);
    assertThat(await(store.lease(KEY, 1, 8)).granted()).isZero();
    clock.advance(Duration.ofMillis(600));
    assertThat(await(store.lease(KEY, 1, 8)).granted()).isEqualTo(1);
  }

  @Test
  void aFirstCountOfAWindowTheStoreStartedCarriedByARequestItDidNotLendShowsNoRefill() {
    // The store was down across the reset: the instances sent their shares of the new window
    // without leases, and the first count told after it shows 3 of 100 left. That is a fixed
    // window spent by requests the store never lent, not a server that refills: before, the
    // store kept lending 100 per minute mid-window that the server did not have.
    QuotaStore store = store();
    await(store.observe(KEY, ServerCount.of(0, clock.instant(), at(300), 100,
        Duration.ofMinutes(1))));
    clock.advance(Duration.ofMillis(20_000));
    SharedQuota state = await(store.observe(KEY, ServerCount.of(3, at(-20), at(40_300), 100,
        Duration.ofMinutes(1))));
    assertThat(state.refillRate()).isEmpty();
    assertThat(state.count().orElseThrow().remaining()).isEqualTo(3);
    assertThat(await(store.lease(KEY, 1, 8)).granted()).isEqualTo(3);
    clock.advance(Duration.ofMillis(10_000));
    assertThat(await(store.lease(KEY, 1, 8)).granted()).as("nothing back before the reset")
        .isZero();
  }

  @Test
  void aWindowTheStoreStartedThatTheServerGaveBackWholeOrACountOfTheOldWindowShowNoRefill() {
    QuotaStore store = store();
    await(store.observe(KEY, ServerCount.of(0, clock.instant(), at(300), 100,
        Duration.ofMinutes(1))));
    clock.advance(Duration.ofMillis(300));
    // A probe sent just before the roll: 0 left of the old window (its reset at the start).
    await(store.observe(KEY, ServerCount.of(0, at(-10), at(0), 100, Duration.ofMinutes(1))));
    assertThat(await(store.read(KEY)).refillRate()).isEmpty();
    clock.advance(Duration.ofMillis(50));
    // A fixed window: 98 of 100 back (the probes took 2).
    SharedQuota state = await(store.observe(KEY, ServerCount.of(98, at(-20), at(59_950), 100,
        Duration.ofMinutes(1))));
    assertThat(state.refillRate()).isEmpty();
    assertThat(state.count().orElseThrow().remaining()).isEqualTo(98);
  }

  @Test
  void aSlowerRateToldLaterReplacesTheRateAndTheCountRefillsSlower() {
    // What a fleet's 429s do to the rate it shares: an instance tells a slower one, newer.
    QuotaStore store = store();
    await(store.observe(KEY, ServerCount.of(0, clock.instant(), at(60_000), 100,
        Duration.ofMinutes(1))));
    await(store.learnRate(KEY, new RefillRate(100, Duration.ofMinutes(1), clock.instant())));
    RefillRate slowed = new RefillRate(100, Duration.ofMillis(61_875), at(1));
    await(store.learnRate(KEY, slowed));
    await(store.learnRate(KEY, new RefillRate(100, Duration.ofMinutes(1), at(-1))));
    clock.advance(Duration.ofMillis(600));
    SharedQuota state = await(store.read(KEY));
    assertThat(state.refillRate()).as("the newest, not the last told").contains(slowed);
    assertThat(state.available(clock.instant())).as("0.6 s: 1 unit at 100/min, 0 slower")
        .hasValue(0);
    clock.advance(Duration.ofMillis(19));
    assertThat(await(store.read(KEY)).available(clock.instant())).hasValue(1);
  }

  @Test
  void aCountWithAQuotaAndARateButNoResetIsABucketThatKeepsGivingUnitsBack() {
    // What a fleet keeps where the server gives no count (a 429 is 0 left): a bucket of 2 units
    // refilled at 1 unit per second. Before, the units taken stayed subtracted from a level
    // capped at the quota: once 2 were taken nothing came back until a fresher count.
    QuotaStore store = store();
    QuotaStore other = instance(store, "other");
    await(store.observe(KEY, new ServerCount(0, clock.instant(), Optional.empty(),
        OptionalLong.of(2), Optional.of(Duration.ofHours(1)))));
    await(store.learnRate(KEY, new RefillRate(60, Duration.ofMinutes(1), clock.instant())));
    clock.advance(Duration.ofSeconds(30)); // 30 units back, but the bucket holds 2
    assertThat(await(store.read(KEY)).available(clock.instant())).hasValue(2);
    long granted = 0;
    for (int i = 0; i < 10; i++) {
      granted += await((i % 2 == 0 ? store : other).lease(KEY, 1, 1)).granted();
    }
    assertThat(granted).as("the bucket's 2, not the 30 the rate gave back").isEqualTo(2);
    clock.advance(Duration.ofMillis(999));
    assertThat(await(other.lease(KEY, 1, 1)).granted()).isZero();
    clock.advance(Duration.ofMillis(1));
    assertThat(await(other.lease(KEY, 1, 1)).granted()).as("one more a second later").isOne();
    for (int s = 0; s < 20; s++) {
      clock.advance(Duration.ofSeconds(1));
      Lease lease = await(store.lease(KEY, 1, 4));
      assertThat(lease.granted()).as("one a second, for good").isOne();
      await(store.spent(lease, 1, clock.instant()));
    }
  }

  @Test
  void withARefillRateTheCountGrowsAtItBetweenCountsAndLeasesAreNotCutAtTheReset() {
    // Before: a spent count of a refilling server gave nothing back until its reset, and then
    // the whole quota at once (a sliding window's reset is not when its quota is back).
    QuotaStore store = store();
    QuotaStore other = instance(store, "other");
    await(store.observe(KEY, ServerCount.of(0, clock.instant(), at(30_000), 100,
        Duration.ofMinutes(1))));
    await(other.learnRate(KEY, new RefillRate(100, Duration.ofMinutes(1), clock.instant())));
    clock.advance(Duration.ofMillis(599));
    assertThat(await(store.lease(KEY, 1, 4)).granted()).as("0.599 s: no unit back yet").isZero();
    SharedQuota before = await(store.read(KEY));
    assertThat(before.available(clock.instant())).hasValue(0);
    assertThat(before.refilledAt(1)).contains(at(1));
    clock.advance(Duration.ofMillis(1));
    Lease one = await(store.lease(KEY, 1, 4));
    assertThat(one.granted()).as("one unit every 0.6 s, shared by 2 instances").isEqualTo(1);
    clock.advance(Duration.ofMillis(5_400)); // 6 s: 10 back, 1 taken
    assertThat(await(other.read(KEY)).available(clock.instant())).hasValue(9);
    Lease four = await(other.lease(KEY, 1, 4));
    assertThat(four.granted()).isEqualTo(4);
    assertThat(four.validUntil()).isEqualTo(clock.instant().plusSeconds(1));
    // Past the reset the count still refills from its instant (not the whole quota back).
    clock.advance(Duration.ofSeconds(25)); // 31 s: 51 back, 5 taken (the leases still count)
    SharedQuota late = await(store.read(KEY));
    assertThat(late.count()).isPresent();
    assertThat(late.available(clock.instant())).hasValue(46);
    assertThat(late.available()).as("without the rate").hasValue(0);
    // Up to the quota (less what is still taken); a period after it is all back, the count
    // gives way to a full window's.
    clock.advance(Duration.ofSeconds(60));
    assertThat(await(store.read(KEY)).available(clock.instant())).hasValue(95);
    clock.advance(Duration.ofSeconds(60));
    SharedQuota full = await(store.read(KEY));
    assertThat(full.count().orElseThrow().remaining()).isEqualTo(100);
    assertThat(full.available(clock.instant())).hasValue(100);
  }
}
