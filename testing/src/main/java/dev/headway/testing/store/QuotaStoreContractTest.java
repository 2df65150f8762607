package dev.headway.testing.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.headway.store.Lease;
import dev.headway.store.QuotaStore;
import dev.headway.store.QuotaStoreException;
import dev.headway.store.RefillRate;
import dev.headway.store.ServerCount;
import dev.headway.store.SharedQuota;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The behaviour every {@link QuotaStore} owes the pacers that share it, as the interface's
 * documentation describes it: counts, leases, units spent and given back, holds, learned rates,
 * windows the store starts itself, heartbeats, closing. Extend it to run it against a store:
 *
 * <pre>{@code
 * class MyStoreContractTest extends QuotaStoreContractTest {
 *   protected QuotaStore newFleet(InstantSource clock, long maxLeaseUnits) {
 *     return MyStore.builder().clock(clock).maxLeaseUnits(maxLeaseUnits)
 *         .keyPrefix(UUID.randomUUID() + ":").build();
 *   }
 *
 *   protected QuotaStore newInstance(QuotaStore member, String name) {
 *     return ((MyStore) member).otherInstance(name);
 *   }
 * }
 * }</pre>
 *
 * <p>Headway runs it against {@code InMemoryQuotaStore} and, against a real redis-server,
 * {@code RedisQuotaStore}. Time is this class's {@link #clock}, which the tests move; a store must
 * read wall time from the clock it was given only. Each test closes the stores it made.
 */
@Timeout(60)
public abstract class QuotaStoreContractTest extends WindowContract {
  /** Creates the contract test. */
  protected QuotaStoreContractTest() {}

  @Test
  void fourInstancesSharingTheLastThreeUnitsAreGrantedExactlyThree() throws Exception {
    QuotaStore first = store();
    List<QuotaStore> fleet = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      fleet.add(instance(first, "pod-" + i));
    }
    await(first.observe(KEY, ServerCount.of(3, clock.instant(), at(60_000), 100,
        Duration.ofMinutes(1))));
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<Long>> granted = new ArrayList<>();
      for (QuotaStore instance : fleet) {
        granted.add(pool.submit(() -> {
          start.await();
          long total = 0;
          for (int attempt = 0; attempt < 20; attempt++) {
            total += await(instance.lease(KEY, 1, 4)).granted();
          }
          return total;
        }));
      }
      start.countDown();
      long total = 0;
      for (Future<Long> f : granted) {
        total += f.get(10, TimeUnit.SECONDS);
      }
      assertThat(total).isEqualTo(3);
      assertThat(await(first.read(KEY)).available()).hasValue(0);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void unitsSentBeforeTheCountInForceAreNotTakenAgainAndUnitsSentAfterItAre() {
    QuotaStore store = store();
    Lease lease = await(store.lease(KEY, 1, 10)); // no count yet: 10 units
    await(store.observe(KEY, count(50, at(0))));
    assertThat(await(store.read(KEY)).available()).as("the lease's 10 units").hasValue(40);
    clock.advance(Duration.ofMillis(100));
    await(store.spent(lease, 3, at(-50))); // sent after the count: not in it
    assertThat(await(store.read(KEY)).available()).hasValue(40);
    await(store.observe(KEY, count(47, at(-40)))); // a count holding the 3 units
    assertThat(await(store.read(KEY)).available()).as("47 less the 7 still leased").hasValue(40);
    await(store.spent(lease, 2, at(-60))); // sent before the count in force: in it already
    assertThat(await(store.read(KEY)).available()).as("47 less the 5 still leased")
        .hasValue(42);
  }

  @Test
  void aCountOfTheSameWindowWithMoreLeftObservedWithinASecondIsOlderNews() {
    // Requests overtake each other between the pacers' decisions and the server: a request
    // decided later may have been counted earlier (RedisFleetTest sent 4 of 3 units so).
    QuotaStore store = store();
    Instant reset = at(30_000);
    await(store.observe(KEY, ServerCount.of(0, at(0), reset, 100, Duration.ofMinutes(1))));
    await(store.observe(KEY, ServerCount.of(2, at(200), reset.plusMillis(300), 100,
        Duration.ofMinutes(1))));
    assertThat(await(store.read(KEY)).available()).as("the lower count stays").hasValue(0);
    await(store.observe(KEY, ServerCount.of(2, at(1_500), reset, 100, Duration.ofMinutes(1))));
    assertThat(await(store.read(KEY)).available()).as("a second later: newer news").hasValue(2);
  }

  @Test
  void aCountWithMoreLeftAndAnEarlierResetObservedWithinASecondIsOlderNews() {
    // A GCRA's reset is when all is back: the more left, the sooner. Ten requests sent at once,
    // answered "9 left, all back in 0.6 s" ... "0 left, in 6 s" in any order: before, the count
    // of 9 kept the last word, and its reset 0.6 s later started a full window of 100.
    QuotaStore store = store();
    await(store.observe(KEY, ServerCount.of(0, at(0), at(6_000), 100, Duration.ofMinutes(1))));
    await(store.observe(KEY, ServerCount.of(9, at(0), at(600), 100, Duration.ofMinutes(1))));
    clock.advance(Duration.ofMillis(700));
    assertThat(await(store.read(KEY)).available()).hasValue(0);
    // A new window's count resets later: newer news.
    await(store.observe(KEY, ServerCount.of(99, at(0), at(66_000), 100, Duration.ofMinutes(1))));
    assertThat(await(store.read(KEY)).available()).hasValue(99);
  }

  @Test
  void aRequestsOwnUnitsLeaveTheCountOnlyWhenItsCountIsTheOneInForce() {
    QuotaStore a = store();
    QuotaStore b = instance(a, "b");
    Lease lease = await(a.lease(KEY, 1, 2)); // no count yet: 2 units
    clock.advance(Duration.ofMillis(100));
    // b's count holds for an instant later than a's, but a's own unit was sent after it (and
    // its count shows no more left than b's: the server need not have counted it before b's).
    await(b.observe(KEY, count(10, at(-20))));
    await(a.observe(KEY, count(10, at(-30)), lease, 1, at(-10)));
    assertThat(await(a.read(KEY)).available())
        .as("b's count need not hold a's unit (sent after it), nor the one still leased")
        .hasValue(8);
    Lease next = await(a.lease(KEY, 1, 1));
    clock.advance(Duration.ofMillis(100));
    await(a.observe(KEY, count(7, at(-5)), next, 1, at(-3)));
    assertThat(await(a.read(KEY)).available())
        .as("a's count is in force: its own unit is in it; the unit sent at -110 ms too, "
            + "the other unit of the first lease is still leased")
        .hasValue(6);
  }

  @Test
  void aRequestsOwnUnitsCountedBeforeTheCountInForceOfAFixedWindowAreInIt() {
    // The last requests of a window, answered in another order than the server counted them:
    // a request whose own count shows more left than the count in force, of the same window of
    // a server that gives its quota back whole at its reset, was counted before it. Before, its
    // unit stayed taken until a later count, which a fleet that believes itself spent never
    // sends for (10 instances left 8 units of a window unused).
    QuotaStore a = store();
    QuotaStore b = instance(a, "b");
    await(a.observe(KEY, ServerCount.of(0, clock.instant(), at(300), 100,
        Duration.ofMinutes(1))));
    clock.advance(Duration.ofMillis(1_500)); // the window the store started has its probes back
    Lease probes = await(a.lease(KEY, 1, 2));
    assertThat(probes.granted()).isEqualTo(2);
    Instant reset = at(58_800);
    // The first probe's count: the server gave its quota back whole at the reset.
    await(a.observe(KEY, ServerCount.of(99, at(-10), reset, 100, Duration.ofMinutes(1)), probes,
        1, at(-5)));
    clock.advance(Duration.ofMillis(100));
    await(b.observe(KEY, ServerCount.of(8, at(-20), reset, 100, Duration.ofMinutes(1))));
    await(a.observe(KEY, ServerCount.of(9, at(-20), reset, 100, Duration.ofMinutes(1)), probes,
        1, at(-10)));
    assertThat(await(a.read(KEY)).available()).as("a's second probe is in b's count")
        .hasValue(8);
  }

  @Test
  void aLeaseIsTheAvailableUnitsDividedByTheInstancesWithinTheBounds() {
    QuotaStore a = fleet(64);
    QuotaStore b = instance(a, "b");
    await(b.read(KEY)); // b is seen
    await(a.observe(KEY, ServerCount.of(100, clock.instant())));
    Lease lease = await(a.lease(KEY, 1, 1000));
    assertThat(lease.granted()).isEqualTo(50);
    assertThat(lease.state().instances()).isEqualTo(2);
    assertThat(lease.state().available()).hasValue(50);
    assertThat(await(b.lease(KEY, 1, 10)).granted()).as("bounded by what was asked").isEqualTo(10);
    assertThat(await(b.lease(KEY, 45, 45)).granted()).as("fewer left than asked").isZero();
    assertThat(await(b.lease(KEY, 40, 45)).granted()).as("at least the minimum").isEqualTo(40);

    QuotaStore small = fleet(16);
    await(small.observe(KEY, ServerCount.of(1000, clock.instant())));
    assertThat(await(small.lease(KEY, 1, 1000)).granted()).as("default bound").isEqualTo(16);
    assertThat(await(small.lease(KEY, 30, 1000)).granted())
        .as("one request costing more than the bound").isEqualTo(30);
  }

  @Test
  void withoutACountTheStoreGrantsWhatWasAskedWithinTheBound() {
    QuotaStore store = store();
    Lease lease = await(store.lease(KEY, 1, 5));
    assertThat(lease.granted()).isEqualTo(5);
    assertThat(lease.state().count()).isEmpty();
    assertThat(lease.validUntil()).isEqualTo(at(1000));
  }

  @Test
  void atFirstContactWithOthersSeenOneProbeGoesAndTheOthersWaitForItsCount() {
    QuotaStore a = store();
    QuotaStore b = instance(a, "b");
    await(b.read(KEY)); // b is seen
    Lease probe = await(a.lease(KEY, 1, 5));
    assertThat(probe.granted()).as("the probe: the request at hand").isEqualTo(1);
    Lease refused = await(b.lease(KEY, 1, 5));
    assertThat(refused.granted()).isZero();
    assertThat(refused.state().count()).isEmpty();
    assertThat(refused.state().heldAt(clock.instant())).isFalse();
    assertThat(refused.validUntil()).as("until the probe ends at the latest").isEqualTo(at(1000));
    clock.advance(Duration.ofMillis(50));
    await(a.observe(KEY, count(9, at(0))));
    assertThat(await(b.lease(KEY, 1, 5)).granted()).as("its count is in").isEqualTo(4);
  }

  @Test
  void aProbeAnsweredWithoutACountOrOverLetsTheFleetGo() {
    QuotaStore a = store();
    QuotaStore b = instance(a, "b");
    await(b.read(KEY));
    Lease probe = await(a.lease(KEY, 1, 5));
    assertThat(await(b.lease(KEY, 1, 5)).granted()).isZero();
    clock.advance(Duration.ofMillis(50));
    await(a.spent(probe, 1, at(0))); // answered without a count
    assertThat(await(b.lease(KEY, 1, 5)).granted()).as("nothing to wait for").isEqualTo(5);

    QuotaStore c = fleet(16);
    QuotaStore d = instance(c, "d");
    await(d.read(KEY));
    assertThat(await(c.lease(KEY, 1, 5)).granted()).isEqualTo(1);
    clock.advance(Duration.ofMillis(999));
    assertThat(await(d.lease(KEY, 1, 5)).granted()).isZero();
    clock.advance(Duration.ofMillis(1));
    assertThat(await(d.lease(KEY, 1, 5)).granted()).as("the probe's lease ended").isEqualTo(5);
  }

  @Test
  void aRefillingCountGrowsToNoMoreThanACountShowedTheServerHoldsOnceAllIsBack() {
    // A GCRA of 100 a minute with a burst of 10: 0 left, all of it back in 6 s. Idle for 30 s,
    // it holds its burst, not the 50 the rate gave back.
    QuotaStore store = fleet(64);
    await(store.learnRate(KEY, new RefillRate(100, Duration.ofMinutes(1), clock.instant())));
    await(store.observe(KEY,
        ServerCount.of(0, clock.instant(), at(6000), 100, Duration.ofMinutes(1))));
    clock.advance(Duration.ofSeconds(30));
    assertThat(await(store.lease(KEY, 1, 64)).granted()).isEqualTo(10);
  }

  @Test
  void anInstanceNamedLikeTheBucketsKeepsItsLeasesApart() {
    // Before: the lease ids of an instance "e" were "e:<n>", taken for buckets of units sent.
    QuotaStore e = instance(store(), "e");
    await(e.observe(KEY, count(10, at(0))));
    Lease lease = await(e.lease(KEY, 1, 4));
    assertThat(lease.granted()).isEqualTo(4);
    clock.advance(Duration.ofMillis(100));
    await(e.spent(lease, 4, at(-50)));
    await(e.observe(KEY, count(6, at(-20))));
    assertThat(await(e.read(KEY)).available()).hasValue(6);
  }

  @Test
  void aCountWhoseResetPassedWithoutAWindowExpires() {
    QuotaStore store = store();
    await(store.observe(KEY, new ServerCount(5, clock.instant(), Optional.of(at(200)),
        OptionalLong.empty(), Optional.empty())));
    clock.advance(Duration.ofMillis(200));
    assertThat(await(store.read(KEY)).count()).isEmpty();
  }

  @Test
  void spentUnitsStayTakenUntilAFresherCountAndLeasesValidAfterItStayTaken() {
    QuotaStore store = store();
    await(store.observe(KEY, ServerCount.of(20, clock.instant())));
    Lease early = await(store.lease(KEY, 4, 4));
    clock.advance(Duration.ofSeconds(2)); // early has ended: its units were spent after the count
    assertThat(await(store.read(KEY)).available()).hasValue(16);
    Lease late = await(store.lease(KEY, 3, 3));
    assertThat(early.validUntil()).isBefore(clock.instant());

    // A count observed now reflects everything spent before now, not the lease still valid.
    await(store.observe(KEY, ServerCount.of(15, clock.instant())));
    SharedQuota state = await(store.read(KEY));
    assertThat(state.taken()).isEqualTo(late.granted());
    assertThat(state.available()).hasValue(12);
  }

  /**
   * Units spent one at a time, each at its own millisecond (more instants than a store keeps
   * apart), then a count observed as the 61st of 80 was sent: the 61 are in it and the store
   * lends them again; only the 19 sent after it, and a few sent just before it, stay taken (a
   * store may keep units sent at nearby instants together, each kept until a count observed at
   * or after the latest of them). Before, past 32 instants the store kept all the units in one bucket of the
   * last instant, and the count, observed 20 ms before it, held none of them: a fleet's budget
   * owed every unit sent since its last count.
   */
  @Test
  void aCountHoldsTheUnitsSentBeforeItHoweverManyInstantsTheyWereSentAt() {
    QuotaStore store = fleet(100);
    await(store.observe(KEY, count(100, at(-1000))));
    Lease lease = await(store.lease(KEY, 80, 80));
    for (int i = 0; i < 80; i++) {
      await(store.spent(lease, 1, at(-100 + i)));
    }
    assertThat(await(store.read(KEY)).taken()).isEqualTo(80);
    await(store.observe(KEY, count(40, at(-40))));
    SharedQuota state = await(store.read(KEY));
    assertThat(state.taken()).as("units sent after the count, or just before it")
        .isBetween(19L, 23L);
    assertThat(state.available().orElseThrow()).isBetween(17L, 21L);
  }

  /**
   * A bucket (a quota and a rate, no reset: the shape of a fleet's own budget for a server that
   * gives no count, two units refilled at the rate it learned) that the rate has filled past its
   * quota, every unit lent taken, lends its whole quota, though units were told sent at a later
   * instant (requests committed to go later): what came back paid for them. Before, the store
   * moved the bucket to now, full, and took those units again until their instant: two requests
   * waiting to go left nothing to lend at a thousand a second.
   */
  @Test
  void aBucketFilledPastItsQuotaLendsItWhileUnitsToldSentLaterAreStillToGo() {
    QuotaStore store = store();
    await(store.observe(KEY, new ServerCount(0, clock.instant(), Optional.empty(),
        OptionalLong.of(2), Optional.of(Duration.ofHours(1)))));
    await(store.learnRate(KEY, new RefillRate(1, Duration.ofMillis(1), clock.instant())));
    clock.advance(Duration.ofMillis(10));
    Lease first = await(store.lease(KEY, 2, 2));
    assertThat(first.granted()).isEqualTo(2);
    await(store.spent(first, 2, at(300))); // committed to go 300 ms from now
    clock.advance(Duration.ofMillis(10)); // 10 more back
    Lease second = await(store.lease(KEY, 2, 2));
    assertThat(second.granted()).as("the bucket's quota, the first units paid for")
        .isEqualTo(2);
    Lease third = await(store.lease(KEY, 1, 1));
    assertThat(third.granted()).as("no more than the quota at once").isZero();
  }

  /**
   * A bucket full past its quota still counts the units told sent at a later instant that its
   * rate does not give back by then: lending the whole quota now, those units would find the
   * bucket empty when they go.
   */
  @Test
  void aBucketFilledPastItsQuotaKeepsUnitsToldSentLaterThatItsRateDoesNotPayFor() {
    QuotaStore store = store();
    await(store.observe(KEY, new ServerCount(10, clock.instant(), Optional.empty(),
        OptionalLong.of(10), Optional.of(Duration.ofHours(1)))));
    await(store.learnRate(KEY, new RefillRate(1, Duration.ofSeconds(1), clock.instant())));
    Lease first = await(store.lease(KEY, 5, 5));
    assertThat(first.granted()).isEqualTo(5);
    await(store.spent(first, 5, at(8_000))); // committed to go 8 s from now
    clock.advance(Duration.ofSeconds(6)); // full and past it; 2 more back when they go
    Lease second = await(store.lease(KEY, 1, 10));
    assertThat(second.granted()).as("the quota less the units still to go").isEqualTo(5);
  }

  @Test
  void anOlderCountDoesNotReplaceANewerOne() {
    QuotaStore store = store();
    clock.advance(Duration.ofSeconds(5));
    await(store.observe(KEY, ServerCount.of(7, clock.instant())));
    SharedQuota state = await(store.observe(KEY, ServerCount.of(90, at(-1000))));
    assertThat(state.count().orElseThrow().remaining()).isEqualTo(7);
  }

  @Test
  void aCountFromTheFarFutureIsTakenAsObservedNow() {
    QuotaStore store = store();
    await(store.observe(KEY, ServerCount.of(7, at(3_600_000))));
    SharedQuota state = await(store.observe(KEY, ServerCount.of(5, clock.instant())));
    assertThat(state.count().orElseThrow().remaining()).isEqualTo(5);
  }

  @Test
  void unusedUnitsGoBackOnceAndAReleaseOfADroppedLeaseIsHarmless() {
    QuotaStore store = store();
    await(store.observe(KEY, ServerCount.of(10, clock.instant())));
    Lease lease = await(store.lease(KEY, 1, 6));
    assertThat(lease.granted()).isEqualTo(6);
    assertThat(await(store.release(lease, 4)).available()).hasValue(8);
    assertThat(await(store.release(lease, 100)).available()).hasValue(10);
    assertThat(await(store.release(lease, 1)).available()).hasValue(10);
    assertThatThrownBy(() -> store.release(lease, -1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unusedUnits");
  }

  @Test
  void oneInstancesHoldHoldsTheFleetOnlyExtendsAndEnds() {
    QuotaStore a = store();
    QuotaStore b = instance(a, "b");
    await(a.observe(KEY, ServerCount.of(50, clock.instant())));
    await(a.hold(KEY, at(20_000)));
    await(a.hold(KEY, at(5_000)));
    Lease refused = await(b.lease(KEY, 1, 1));
    assertThat(refused.granted()).isZero();
    assertThat(refused.state().holdUntil()).contains(at(20_000));
    assertThat(refused.validUntil()).isEqualTo(at(20_000));
    assertThat(refused.state().heldAt(clock.instant())).isTrue();

    clock.advance(Duration.ofSeconds(20));
    assertThat(await(b.lease(KEY, 1, 1)).granted()).isEqualTo(1);
    assertThat(await(b.hold(KEY, at(Duration.ofDays(30).toMillis()))).holdUntil())
        .as("capped to a day").contains(at(Duration.ofDays(1).toMillis()));
  }

  @Test
  void aLiftEndsTheHoldItCheckedButNoOther() {
    QuotaStore a = store();
    QuotaStore b = instance(a, "b");
    await(a.observe(KEY, ServerCount.of(50, clock.instant())));
    await(a.hold(KEY, at(60_000)));
    assertThat(await(b.lift(KEY, at(20_000))).holdUntil())
        .as("a lift for another hold leaves this one").contains(at(60_000));
    assertThat(await(b.lift(KEY, at(60_400))).holdUntil())
        .as("the hold checked (to the second) is over").isEmpty();
    assertThat(await(a.lease(KEY, 1, 1)).granted()).isEqualTo(1);
    assertThat(await(a.lift(KEY, at(60_000))).holdUntil()).isEmpty();
    assertThatThrownBy(() -> a.lift(KEY, null)).isInstanceOf(NullPointerException.class);
  }

  @Test
  void aLearnedRateIsSharedNewestFirst() {
    QuotaStore a = store();
    QuotaStore b = instance(a, "b");
    RefillRate rate = new RefillRate(10, Duration.ofMinutes(1), clock.instant());
    await(a.learnRate(KEY, rate));
    await(a.learnRate(KEY, new RefillRate(99, Duration.ofMinutes(1), at(-1))));
    assertThat(await(b.read(KEY)).refillRate()).contains(rate);
  }

  @Test
  void instancesThatMissTheirHeartbeatNoLongerShareLeases() {
    QuotaStore a = store();
    for (int i = 0; i < 3; i++) {
      await(instance(a, "other-" + i).read(KEY));
    }
    assertThat(await(a.read(KEY)).instances()).isEqualTo(4);
    clock.advance(Duration.ofSeconds(10));
    assertThat(await(a.read(KEY)).instances()).isEqualTo(1);
  }

  @Test
  void aRefusalByASpentWindowGivenBackWholeSaysItsResetAndKeepsTheInstanceUntilThen() {
    QuotaStore a = store();
    QuotaStore waiting = instance(a, "waiting");
    await(a.observe(KEY, ServerCount.of(0, clock.instant(), at(300), 100,
        Duration.ofMinutes(1))));
    clock.advance(Duration.ofMillis(1_500)); // the window the store started has its probes back
    Lease probes = await(a.lease(KEY, 1, 2));
    assertThat(probes.granted()).isEqualTo(2);
    Instant reset = at(40_000);
    // The probe's count: the server gave its quota back whole at the reset.
    await(a.observe(KEY, ServerCount.of(99, at(-10), reset, 100, Duration.ofMinutes(1)), probes,
        1, at(-5)));
    clock.advance(Duration.ofMillis(100));
    await(a.observe(KEY, ServerCount.of(0, at(-5), reset, 100, Duration.ofMinutes(1)), probes,
        1, at(-10)));
    Lease refused = await(waiting.lease(KEY, 1, 1));
    assertThat(refused.granted()).isZero();
    assertThat(refused.validUntil()).as("only the reset lends a unit").isEqualTo(reset);
    // The refused instance waits without a call: past the heartbeat it is still counted ...
    clock.advance(Duration.ofSeconds(20));
    assertThat(await(a.read(KEY)).instances()).isEqualTo(2);
    // ... a call of its own meanwhile does not shorten that ...
    await(waiting.read(KEY));
    clock.advance(Duration.ofSeconds(29));
    assertThat(await(a.read(KEY)).instances()).isEqualTo(2);
    // ... until a heartbeat after the reset.
    clock.advance(Duration.ofSeconds(1));
    assertThat(await(a.read(KEY)).instances()).isEqualTo(1);
  }

  @Test
  void aRefusalByASpentCountNotShownWholeSaysNow() {
    // A sliding window's counter gives units back before its reset: until the store saw the
    // quota come back whole at a reset, a refusal says no more than now.
    QuotaStore a = store();
    QuotaStore waiting = instance(a, "waiting");
    await(a.observe(KEY, ServerCount.of(0, clock.instant(), at(40_000), 100,
        Duration.ofMinutes(1))));
    Lease refused = await(waiting.lease(KEY, 1, 1));
    assertThat(refused.granted()).isZero();
    assertThat(refused.validUntil()).isEqualTo(clock.instant());
  }

  @Test
  void aRefusalOfAWindowTheStoreStartedSaysWhenItsProbesAreBack() {
    // A key not shown to give its quota back whole at its reset: the window the store starts
    // lends its probes only as 100 a minute gives them back (one 600 ms in, the other 1.2 s in,
    // at most a lease's duration, 1 s, in), and a refusal says when, rather than now.
    QuotaStore a = store();
    QuotaStore b = instance(a, "b");
    Instant t0 = clock.instant();
    await(a.observe(KEY, ServerCount.of(0, t0, t0.plusMillis(300), 100,
        Duration.ofMinutes(1))));
    clock.advance(Duration.ofMillis(400));
    Lease early = await(b.lease(KEY, 1, 1));
    assertThat(early.granted()).isZero();
    assertThat(early.validUntil()).as("the first probe is back").isEqualTo(t0.plusMillis(900));
    clock.advance(Duration.ofMillis(500));
    assertThat(await(b.lease(KEY, 1, 1)).granted()).isEqualTo(1);
    Lease second = await(a.lease(KEY, 1, 1));
    assertThat(second.granted()).isZero();
    assertThat(second.validUntil()).as("the second, at most a lease's duration in")
        .isEqualTo(t0.plusMillis(1_300));
  }

  @Test
  void refusalsWhileARateGivesUnitsBackTellEachInstanceItsTurn() {
    // 60 a minute, spent: one unit back a second. Three instances refused together are told
    // one after the other, a refill apart, never further off than one refill per instance.
    QuotaStore a = store();
    QuotaStore b = instance(a, "b");
    QuotaStore c = instance(a, "c");
    Instant t0 = clock.instant();
    await(b.read(KEY));
    await(c.read(KEY));
    await(a.learnRate(KEY, new RefillRate(60, Duration.ofMinutes(1), t0)));
    await(a.observe(KEY, ServerCount.of(0, t0, t0.plusSeconds(60), 60,
        Duration.ofMinutes(1))));
    List<Instant> turns = new ArrayList<>();
    for (QuotaStore s : List.of(a, b, c, a)) {
      Lease refused = await(s.lease(KEY, 1, 1));
      assertThat(refused.granted()).isZero();
      turns.add(refused.validUntil());
    }
    assertThat(turns).containsExactly(t0.plusMillis(1_000), t0.plusMillis(2_000),
        t0.plusMillis(3_000), t0.plusMillis(3_000));
    clock.advance(Duration.ofSeconds(1));
    assertThat(await(a.lease(KEY, 1, 1)).granted()).as("its unit is back at its turn")
        .isEqualTo(1);
  }

  @Test
  void aClosedStoreFailsWithTheDocumentedExceptionAndClosingTwiceIsHarmless() {
    QuotaStore store = store();
    await(store.observe(KEY, ServerCount.of(3, clock.instant())));
    store.close();
    store.close();
    assertThatThrownBy(() -> await(store.read(KEY)))
        .hasRootCauseInstanceOf(QuotaStoreException.class);
  }

  @Test
  void invalidArgumentsAreRefusedAtTheCall() {
    QuotaStore store = store();
    assertThatThrownBy(() -> store.lease(KEY, 0, 1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("minUnits");
    assertThatThrownBy(() -> store.lease(KEY, 3, 2)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxUnits");
    Lease lease = await(store.lease(KEY, 1, 1));
    assertThatThrownBy(() -> store.spent(lease, -1, clock.instant()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("units");
    assertThatThrownBy(() -> store.lease(null, 1, 1)).isInstanceOf(NullPointerException.class);
  }
}
