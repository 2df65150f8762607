package dev.headway.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.headway.testing.VirtualClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class InMemoryQuotaStoreTest {
  private static final QuotaKey KEY = new QuotaKey("https://api.example.com:443", "default");

  private final VirtualClock clock = VirtualClock.create();

  private InMemoryQuotaStore store() {
    return InMemoryQuotaStore.builder().clock(clock).build();
  }

  private static <T> T now(java.util.concurrent.CompletionStage<T> stage) {
    CompletableFuture<T> f = stage.toCompletableFuture();
    assertThat(f).as("completed without a round trip").isDone();
    return f.join();
  }

  private Instant at(long millis) {
    return clock.instant().plusMillis(millis);
  }

  @Test
  void fourInstancesSharingTheLastThreeUnitsAreGrantedExactlyThree() throws Exception {
    InMemoryQuotaStore first = store();
    List<InMemoryQuotaStore> fleet = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      fleet.add(first.instance("pod-" + i));
    }
    now(first.observe(KEY, ServerCount.of(3, clock.instant(), at(60_000), 100,
        Duration.ofMinutes(1))));
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<Long>> granted = new ArrayList<>();
      for (InMemoryQuotaStore instance : fleet) {
        granted.add(pool.submit(() -> {
          start.await();
          long total = 0;
          for (int attempt = 0; attempt < 20; attempt++) {
            total += now(instance.lease(KEY, 1, 4)).granted();
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
      assertThat(now(first.read(KEY)).available()).hasValue(0);
    } finally {
      pool.shutdownNow();
    }
  }

  private static ServerCount count(long remaining, Instant observedAt) {
    return ServerCount.of(remaining, observedAt, observedAt.plusSeconds(60), 100,
        Duration.ofMinutes(1));
  }

  @Test
  void unitsSentBeforeTheCountInForceAreNotTakenAgainAndUnitsSentAfterItAre() {
    InMemoryQuotaStore store = store();
    Lease lease = now(store.lease(KEY, 1, 10)); // no count yet: 10 units
    now(store.observe(KEY, count(50, at(0))));
    assertThat(now(store.read(KEY)).available()).as("the lease's 10 units").hasValue(40);
    clock.advance(Duration.ofMillis(100));
    now(store.spent(lease, 3, at(-50))); // sent after the count: not in it
    assertThat(now(store.read(KEY)).available()).hasValue(40);
    now(store.observe(KEY, count(47, at(-40)))); // a count holding the 3 units
    assertThat(now(store.read(KEY)).available()).as("47 less the 7 still leased").hasValue(40);
    now(store.spent(lease, 2, at(-60))); // sent before the count in force: in it already
    assertThat(now(store.read(KEY)).available()).as("47 less the 5 still leased")
        .hasValue(42);
  }

  @Test
  void aCountOfTheSameWindowWithMoreLeftObservedWithinASecondIsOlderNews() {
    // Requests overtake each other between the pacers' decisions and the server: a request
    // decided later may have been counted earlier (RedisFleetTest sent 4 of 3 units so).
    InMemoryQuotaStore store = store();
    Instant reset = at(30_000);
    now(store.observe(KEY, ServerCount.of(0, at(0), reset, 100, Duration.ofMinutes(1))));
    now(store.observe(KEY, ServerCount.of(2, at(200), reset.plusMillis(300), 100,
        Duration.ofMinutes(1))));
    assertThat(now(store.read(KEY)).available()).as("the lower count stays").hasValue(0);
    now(store.observe(KEY, ServerCount.of(2, at(1_500), reset, 100, Duration.ofMinutes(1))));
    assertThat(now(store.read(KEY)).available()).as("a second later: newer news").hasValue(2);
  }

  @Test
  void aCountWithMoreLeftAndAnEarlierResetObservedWithinASecondIsOlderNews() {
    // A GCRA's reset is when all is back: the more left, the sooner. Ten requests sent at once,
    // answered "9 left, all back in 0.6 s" ... "0 left, in 6 s" in any order: before, the count
    // of 9 kept the last word, and its reset 0.6 s later started a full window of 100.
    InMemoryQuotaStore store = store();
    now(store.observe(KEY, ServerCount.of(0, at(0), at(6_000), 100, Duration.ofMinutes(1))));
    now(store.observe(KEY, ServerCount.of(9, at(0), at(600), 100, Duration.ofMinutes(1))));
    clock.advance(Duration.ofMillis(700));
    assertThat(now(store.read(KEY)).available()).hasValue(0);
    // A new window's count resets later: newer news.
    now(store.observe(KEY, ServerCount.of(99, at(0), at(66_000), 100, Duration.ofMinutes(1))));
    assertThat(now(store.read(KEY)).available()).hasValue(99);
  }

  @Test
  void aRequestsOwnUnitsLeaveTheCountOnlyWhenItsCountIsTheOneInForce() {
    InMemoryQuotaStore a = store();
    InMemoryQuotaStore b = a.instance("b");
    Lease lease = now(a.lease(KEY, 1, 2)); // no count yet: 2 units
    clock.advance(Duration.ofMillis(100));
    // b's count holds for an instant later than a's, but a's own unit was sent after it.
    now(b.observe(KEY, count(10, at(-20))));
    now(a.observe(KEY, count(11, at(-30)), lease, 1, at(-10)));
    assertThat(now(a.read(KEY)).available())
        .as("b's count need not hold a's unit (sent after it), nor the one still leased")
        .hasValue(8);
    Lease next = now(a.lease(KEY, 1, 1));
    clock.advance(Duration.ofMillis(100));
    now(a.observe(KEY, count(7, at(-5)), next, 1, at(-3)));
    assertThat(now(a.read(KEY)).available())
        .as("a's count is in force: its own unit is in it; the unit sent at -110 ms too, "
            + "the other unit of the first lease is still leased")
        .hasValue(6);
  }

  @Test
  void aLeaseIsTheAvailableUnitsDividedByTheInstancesWithinTheBounds() {
    InMemoryQuotaStore a = InMemoryQuotaStore.builder().clock(clock).maxLeaseUnits(64).build();
    InMemoryQuotaStore b = a.instance("b");
    now(b.read(KEY)); // b is seen
    now(a.observe(KEY, ServerCount.of(100, clock.instant())));
    Lease lease = now(a.lease(KEY, 1, 1000));
    assertThat(lease.granted()).isEqualTo(50);
    assertThat(lease.state().instances()).isEqualTo(2);
    assertThat(lease.state().available()).hasValue(50);
    assertThat(now(b.lease(KEY, 1, 10)).granted()).as("bounded by what was asked").isEqualTo(10);
    assertThat(now(b.lease(KEY, 45, 45)).granted()).as("fewer left than asked").isZero();
    assertThat(now(b.lease(KEY, 40, 45)).granted()).as("at least the minimum").isEqualTo(40);

    InMemoryQuotaStore small = InMemoryQuotaStore.builder().clock(clock).build();
    now(small.observe(KEY, ServerCount.of(1000, clock.instant())));
    assertThat(now(small.lease(KEY, 1, 1000)).granted()).as("default bound").isEqualTo(16);
    assertThat(now(small.lease(KEY, 30, 1000)).granted())
        .as("one request costing more than the bound").isEqualTo(30);
  }

  @Test
  void withoutACountTheStoreGrantsWhatWasAskedWithinTheBound() {
    InMemoryQuotaStore store = store();
    Lease lease = now(store.lease(KEY, 1, 5));
    assertThat(lease.granted()).isEqualTo(5);
    assertThat(lease.state().count()).isEmpty();
    assertThat(lease.validUntil()).isEqualTo(at(1000));
  }

  @Test
  void aLeaseNeverOutlivesItsWindowAndTheNextWindowStartsFull() {
    InMemoryQuotaStore store = store();
    now(store.observe(KEY, ServerCount.of(10, clock.instant(), at(300), 10,
        Duration.ofSeconds(1))));
    Lease lease = now(store.lease(KEY, 1, 8));
    assertThat(lease.granted()).isEqualTo(8);
    assertThat(lease.validUntil()).isEqualTo(at(300));
    assertThat(now(store.lease(KEY, 3, 3)).granted()).isZero();

    clock.advance(Duration.ofMillis(300));
    SharedQuota next = now(store.read(KEY));
    assertThat(next.taken()).isZero();
    assertThat(next.available()).hasValue(10);
    assertThat(next.count().orElseThrow().resetAt()).contains(at(1000));

    clock.advance(Duration.ofMillis(3500)); // several windows later
    assertThat(now(store.read(KEY)).count().orElseThrow().resetAt()).contains(at(500));
  }

  @Test
  void aWindowTheStoreStartedItselfLendsTwoUnitsUntilACountOfItArrives() {
    // Before: the whole quota at once (at 50 instances, a sliding window's fixed-window end let
    // 100 requests go together: 99 429s). A server need not give it all back at its reset.
    InMemoryQuotaStore store = store();
    now(store.observe(KEY, ServerCount.of(0, clock.instant(), at(300), 10,
        Duration.ofSeconds(1))));
    clock.advance(Duration.ofMillis(300));
    assertThat(now(store.lease(KEY, 1, 8)).granted()).isEqualTo(2);
    assertThat(now(store.lease(KEY, 1, 8)).granted()).isZero();
    // The first count of the window, within a second and with more left: newer news anyway.
    now(store.observe(KEY, ServerCount.of(9, at(20), at(1_000), 10, Duration.ofSeconds(1))));
    clock.advance(Duration.ofMillis(30));
    assertThat(now(store.lease(KEY, 1, 8)).granted()).as("9 less the 2 leased").isEqualTo(7);
  }

  @Test
  void aCountOfAProbeSentJustBeforeTheStoreStartedTheWindowReplacesIt() {
    // A token bucket's reset is when all is back (0.6 s for 99 of 100): the probe's count holds
    // for 10 ms before the window the store started (requests overtake each other). Before, it
    // was older news, and the fleet sent 2 requests per 2 minutes.
    InMemoryQuotaStore store = store();
    now(store.observe(KEY, ServerCount.of(0, clock.instant(), at(300), 100,
        Duration.ofMinutes(1))));
    clock.advance(Duration.ofMillis(300));
    assertThat(now(store.lease(KEY, 1, 8)).granted()).isEqualTo(2);
    now(store.observe(KEY, ServerCount.of(99, at(-10), at(600), 100, Duration.ofMinutes(1))));
    assertThat(now(store.lease(KEY, 1, 8)).granted()).isEqualTo(8);
  }

  @Test
  void aFirstCountOfAWindowTheStoreStartedHoldingLessThanHalfTheQuotaMakesTheKeyRefill() {
    // A sliding window's reset is the end of its fixed window; the previous window still weighs
    // at its start: 3 of 100 back. Before, the fleet waited for the next reset, a minute later
    // (5 instances on a sliding window: 57.6% goodput).
    InMemoryQuotaStore store = store();
    now(store.observe(KEY, ServerCount.of(0, clock.instant(), at(300), 100,
        Duration.ofMinutes(1))));
    clock.advance(Duration.ofMillis(300));
    assertThat(now(store.lease(KEY, 1, 8)).granted()).as("the probes").isEqualTo(2);
    clock.advance(Duration.ofMillis(50));
    SharedQuota state = now(store.observe(KEY, ServerCount.of(3, at(-20), at(59_950), 100,
        Duration.ofMinutes(1))));
    assertThat(state.refillRate()).as("quota per window, from now")
        .contains(new RefillRate(100, Duration.ofMinutes(1), clock.instant()));
    // 3 left, 2 leased: 1 now; one more every 0.6 s from the count's instant.
    assertThat(now(store.lease(KEY, 1, 8)).granted()).isEqualTo(1);
    assertThat(now(store.lease(KEY, 1, 8)).granted()).isZero();
    clock.advance(Duration.ofMillis(600));
    assertThat(now(store.lease(KEY, 1, 8)).granted()).isEqualTo(1);
  }

  @Test
  void aWindowTheStoreStartedThatTheServerGaveBackWholeOrACountOfTheOldWindowShowNoRefill() {
    InMemoryQuotaStore store = store();
    now(store.observe(KEY, ServerCount.of(0, clock.instant(), at(300), 100,
        Duration.ofMinutes(1))));
    clock.advance(Duration.ofMillis(300));
    // A probe sent just before the roll: 0 left of the old window (its reset at the start).
    now(store.observe(KEY, ServerCount.of(0, at(-10), at(0), 100, Duration.ofMinutes(1))));
    assertThat(now(store.read(KEY)).refillRate()).isEmpty();
    clock.advance(Duration.ofMillis(50));
    // A fixed window: 98 of 100 back (the probes took 2).
    SharedQuota state = now(store.observe(KEY, ServerCount.of(98, at(-20), at(59_950), 100,
        Duration.ofMinutes(1))));
    assertThat(state.refillRate()).isEmpty();
    assertThat(state.count().orElseThrow().remaining()).isEqualTo(98);
  }

  @Test
  void aSlowerRateToldLaterReplacesTheRateAndTheCountRefillsSlower() {
    // What a fleet's 429s do to the rate it shares: an instance tells a slower one, newer.
    InMemoryQuotaStore store = store();
    now(store.observe(KEY, ServerCount.of(0, clock.instant(), at(60_000), 100,
        Duration.ofMinutes(1))));
    now(store.learnRate(KEY, new RefillRate(100, Duration.ofMinutes(1), clock.instant())));
    RefillRate slowed = new RefillRate(100, Duration.ofMillis(61_875), at(1));
    now(store.learnRate(KEY, slowed));
    now(store.learnRate(KEY, new RefillRate(100, Duration.ofMinutes(1), at(-1))));
    clock.advance(Duration.ofMillis(600));
    SharedQuota state = now(store.read(KEY));
    assertThat(state.refillRate()).as("the newest, not the last told").contains(slowed);
    assertThat(state.available(clock.instant())).as("0.6 s: 1 unit at 100/min, 0 slower")
        .hasValue(0);
    clock.advance(Duration.ofMillis(19));
    assertThat(now(store.read(KEY)).available(clock.instant())).hasValue(1);
  }

  @Test
  void aCountWithAQuotaAndARateButNoResetIsABucketThatKeepsGivingUnitsBack() {
    // What a fleet keeps where the server gives no count (a 429 is 0 left): a bucket of 2 units
    // refilled at 1 unit per second. Before, the units taken stayed subtracted from a level
    // capped at the quota: once 2 were taken nothing came back until a fresher count.
    InMemoryQuotaStore store = store();
    InMemoryQuotaStore other = store.instance("other");
    now(store.observe(KEY, new ServerCount(0, clock.instant(), Optional.empty(),
        java.util.OptionalLong.of(2), Optional.of(Duration.ofHours(1)))));
    now(store.learnRate(KEY, new RefillRate(60, Duration.ofMinutes(1), clock.instant())));
    clock.advance(Duration.ofSeconds(30)); // 30 units back, but the bucket holds 2
    assertThat(now(store.read(KEY)).available(clock.instant())).hasValue(2);
    long granted = 0;
    for (int i = 0; i < 10; i++) {
      granted += now((i % 2 == 0 ? store : other).lease(KEY, 1, 1)).granted();
    }
    assertThat(granted).as("the bucket's 2, not the 30 the rate gave back").isEqualTo(2);
    clock.advance(Duration.ofMillis(999));
    assertThat(now(other.lease(KEY, 1, 1)).granted()).isZero();
    clock.advance(Duration.ofMillis(1));
    assertThat(now(other.lease(KEY, 1, 1)).granted()).as("one more a second later").isOne();
    for (int s = 0; s < 20; s++) {
      clock.advance(Duration.ofSeconds(1));
      Lease lease = now(store.lease(KEY, 1, 4));
      assertThat(lease.granted()).as("one a second, for good").isOne();
      now(store.spent(lease, 1, clock.instant()));
    }
  }

  @Test
  void withARefillRateTheCountGrowsAtItBetweenCountsAndLeasesAreNotCutAtTheReset() {
    // Before: a spent count of a refilling server gave nothing back until its reset, and then
    // the whole quota at once (a sliding window's reset is not when its quota is back).
    InMemoryQuotaStore store = store();
    InMemoryQuotaStore other = store.instance("other");
    now(store.observe(KEY, ServerCount.of(0, clock.instant(), at(30_000), 100,
        Duration.ofMinutes(1))));
    now(other.learnRate(KEY, new RefillRate(100, Duration.ofMinutes(1), clock.instant())));
    clock.advance(Duration.ofMillis(599));
    assertThat(now(store.lease(KEY, 1, 4)).granted()).as("0.599 s: no unit back yet").isZero();
    SharedQuota before = now(store.read(KEY));
    assertThat(before.available(clock.instant())).hasValue(0);
    assertThat(before.refilledAt(1)).contains(at(1));
    clock.advance(Duration.ofMillis(1));
    Lease one = now(store.lease(KEY, 1, 4));
    assertThat(one.granted()).as("one unit every 0.6 s, shared by 2 instances").isEqualTo(1);
    clock.advance(Duration.ofMillis(5_400)); // 6 s: 10 back, 1 taken
    assertThat(now(other.read(KEY)).available(clock.instant())).hasValue(9);
    Lease four = now(other.lease(KEY, 1, 4));
    assertThat(four.granted()).isEqualTo(4);
    assertThat(four.validUntil()).isEqualTo(clock.instant().plusSeconds(1));
    // Past the reset the count still refills from its instant (not the whole quota back).
    clock.advance(Duration.ofSeconds(25)); // 31 s: 51 back, 5 taken (the leases still count)
    SharedQuota late = now(store.read(KEY));
    assertThat(late.count()).isPresent();
    assertThat(late.available(clock.instant())).hasValue(46);
    assertThat(late.available()).as("without the rate").hasValue(0);
    // Up to the quota (less what is still taken); a period after it is all back, the count
    // gives way to a full window's.
    clock.advance(Duration.ofSeconds(60));
    assertThat(now(store.read(KEY)).available(clock.instant())).hasValue(95);
    clock.advance(Duration.ofSeconds(60));
    SharedQuota full = now(store.read(KEY));
    assertThat(full.count().orElseThrow().remaining()).isEqualTo(100);
    assertThat(full.available(clock.instant())).hasValue(100);
  }

  @Test
  void anInstanceNamedLikeTheBucketsKeepsItsLeasesApart() {
    // Before: the lease ids of an instance "e" were "e:<n>", taken for buckets of units sent.
    InMemoryQuotaStore e = store().instance("e");
    now(e.observe(KEY, count(10, at(0))));
    Lease lease = now(e.lease(KEY, 1, 4));
    assertThat(lease.granted()).isEqualTo(4);
    clock.advance(Duration.ofMillis(100));
    now(e.spent(lease, 4, at(-50)));
    now(e.observe(KEY, count(6, at(-20))));
    assertThat(now(e.read(KEY)).available()).hasValue(6);
  }

  @Test
  void aCountWhoseResetPassedWithoutAWindowExpires() {
    InMemoryQuotaStore store = store();
    now(store.observe(KEY, new ServerCount(5, clock.instant(), Optional.of(at(200)),
        java.util.OptionalLong.empty(), Optional.empty())));
    clock.advance(Duration.ofMillis(200));
    assertThat(now(store.read(KEY)).count()).isEmpty();
  }

  @Test
  void spentUnitsStayTakenUntilAFresherCountAndLeasesValidAfterItStayTaken() {
    InMemoryQuotaStore store = store();
    now(store.observe(KEY, ServerCount.of(20, clock.instant())));
    Lease early = now(store.lease(KEY, 4, 4));
    clock.advance(Duration.ofSeconds(2)); // early has ended: its units were spent after the count
    assertThat(now(store.read(KEY)).available()).hasValue(16);
    Lease late = now(store.lease(KEY, 3, 3));
    assertThat(early.validUntil()).isBefore(clock.instant());

    // A count observed now reflects everything spent before now, not the lease still valid.
    now(store.observe(KEY, ServerCount.of(15, clock.instant())));
    SharedQuota state = now(store.read(KEY));
    assertThat(state.taken()).isEqualTo(late.granted());
    assertThat(state.available()).hasValue(12);
  }

  @Test
  void anOlderCountDoesNotReplaceANewerOne() {
    InMemoryQuotaStore store = store();
    clock.advance(Duration.ofSeconds(5));
    now(store.observe(KEY, ServerCount.of(7, clock.instant())));
    SharedQuota state = now(store.observe(KEY, ServerCount.of(90, at(-1000))));
    assertThat(state.count().orElseThrow().remaining()).isEqualTo(7);
  }

  @Test
  void aCountFromTheFarFutureIsTakenAsObservedNow() {
    InMemoryQuotaStore store = store();
    now(store.observe(KEY, ServerCount.of(7, at(3_600_000))));
    SharedQuota state = now(store.observe(KEY, ServerCount.of(5, clock.instant())));
    assertThat(state.count().orElseThrow().remaining()).isEqualTo(5);
  }

  @Test
  void unusedUnitsGoBackOnceAndAReleaseOfADroppedLeaseIsHarmless() {
    InMemoryQuotaStore store = store();
    now(store.observe(KEY, ServerCount.of(10, clock.instant())));
    Lease lease = now(store.lease(KEY, 1, 6));
    assertThat(lease.granted()).isEqualTo(6);
    assertThat(now(store.release(lease, 4)).available()).hasValue(8);
    assertThat(now(store.release(lease, 100)).available()).hasValue(10);
    assertThat(now(store.release(lease, 1)).available()).hasValue(10);
    assertThatThrownBy(() -> store.release(lease, -1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unusedUnits");
  }

  @Test
  void oneInstancesHoldHoldsTheFleetOnlyExtendsAndEnds() {
    InMemoryQuotaStore a = store();
    InMemoryQuotaStore b = a.instance("b");
    now(a.observe(KEY, ServerCount.of(50, clock.instant())));
    now(a.hold(KEY, at(20_000)));
    now(a.hold(KEY, at(5_000)));
    Lease refused = now(b.lease(KEY, 1, 1));
    assertThat(refused.granted()).isZero();
    assertThat(refused.state().holdUntil()).contains(at(20_000));
    assertThat(refused.validUntil()).isEqualTo(at(20_000));
    assertThat(refused.state().heldAt(clock.instant())).isTrue();

    clock.advance(Duration.ofSeconds(20));
    assertThat(now(b.lease(KEY, 1, 1)).granted()).isEqualTo(1);
    assertThat(now(b.hold(KEY, at(Duration.ofDays(30).toMillis()))).holdUntil())
        .as("capped to a day").contains(at(Duration.ofDays(1).toMillis()));
  }

  @Test
  void aLearnedRateIsSharedNewestFirstAndForgottenAfterADay() {
    InMemoryQuotaStore a = store();
    InMemoryQuotaStore b = a.instance("b");
    RefillRate rate = new RefillRate(10, Duration.ofMinutes(1), clock.instant());
    now(a.learnRate(KEY, rate));
    now(a.learnRate(KEY, new RefillRate(99, Duration.ofMinutes(1), at(-1))));
    assertThat(now(b.read(KEY)).refillRate()).contains(rate);
    clock.advance(Duration.ofDays(1));
    assertThat(now(b.read(KEY)).refillRate()).isEmpty();
  }

  @Test
  void instancesThatMissTheirHeartbeatNoLongerShareLeases() {
    InMemoryQuotaStore a = store();
    for (int i = 0; i < 3; i++) {
      now(a.instance("other-" + i).read(KEY));
    }
    assertThat(now(a.read(KEY)).instances()).isEqualTo(4);
    clock.advance(Duration.ofSeconds(10));
    assertThat(now(a.read(KEY)).instances()).isEqualTo(1);
  }

  @Test
  void withARoundTripEachCallCompletesAfterItOnTheScheduler() {
    InMemoryQuotaStore store = InMemoryQuotaStore.builder()
        .clock(clock).roundTrip(Duration.ofMillis(1), clock).build();
    CompletableFuture<SharedQuota> observed =
        store.observe(KEY, ServerCount.of(3, clock.instant())).toCompletableFuture();
    CompletableFuture<Lease> lease = store.lease(KEY, 1, 3).toCompletableFuture();
    assertThat(observed).isNotDone();
    assertThat(lease).isNotDone();
    clock.advance(Duration.ofMillis(1));
    assertThat(observed).isDone();
    assertThat(lease.join().granted()).isEqualTo(3);
    assertThat(store.roundTrips()).isEqualTo(2);
  }

  @Test
  void anUnavailableOrClosedStoreFailsWithTheDocumentedException() {
    InMemoryQuotaStore store = InMemoryQuotaStore.builder()
        .clock(clock).roundTrip(Duration.ofMillis(1), clock).build();
    store.unavailable(true);
    CompletableFuture<Lease> lease = store.lease(KEY, 1, 1).toCompletableFuture();
    clock.advance(Duration.ofMillis(1));
    assertThatThrownBy(lease::join).isInstanceOf(CompletionException.class)
        .hasCauseInstanceOf(QuotaStoreException.class);
    store.unavailable(false);
    CompletableFuture<Lease> again = store.lease(KEY, 1, 1).toCompletableFuture();
    clock.advance(Duration.ofMillis(1));
    assertThat(again.join().granted()).isEqualTo(1);

    store.close();
    CompletableFuture<SharedQuota> closed = store.read(KEY).toCompletableFuture();
    clock.advance(Duration.ofMillis(1));
    assertThatThrownBy(closed::join).hasCauseInstanceOf(QuotaStoreException.class);
  }

  @Test
  void valuesAndConfigurationAreValidated() {
    InMemoryQuotaStore store = store();
    assertThatThrownBy(() -> store.lease(KEY, 0, 1)).hasMessageContaining("minUnits");
    assertThatThrownBy(() -> store.lease(KEY, 3, 2)).hasMessageContaining("maxUnits");
    assertThatThrownBy(() -> new QuotaKey("", "p")).hasMessageContaining("partition");
    assertThatThrownBy(() -> new QuotaKey("p", "a\nb")).hasMessageContaining("policy");
    assertThatThrownBy(() -> new QuotaKey("x".repeat(513), "p")).hasMessageContaining("512");
    assertThatThrownBy(() -> ServerCount.of(-1, clock.instant()))
        .hasMessageContaining("remaining");
    assertThatThrownBy(() -> ServerCount.of(1, clock.instant(), at(1), 0, Duration.ofSeconds(1)))
        .hasMessageContaining("quota");
    assertThatThrownBy(() -> ServerCount.of(1, clock.instant(), at(1), 1, Duration.ZERO))
        .hasMessageContaining("window");
    assertThatThrownBy(() -> new RefillRate(0, Duration.ofSeconds(1), clock.instant()))
        .hasMessageContaining("units");
    assertThatThrownBy(() -> InMemoryQuotaStore.builder().maxLeaseUnits(0))
        .hasMessageContaining("maxLeaseUnits");
    assertThatThrownBy(() -> InMemoryQuotaStore.builder().maxLeaseDuration(Duration.ZERO))
        .hasMessageContaining("maxLeaseDuration");
    assertThatThrownBy(() -> InMemoryQuotaStore.builder()
        .roundTrip(Duration.ofMillis(-1), clock)).hasMessageContaining("roundTrip");
  }

  @Test
  void theLeastRecentlyUsedKeysAreDroppedBeyondTheBound() {
    InMemoryQuotaStore store = InMemoryQuotaStore.builder().clock(clock).maxKeys(2).build();
    now(store.observe(KEY, ServerCount.of(5, clock.instant())));
    now(store.read(new QuotaKey("b", "p")));
    now(store.read(new QuotaKey("c", "p")));
    assertThat(now(store.read(KEY)).count()).isEmpty();
  }

  @Test
  void leasesBetweenTwoCountsAreNeverRefusedForTheirNumberAndTheirUnitsStayTaken() {
    InMemoryQuotaStore store = store();
    now(store.observe(KEY, ServerCount.of(1_000_000, clock.instant())));
    long granted = 0;
    for (int i = 0; i < 3 * InMemoryQuotaStore.MAX_LEASES_PER_KEY; i++) {
      Lease lease = now(store.lease(KEY, 1, 16));
      assertThat(lease.granted()).as("lease %d", i).isEqualTo(16);
      granted += lease.granted();
      clock.advance(Duration.ofMillis(i % 2 == 0 ? 30 : 1100));
    }
    assertThat(now(store.read(KEY)).taken()).isEqualTo(granted);
    now(store.observe(KEY, ServerCount.of(500, clock.instant())));
    assertThat(now(store.read(KEY)).taken()).as("all ended before the count").isZero();
  }
}
