package dev.headway.internal.pacer;

import static dev.headway.internal.pacer.LaneFixture.GET;
import static dev.headway.internal.pacer.LaneFixture.hammer;
import static dev.headway.internal.pacer.LaneFixture.ITEMS;
import static dev.headway.internal.pacer.LaneFixture.inLane;
import static dev.headway.internal.pacer.LaneFixture.limit;
import static dev.headway.internal.pacer.LaneFixture.partition;
import static dev.headway.internal.pacer.LaneFixture.policy;
import static dev.headway.internal.pacer.LaneFixture.seq;
import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
import dev.headway.PacerEvent;
import dev.headway.PacingStrategy;
import dev.headway.Permit;
import dev.headway.testing.VirtualClock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The {@link FastLane}'s laps: once a lap's slots are used up the lane rolls to the next with a
 * CAS, without the partition's monitor, as long as every permit of the lap before has ended; a
 * permit still out keeps its slot and sends the next acquire to the monitor, which adopts it.
 * Rolling must never mint a unit, reuse a commit number, lose a permit still out, or keep a
 * leaked one from being reclaimed. Time is a virtual clock that does not move unless told.
 */
@Timeout(60)
class FastLaneLapsTest {
  private static final int THREADS = 8;

  private final VirtualClock clock = VirtualClock.create();
  private final ExecutorService pool = Executors.newFixedThreadPool(THREADS + 1);
  private final ConcurrentLinkedQueue<PacerEvent> events = new ConcurrentLinkedQueue<>();

  @AfterEach
  void stop() throws InterruptedException {
    pool.shutdownNow();
    assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
  }

  private Pacer pacer() {
    return Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock).jitterSeed(3)
        .strategy(PacingStrategy.useAllThenWait()).permitLease(Duration.ofSeconds(10))
        .listener(events::add).build();
  }

  private static long handedOut(Partition base) {
    synchronized (base) {
      base.closeLane();
      return base.lane.handedOut();
    }
  }

  @Test
  void permitsReleasedInTurnGoThroughTheLaneLapAfterLapWithConsecutiveCommitNumbers()
      throws Exception {
    Pacer pacer = pacer();
    pacer.acquire(GET).complete(limit(1000, 1000));
    Partition base = partition(pacer);
    assertThat(base.lane.isOpen()).isTrue();
    long before = handedOut(base);
    Permit first = pacer.acquire(GET); // the monitor's: it opens the lane
    long firstSeq = seq(first);
    first.release();

    for (int i = 1; i < 20 * FastLane.SLOTS; i++) {
      Permit permit = pacer.acquire(GET);
      assertThat(inLane(permit)).as("permit %d through the lane", i).isTrue();
      assertThat(seq(permit)).as("commit number of permit %d", i).isEqualTo(firstSeq + i);
      permit.release();
    }

    assertThat(handedOut(base) - before).isEqualTo(20 * FastLane.SLOTS - 1);
    assertThat(policy(pacer).inFlight()).isZero();
    assertThat(policy(pacer).remaining()).hasValue(1000);
    Permit next = pacer.acquire(GET);
    assertThat(seq(next)).as("the monitor goes on after the lane's numbers")
        .isEqualTo(firstSeq + 20 * FastLane.SLOTS);
    next.release();
  }

  @Test
  void aPermitStillOutKeepsItsSlotTheMonitorAdoptsItAndTheLaneGoesOn() throws Exception {
    Pacer pacer = pacer();
    pacer.acquire(GET).complete(limit(1000, 1000));
    Partition base = partition(pacer);
    Permit held = pacer.acquire(GET); // lap 0, slot 0
    assertThat(inLane(held)).isTrue();
    // The rest of lap 0 and all of lap 1: lap 1 could roll (lap 0's half is not reused yet).
    for (int i = 1; i < 2 * FastLane.SLOTS; i++) {
      Permit permit = pacer.acquire(GET);
      assertThat(inLane(permit)).as("permit %d", i).isTrue();
      permit.release();
    }
    assertThat(inLane(held)).as("nothing closed the lane yet").isTrue();

    // Lap 2 would reuse lap 0's half, where held is still out: the monitor decides.
    Permit blocked = pacer.acquire(GET);

    assertThat(inLane(blocked)).isFalse();
    assertThat(inLane(held)).as("adopted").isFalse();
    assertThat(((PermitImpl) held).live).as("in the list of live permits").isTrue();
    assertThat(seq(blocked)).isEqualTo(seq(held) + 2 * FastLane.SLOTS);
    assertThat(policy(pacer).inFlight()).isEqualTo(2);
    blocked.release();
    Permit again = pacer.acquire(GET);
    assertThat(inLane(again)).as("a new lane").isTrue();
    again.release();
    held.release();
    assertThat(policy(pacer).inFlight()).as("nothing leaked").isZero();
    assertThat(policy(pacer).remaining()).hasValue(1000);
  }

  @Test
  void aLeakedPermitOfAnOldLapIsReclaimedAfterItsLeaseOnce() throws Exception {
    Pacer pacer = pacer();
    pacer.acquire(GET).complete(limit(1_000_000, 1_000_000));
    Partition base = partition(pacer);
    Permit leaked = pacer.acquire(GET);
    assertThat(inLane(leaked)).isTrue();
    for (int i = 0; i < 10 * FastLane.SLOTS; i++) {
      pacer.acquire(GET).release();
    }
    assertThat(inLane(leaked)).as("adopted when the lap could not roll").isFalse();
    clock.advance(Duration.ofMillis(9_999));
    pacer.acquire(GET).release();
    assertThat(events).noneMatch(e -> e instanceof PacerEvent.PermitExpired);
    clock.advance(Duration.ofMillis(1));

    Permit next = pacer.acquire(GET);

    assertThat(events).filteredOn(e -> e instanceof PacerEvent.PermitExpired)
        .singleElement().isEqualTo(new PacerEvent.PermitExpired(base.key,
            Duration.ofSeconds(10)));
    assertThat(policy(pacer).inFlight()).as("only the new permit").isEqualTo(1);
    leaked.release();
    next.release();
    assertThat(policy(pacer).inFlight()).isZero();
    assertThat(policy(pacer).remaining()).hasValue(1_000_000);
  }

  @Test
  void threadsKeepingAFewPermitsEachNeverHoldMoreThanTheUnitsLeftAcrossLaps() throws Exception {
    Pacer pacer = pacer();
    int units = 20;
    pacer.acquire(GET).complete(limit(1000, units));
    Partition base = partition(pacer);
    assertThat(base.lane.isOpen()).isTrue();
    long before = handedOut(base);
    AtomicInteger out = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    AtomicInteger granted = new AtomicInteger();
    AtomicBoolean running = new AtomicBoolean(true);
    CountDownLatch start = new CountDownLatch(1);
    List<Future<long[]>> done = new ArrayList<>();
    for (int t = 0; t < THREADS; t++) {
      int keep = 1 + t % 4; // 1 to 4 each: up to 20 wanted at once, the units left
      done.add(pool.submit(() -> {
        start.await();
        ArrayDeque<Permit> mine = new ArrayDeque<>();
        long[] seqs = new long[20_000];
        int n = 0;
        for (int i = 0; i < 20_000; i++) {
          Optional<Permit> permit = pacer.tryAcquire(GET);
          if (permit.isPresent()) {
            int now = out.incrementAndGet();
            most.accumulateAndGet(now, Math::max);
            seqs[n++] = seq(permit.get());
            mine.add(permit.get());
          }
          if (mine.size() >= keep || (permit.isEmpty() && !mine.isEmpty())) {
            out.decrementAndGet();
            mine.poll().release();
          }
        }
        while (!mine.isEmpty()) {
          out.decrementAndGet();
          mine.poll().release();
        }
        granted.addAndGet(n);
        return Arrays.copyOf(seqs, n);
      }));
    }
    // A snapshot now and then closes the lane under the monitor while the others roll it.
    Future<?> looker = pool.submit(() -> {
      start.await();
      while (running.get()) {
        pacer.quota(ITEMS);
        Thread.yield();
      }
      return null;
    });
    start.countDown();
    List<Long> seqs = new ArrayList<>();
    for (Future<long[]> f : done) {
      for (long seq : f.get(30, TimeUnit.SECONDS)) {
        seqs.add(seq);
      }
    }
    running.set(false);
    looker.get(10, TimeUnit.SECONDS);

    assertThat(most.get()).as("never more permits out than units left").isLessThanOrEqualTo(
        units);
    assertThat(seqs).as("every permit has its own commit number").doesNotHaveDuplicates();
    assertThat(granted.get()).isPositive();
    assertThat(handedOut(base) - before).as("the lane handed out most")
        .isGreaterThanOrEqualTo(granted.get() / 2);
    assertThat(policy(pacer).inFlight()).as("nothing leaked").isZero();
    assertThat(policy(pacer).remaining()).hasValue(units);
  }

  @Test
  void unitsGivenBackReturnToTheLeaseWhenTheirHalfOfTheSlotsIsReused() throws Exception {
    Pacer pacer = pacer();
    pacer.acquire(GET).complete(limit(1000, 1000));
    Partition base = partition(pacer);
    handedOut(base); // closes the lane: the next acquire opens a fresh lease at lap 0
    Permit opener = pacer.acquire(GET);
    assertThat(inLane(opener)).as("the monitor's").isFalse();
    opener.release();
    assertThat(base.lane.left()).isEqualTo(FastLane.MAX_LEASE);

    for (int i = 0; i < 2 * FastLane.SLOTS; i++) {
      Permit permit = pacer.acquire(GET);
      assertThat(inLane(permit)).as("permit %d through the lane", i).isTrue();
      permit.release();
      assertThat(((PermitImpl) permit).state).isEqualTo(PermitImpl.GIVEN);
    }
    assertThat(base.lane.left()).as("given back, not yet returned").isZero();

    Permit held = pacer.acquire(GET); // rolls to lap 2, reusing lap 0's half

    assertThat(inLane(held)).isTrue();
    assertThat(base.lane.left()).as("lap 0's units back, one taken").isEqualTo(
        FastLane.SLOTS - 1);
    // A snapshot closes the lane: lap 1's given-back units and the units left leave flight,
    // the held permit is adopted.
    assertThat(policy(pacer).inFlight()).isEqualTo(1);
    assertThat(((PermitImpl) held).live).isTrue();
    held.release();
    assertThat(policy(pacer).inFlight()).as("nothing leaked").isZero();
    assertThat(policy(pacer).remaining()).hasValue(1000);
  }

  @Test
  void aSmallLeaseRunsOutThenTheMonitorOpensANewOneWithTheUnitsGivenBack() throws Exception {
    Pacer pacer = pacer();
    pacer.acquire(GET).complete(limit(1000, 10));
    Partition base = partition(pacer);
    handedOut(base);
    long firstSeq = -1;
    int throughMonitor = 0;
    for (int i = 0; i < 100; i++) {
      Permit permit = pacer.acquire(GET);
      if (i == 0) {
        firstSeq = seq(permit);
      }
      assertThat(seq(permit)).as("commit number of permit %d", i).isEqualTo(firstSeq + i);
      if (!inLane(permit)) {
        throughMonitor++;
      }
      permit.release();
    }
    // Ten units: the monitor's permit, then a lease of nine each time.
    assertThat(throughMonitor).isEqualTo(10);
    assertThat(policy(pacer).inFlight()).isZero();
    assertThat(policy(pacer).remaining()).hasValue(10);
  }

  @Test
  void eightThreadsRollingLapsWithAHugeLeaseNeverShareACommitNumberNorLeakAUnit()
      throws Exception {
    Pacer pacer = pacer();
    pacer.acquire(GET).complete(limit(1_000_000, 1_000_000));
    Partition base = partition(pacer);
    long before = handedOut(base);
    List<Long> seqs = hammer(pool, pacer, THREADS, 20_000);

    assertThat(seqs).as("every permit has its own commit number").doesNotHaveDuplicates();
    assertThat(handedOut(base) - before).as("the lane handed out most")
        .isGreaterThanOrEqualTo(seqs.size() / 2);
    assertThat(policy(pacer).inFlight()).as("nothing leaked").isZero();
    assertThat(policy(pacer).remaining()).hasValue(1_000_000);
  }

  @Test
  void theLaneMarksItsPartitionUsedAtMostOncePerMillisecond() throws Exception {
    Pacer pacer = pacer();
    pacer.acquire(GET).complete(limit(1000, 1000));
    Partition base = partition(pacer);
    clock.advance(Duration.ofMillis(5));
    Permit first = pacer.acquire(GET);
    assertThat(inLane(first)).isTrue();
    long marked = base.lastUsedNanos;
    assertThat(marked).isEqualTo(clock.read());
    clock.advance(Duration.ofNanos(Partition.TOUCH_NANOS - 1));
    pacer.acquire(GET).release();
    assertThat(base.lastUsedNanos).as("within the granularity: not written").isEqualTo(marked);
    clock.advance(Duration.ofNanos(1));
    pacer.acquire(GET).release();
    assertThat(base.lastUsedNanos).isEqualTo(clock.read());
    first.release();
  }
}
