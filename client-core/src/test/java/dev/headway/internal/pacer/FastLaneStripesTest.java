package dev.headway.internal.pacer;

import static dev.headway.internal.pacer.LaneFixture.GET;
import static dev.headway.internal.pacer.LaneFixture.hammer;
import static dev.headway.internal.pacer.LaneFixture.inLane;
import static dev.headway.internal.pacer.LaneFixture.limit;
import static dev.headway.internal.pacer.LaneFixture.partition;
import static dev.headway.internal.pacer.LaneFixture.policy;
import static dev.headway.internal.pacer.LaneFixture.seq;
import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
import dev.headway.PacingStrategy;
import dev.headway.Permit;
import dev.headway.testing.VirtualClock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The {@link FastLane}'s stripes: a thread takes a run of the lease's positions from the lane
 * with one CAS and then hands them out on its stripe; closing the lane empties every stripe,
 * gives back the units of the runs left unused, adopts what is still out and skips the unused
 * commit numbers without counting them as commits. Time is a virtual clock that does not move
 * unless told; the tests on one thread at a time are deterministic.
 */
@Timeout(60)
class FastLaneStripesTest {
  private static final int THREADS = 8;

  private final VirtualClock clock = VirtualClock.create();
  private final ExecutorService pool = Executors.newFixedThreadPool(THREADS + 1);

  @AfterEach
  void stop() throws InterruptedException {
    pool.shutdownNow();
    assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
  }

  private Pacer pacer() {
    return Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock).jitterSeed(3)
        .strategy(PacingStrategy.useAllThenWait()).permitLease(Duration.ofSeconds(10)).build();
  }

  /** Closes the lane (the monitor held) and returns how many commits the partition counts. */
  private static long commits(Partition base) {
    synchronized (base) {
      base.closeLane();
      return base.commits();
    }
  }

  /** A fresh lease of the whole lane: the lane closed, then opened by a monitor decision. */
  private static Permit freshLease(Pacer pacer, Partition base) throws Exception {
    commits(base);
    Permit opener = pacer.acquire(GET);
    assertThat(inLane(opener)).as("the monitor's").isFalse();
    assertThat(base.lane.left()).isEqualTo(FastLane.MAX_LEASE);
    return opener;
  }

  /** Teaches {@code pacer} a quota of 1000 with 1000 left, and opens its lane afresh. */
  private static Partition knownAndLeased(Pacer pacer) throws Exception {
    pacer.acquire(GET).complete(limit(1000, 1000));
    Partition base = partition(pacer);
    freshLease(pacer, base).release();
    return base;
  }

  /** Closes the lane: no unit stays in flight and none was spent. */
  private static void nothingLeaked(Pacer pacer, Partition base) {
    commits(base);
    assertThat(policy(pacer).inFlight()).as("nothing leaked").isZero();
    assertThat(policy(pacer).remaining()).hasValue(1000);
  }

  /** Acquires on a thread (started and joined: nothing runs at once) of another stripe. */
  private static Permit onAnotherStripe(Pacer pacer) throws Exception {
    @SuppressWarnings("deprecation")
    long mine = LaneStripe.index(Thread.currentThread().getId());
    AtomicReference<Permit> permit = new AtomicReference<>();
    AtomicReference<Exception> failed = new AtomicReference<>();
    while (true) {
      Thread other = new Thread(() -> {
        try {
          permit.set(pacer.acquire(GET));
        } catch (Exception e) {
          failed.set(e);
        }
      });
      @SuppressWarnings("deprecation")
      long its = LaneStripe.index(other.getId());
      if (its != mine) {
        other.start();
        other.join();
        if (failed.get() != null) {
          throw failed.get();
        }
        return permit.get();
      }
    }
  }

  @Test
  void aTakerReservesARunOfTheLeaseAndTakesTheRestFromItsStripe() throws Exception {
    Pacer pacer = pacer();
    Partition base = knownAndLeased(pacer);

    Permit first = pacer.acquire(GET);

    assertThat(inLane(first)).isTrue();
    assertThat(base.lane.unreserved()).as("one run reserved from the lane")
        .isEqualTo(FastLane.MAX_LEASE - LaneStripe.RUN);
    assertThat(base.lane.left()).as("the rest of the run is on the stripe")
        .isEqualTo(FastLane.MAX_LEASE - 1);
    for (int i = 1; i < LaneStripe.RUN; i++) {
      Permit permit = pacer.acquire(GET);
      assertThat(inLane(permit)).isTrue();
      assertThat(seq(permit)).isEqualTo(seq(first) + i);
      permit.release();
    }
    assertThat(base.lane.unreserved()).as("the run used up: the lane untouched")
        .isEqualTo(FastLane.MAX_LEASE - LaneStripe.RUN);

    Permit next = pacer.acquire(GET); // the stripe is empty: the next run

    assertThat(base.lane.unreserved()).isEqualTo(FastLane.MAX_LEASE - 2 * LaneStripe.RUN);
    assertThat(seq(next)).isEqualTo(seq(first) + LaneStripe.RUN);
    first.release();
    next.release();
    assertThat(policy(pacer).inFlight()).as("nothing leaked").isZero();
    assertThat(policy(pacer).remaining()).hasValue(1000);
  }

  @Test
  void aRunTakesAtMostHalfOfWhatIsLeftSoTheOtherStripesFindSome() throws Exception {
    Pacer pacer = pacer();
    pacer.acquire(GET).complete(limit(1000, 10));
    Partition base = partition(pacer);
    commits(base);
    Permit opener = pacer.acquire(GET); // the monitor's: a lease of the nine units left
    assertThat(base.lane.left()).isEqualTo(9);

    Permit first = pacer.acquire(GET);

    assertThat(inLane(first)).isTrue();
    assertThat(base.lane.unreserved()).as("a run of 4 of the 9").isEqualTo(5);
    opener.release();
    first.release();
    assertThat(policy(pacer).inFlight()).isZero();
  }

  @Test
  void nearTheEndOfALapARunGoesUpToItWhenTheLeaseOutlastsTheLap() throws Exception {
    Pacer pacer = pacer();
    Partition base = knownAndLeased(pacer);
    for (int i = 0; i < FastLane.SLOTS + 3 * LaneStripe.RUN; i++) {
      Permit permit = pacer.acquire(GET); // the first lap, then three runs of the second
      assertThat(inLane(permit)).isTrue();
      permit.release();
    }
    long left = base.lane.unreserved();
    assertThat(left).as("as many left as the second lap's positions")
        .isEqualTo(FastLane.SLOTS - 3 * LaneStripe.RUN);

    Permit last = pacer.acquire(GET);

    assertThat(base.lane.unreserved()).as("a whole run to the lap's end, not half of what is left")
        .isZero();
    assertThat(base.lane.left()).isEqualTo(left - 1);
    for (int i = 1; i < LaneStripe.RUN; i++) {
      pacer.acquire(GET).release();
    }
    last.release();

    Permit next = pacer.acquire(GET); // rolls to the third lap: the first lap's units come back

    assertThat(inLane(next)).isTrue();
    assertThat(base.lane.unreserved()).isEqualTo(FastLane.SLOTS - LaneStripe.RUN);
    next.release();
    nothingLeaked(pacer, base);
  }

  @Test
  void aFirstAcquireThatReachesTheMonitorAndFindsTheLaneOpenAgainTakesFromItWithoutClosingIt()
      throws Exception {
    Pacer pacer = pacer();
    Partition base = knownAndLeased(pacer);
    AtomicReference<Permit> late = new AtomicReference<>();
    AtomicReference<Exception> failed = new AtomicReference<>();
    Thread other = new Thread(() -> {
      try {
        late.set(pacer.acquire(GET));
      } catch (Exception e) {
        failed.set(e);
      }
    });
    Permit reopener;
    synchronized (base) {
      base.closeLane(); // the other thread finds the lane shut and waits for the monitor
      other.start();
      while (other.getState() != Thread.State.BLOCKED) {
        assertThat(other.isAlive()).as("waits for the monitor").isTrue();
        Thread.onSpinWait();
      }
      reopener = pacer.acquire(GET); // a decision under the monitor opens a new lease
      assertThat(inLane(reopener)).isFalse();
      assertThat(base.lane.left()).isEqualTo(FastLane.MAX_LEASE);
    }
    other.join();
    assertThat(failed.get()).isNull();

    assertThat(inLane(late.get())).as("taken from the lane under the monitor").isTrue();
    assertThat(base.lane.left()).as("the new lease kept, less the one taken")
        .isEqualTo(FastLane.MAX_LEASE - 1);
    assertThat(seq(late.get())).isEqualTo(seq(reopener) + 1);
    late.get().release();
    reopener.release();
    nothingLeaked(pacer, base);
  }

  @Test
  void aPartitionUsedByOneThreadMakesOneStripeAndOneAreaOfSlots() throws Exception {
    Pacer pacer = pacer();
    Partition base = knownAndLeased(pacer);
    for (int i = 0; i < 3 * FastLane.SLOTS; i++) {
      pacer.acquire(GET).release();
    }
    assertThat(base.lane.stripesMade()).isEqualTo(1);
    assertThat(base.lane.areasMade()).isEqualTo(1);

    Permit other = onAnotherStripe(pacer);

    assertThat(inLane(other)).isTrue();
    assertThat(base.lane.stripesMade()).as("the other thread's own").isEqualTo(2);
    assertThat(base.lane.areasMade()).isEqualTo(2);
    other.release();
    nothingLeaked(pacer, base);
  }

  @Test
  void aStripeCountsTheLapItWasToldAndIgnoresOlderLaps() {
    LaneStripe stripe = LaneStripe.at(LaneStripe.stripes(), 0);
    for (int i = 0; i < 3; i++) {
      stripe.countGiven(1000, false);
    }
    stripe.countGiven(1064, true);
    assertThat(stripe.givenIn(1000, false)).isEqualTo(3);
    assertThat(stripe.givenIn(1064, true)).as("the odd laps count apart").isEqualTo(1);

    stripe.countGiven(1128, false); // the next even lap replaces the count
    stripe.countGiven(1000, false); // a late permit of the older lap changes nothing

    assertThat(stripe.givenIn(1128, false)).isEqualTo(1);
    assertThat(stripe.givenIn(1000, false)).isZero();
  }

  @Test
  void permitsGivenBackByAnotherThreadStillLetTheLaneRollWithoutTheMonitor() throws Exception {
    Pacer pacer = pacer();
    Partition base = knownAndLeased(pacer);
    long handed = base.lane.handedOut();
    List<Permit> firstLap = new java.util.ArrayList<>();
    for (int i = 0; i < FastLane.SLOTS; i++) {
      firstLap.add(pacer.acquire(GET));
    }
    Thread releaser = new Thread(() -> firstLap.forEach(Permit::release));
    releaser.start();
    releaser.join();
    for (int i = 0; i < FastLane.SLOTS; i++) {
      pacer.acquire(GET).release(); // the second lap
    }

    Permit third = pacer.acquire(GET); // rolls: the first lap was given back, on another stripe

    assertThat(inLane(third)).isTrue();
    assertThat(base.lane.unreserved()).as("the first lap's units back in the lease")
        .isEqualTo(FastLane.SLOTS - LaneStripe.RUN);
    assertThat(base.lane.handedOut()).as("the lane never closed").isEqualTo(handed);
    third.release();
    nothingLeaked(pacer, base);
  }

  @Test
  void closingEmptiesTheStripesGivesBackTheirUnusedRunsAndSkipsTheirNumbers() throws Exception {
    assertThat(LaneStripe.COUNT).as("a lane has at least two stripes").isGreaterThan(1);
    Pacer pacer = pacer();
    Partition base = knownAndLeased(pacer);
    long before = commits(base);
    freshLease(pacer, base).release(); // one commit, the monitor's
    long handed = base.lane.handedOut();

    Permit a = pacer.acquire(GET); // run A: positions 0 to 15
    Permit b = onAnotherStripe(pacer); // run B: positions 16 to 31
    Permit c = pacer.acquire(GET); // run A: position 1
    assertThat(List.of(a, b, c)).allMatch(LaneFixture::inLane);
    assertThat(seq(b)).isEqualTo(seq(a) + LaneStripe.RUN);
    assertThat(seq(c)).isEqualTo(seq(a) + 1);
    assertThat(base.lane.left()).isEqualTo(FastLane.MAX_LEASE - 3);

    // A snapshot closes the lane: 14 + 15 positions of the runs unused.
    assertThat(policy(pacer).inFlight()).as("only the three out").isEqualTo(3);
    assertThat(List.of(a, b, c)).as("adopted").noneMatch(LaneFixture::inLane);
    assertThat(base.lane.handedOut() - handed).isEqualTo(3);
    assertThat(commits(base) - before).as("the skipped numbers are no commits").isEqualTo(4);
    Permit next = pacer.acquire(GET); // the monitor's
    assertThat(inLane(next)).isFalse();
    assertThat(seq(next)).as("after the last position taken: run B's rest is skipped")
        .isEqualTo(seq(b) + 1);
    for (Permit p : List.of(a, b, c, next)) {
      p.release();
    }
    assertThat(policy(pacer).inFlight()).as("nothing leaked").isZero();
    assertThat(policy(pacer).remaining()).hasValue(1000);
  }

  @Test
  void aPermitGivenBackToAStripeThenClosedLeavesFlightOnceAndAnAdoptedOneThroughTheMonitor()
      throws Exception {
    Pacer pacer = pacer();
    Partition base = knownAndLeased(pacer);
    Permit given = pacer.acquire(GET);
    Permit kept = pacer.acquire(GET);
    given.release();
    assertThat(((PermitImpl) given).state).isEqualTo(PermitImpl.GIVEN);

    assertThat(policy(pacer).inFlight()).as("closed: the given one left with the lease")
        .isEqualTo(1);

    assertThat(((PermitImpl) kept).live).as("adopted").isTrue();
    given.release(); // twice: nothing
    kept.release(); // into a closed stripe: through the monitor
    kept.release();
    assertThat(policy(pacer).inFlight()).isZero();
    commits(base);
    assertThat(policy(pacer).inFlight()).isZero();
    assertThat(policy(pacer).remaining()).hasValue(1000);
  }

  @Test
  void eightThreadsOnTheirStripesWhileSnapshotsCloseTheLaneCountEveryCommitOnceAndLeakNothing()
      throws Exception {
    Pacer pacer = pacer();
    pacer.acquire(GET).complete(limit(1_000_000, 1_000_000));
    Partition base = partition(pacer);
    long before = commits(base);
    List<Long> seqs = hammer(pool, pacer, THREADS, 5_000);

    assertThat(seqs).as("every permit has its own commit number").doesNotHaveDuplicates();
    assertThat(commits(base) - before).as("every permit counted once, no skipped number")
        .isEqualTo(seqs.size());
    assertThat(base.lane.left()).isZero();
    assertThat(policy(pacer).inFlight()).as("the lane's units in flight back to 0").isZero();
    assertThat(policy(pacer).remaining()).hasValue(1_000_000);
  }
}
