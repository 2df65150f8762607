package dev.headway.internal.pacer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.ClientPolicy;
import dev.headway.Pacer;
import dev.headway.PacerEvent;
import dev.headway.PacingStrategy;
import dev.headway.Permit;
import dev.headway.PolicySnapshot;
import dev.headway.QuotaLimit;
import dev.headway.QuotaPolicy;
import dev.headway.QuotaUnit;
import dev.headway.RateLimitSignal;
import dev.headway.RequestInfo;
import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
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
 * The lock-free lane (see {@link FastLane}) against the races it introduces and the rules it
 * must keep: threads racing through it for the last units, responses and holds arriving while it
 * hands permits out, a reset instant, permits whose lane closed before they ended, a leaked lane
 * permit (reclaimed after its lease), eviction of a partition whose lane handed out a permit,
 * routes. Time is a virtual clock that does not move unless told: every figure is exact.
 */
@Timeout(60)
class FastLaneTest {
  private static final URI ITEMS = URI.create("https://api.example.com/items");
  private static final RequestInfo GET = RequestInfo.get(ITEMS);
  private static final int THREADS = 8;

  private final VirtualClock clock = VirtualClock.create();
  private final ExecutorService pool = Executors.newFixedThreadPool(THREADS);
  private final ConcurrentLinkedQueue<PacerEvent> events = new ConcurrentLinkedQueue<>();

  @AfterEach
  void stop() throws InterruptedException {
    pool.shutdownNow();
    assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
  }

  private Pacer.Builder builder(PacingStrategy strategy) {
    return Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock).jitterSeed(3)
        .strategy(strategy).listener(events::add);
  }

  private Pacer pacer(PacingStrategy strategy) {
    return builder(strategy).build();
  }

  private static RateLimitSignal limit(int status, long quota, long remaining, long reset) {
    return limit(status, "default", quota, remaining, reset);
  }

  private static RateLimitSignal limit(int status, String policy, long quota, long remaining,
      long reset) {
    return new RateLimitSignal(status,
        List.of(new QuotaPolicy(policy, quota, QuotaUnit.REQUESTS,
            Optional.of(Duration.ofSeconds(60)), Optional.empty(), "ietf")),
        List.of(new QuotaLimit(policy, remaining, Optional.of(Duration.ofSeconds(reset)),
            Optional.empty(), "ietf")),
        Optional.empty(), Optional.empty(), Optional.empty(), List.of(), List.of("ietf"),
        List.of(), status == 429);
  }

  private static RateLimitSignal throttled(Duration retryAfter) {
    return new RateLimitSignal(429, List.of(), List.of(), Optional.of(retryAfter),
        Optional.empty(), Optional.empty(), List.of(), List.of("test"), List.of(), true);
  }

  private static Partition partition(Pacer pacer) throws Exception {
    Permit permit = pacer.acquire(GET);
    Partition base = ((PermitImpl) permit).base;
    permit.release();
    return base;
  }

  private static boolean inLane(Permit permit) {
    return ((PermitImpl) permit).state == PermitImpl.LANE;
  }

  /** Closes the lane (a snapshot does) and returns how many permits it handed out so far. */
  private static long handedOut(Pacer pacer, Partition base) {
    pacer.quota(ITEMS);
    synchronized (base) {
      base.closeLane();
      return base.lane.handedOut();
    }
  }

  private static PolicySnapshot policy(Pacer pacer) {
    return pacer.quota(ITEMS).policy("default").orElseThrow();
  }

  /** Every thread takes permits (and keeps them) until refused; returns all granted. */
  private List<Permit> race(Pacer pacer) throws Exception {
    CountDownLatch start = new CountDownLatch(1);
    ConcurrentLinkedQueue<Permit> granted = new ConcurrentLinkedQueue<>();
    List<Future<?>> done = new ArrayList<>();
    for (int t = 0; t < THREADS; t++) {
      done.add(pool.submit(() -> {
        start.await();
        Optional<Permit> permit;
        while ((permit = pacer.tryAcquire(GET)).isPresent()) {
          granted.add(permit.get());
        }
        return null;
      }));
    }
    start.countDown();
    for (Future<?> f : done) {
      f.get(30, TimeUnit.SECONDS);
    }
    return new ArrayList<>(granted);
  }

  @Test
  void threadsRacingThroughTheLaneForTheLastUnitsGetExactlyThem() throws Exception {
    Pacer pacer = pacer(PacingStrategy.useAllThenWait());
    pacer.acquire(GET).complete(limit(200, 1000, 300, 60));
    Partition base = partition(pacer);
    assertThat(base.lane.isOpen()).isTrue();
    long before = handedOut(pacer, base);

    List<Permit> granted = race(pacer);

    assertThat(granted).as("exactly the 300 units left, no unit twice").hasSize(300);
    assertThat(handedOut(pacer, base) - before).as("most went through the lane")
        .isGreaterThanOrEqualTo(150);
    assertThat(granted.stream().map(p -> ((PermitImpl) p).seq).distinct().count())
        .as("every permit has its own commit sequence").isEqualTo(300);
    assertThat(policy(pacer).remaining()).hasValue(0);
    assertThat(policy(pacer).inFlight()).isEqualTo(300);
    granted.forEach(Permit::release);
    assertThat(policy(pacer).inFlight()).as("nothing leaked by the lane").isZero();
    assertThat(policy(pacer).remaining()).hasValue(300);
  }

  @Test
  void aRefillingServersPartitionGoesThroughTheLaneUpToWhatTheCountLeaves() throws Exception {
    // A count that does not drop after a request: the server gives units back continuously,
    // and the policy is paced at its refill rate. A permit goes now while what is in flight
    // fits in the count (and the quota): the lane hands out exactly those.
    Pacer pacer = pacer(PacingStrategy.burstThenSpread(0.2));
    pacer.acquire(GET).complete(limit(200, 1000, 300, 60));
    clock.advance(Duration.ofSeconds(1));
    pacer.acquire(GET).complete(limit(200, 1000, 300, 59));
    Partition base = partition(pacer);
    synchronized (base) {
      assertThat(base.policies()).singleElement()
          .matches(p -> ((ServerPolicy) p).refillPaced(), "paced at its refill rate");
    }
    assertThat(base.lane.isOpen()).as("open after the response").isTrue();
    long before = handedOut(pacer, base);

    List<Permit> granted = race(pacer);

    assertThat(granted).as("exactly the 300 units the count leaves, no unit twice").hasSize(300);
    assertThat(handedOut(pacer, base) - before).as("most went through the lane")
        .isGreaterThanOrEqualTo(150);
    assertThat(pacer.tryAcquire(GET)).as("nothing in flight has answered").isEmpty();
    granted.forEach(Permit::release);
    assertThat(policy(pacer).inFlight()).as("nothing leaked by the lane").isZero();
  }

  @Test
  void theLaneKeepsHandingOutPermitsAcrossItsGenerationsSignBitAndWrap() throws Exception {
    // Every response closes the lane and opens it again: two generations a call. A client
    // making 500,000 calls a second reaches generation 2^23 (the sign bit of a run's word) in
    // 8 seconds and the wrap of the generation's 24 bits in 17. Each lap around those numbers
    // must still go through the lane, and closing must find every permit it handed out.
    Pacer pacer = pacer(PacingStrategy.useAllThenWait());
    pacer.acquire(GET).complete(limit(200, 1_000_000, 1_000_000, 60));
    Partition base = partition(pacer);
    long[] starts = {(1L << 23) - 4, (1L << 24) - 4};
    for (long start : starts) {
      synchronized (base) {
        base.closeLane();
        base.lane.state = start << FastLane.GEN_SHIFT; // closed (even), just before the edge
      }
      Future<Integer> viaLane = pool.submit(() -> {
        int lane = 0;
        for (int i = 0; i < 8; i++) {
          Permit permit = pacer.acquire(GET);
          lane += inLane(permit) ? 1 : 0;
          permit.complete(limit(200, 1_000_000, 1_000_000 - i, 60)); // closes, then reopens
        }
        return lane;
      });
      assertThat(viaLane.get(10, TimeUnit.SECONDS))
          .as("calls through the lane around generation %d", start + 4).isGreaterThanOrEqualTo(7);
    }
    assertThat(policy(pacer).inFlight()).isZero();
  }

  @Test
  void theLaneStopsWhereTheDefaultStrategyStartsSpacingAsTheMonitorWould() throws Exception {
    // burstThenSpread(0.2) of q=1000: no gap while more than 200 are left. The permit that
    // finds exactly 200 still goes now but moves the cursor; the next would wait.
    Pacer pacer = pacer(PacingStrategy.burstThenSpread(0.2));
    pacer.acquire(GET).complete(limit(200, 1000, 300, 60));
    Partition base = partition(pacer);
    assertThat(base.lane.isOpen()).isTrue();
    long before = handedOut(pacer, base);

    List<Permit> granted = race(pacer);

    assertThat(granted).hasSize(101);
    assertThat(handedOut(pacer, base) - before).isGreaterThanOrEqualTo(50);
    assertThat(pacer.tryAcquire(GET)).as("spacing now").isEmpty();
    granted.forEach(Permit::release);
    assertThat(policy(pacer).inFlight()).isZero();
  }

  @Test
  void aResponseSayingSpentStopsTheLaneForEveryAcquireThatStartsAfterIt() throws Exception {
    Pacer pacer = pacer(PacingStrategy.useAllThenWait());
    pacer.acquire(GET).complete(limit(200, 1_000_000, 1_000_000, 60));
    assertThat(partition(pacer).lane.isOpen()).isTrue();
    Permit answered = pacer.acquire(GET);
    AtomicBoolean applied = new AtomicBoolean();
    AtomicInteger after = new AtomicInteger();
    AtomicInteger before = new AtomicInteger();
    CountDownLatch running = new CountDownLatch(THREADS);
    List<Future<?>> done = new ArrayList<>();
    for (int t = 0; t < THREADS; t++) {
      done.add(pool.submit(() -> {
        running.countDown();
        for (int i = 0; i < 20_000; i++) {
          boolean late = applied.get();
          Optional<Permit> permit = pacer.tryAcquire(GET);
          if (permit.isPresent()) {
            (late ? after : before).incrementAndGet();
            permit.get().release();
          }
        }
        return null;
      }));
    }
    running.await();
    answered.complete(limit(200, 1_000_000, 0, 60)); // spent until the reset
    applied.set(true);
    for (Future<?> f : done) {
      f.get(30, TimeUnit.SECONDS);
    }

    assertThat(before.get()).as("the race ran through the lane").isPositive();
    assertThat(after.get()).as("granted after the server said spent").isZero();
    assertThat(pacer.tryAcquire(GET)).isEmpty();
    assertThat(policy(pacer).inFlight()).as("nothing leaked by the lane").isZero();
    assertThat(policy(pacer).remaining()).hasValue(0);
  }

  @Test
  void aHoldSetWhileTheLaneHandsOutPermitsStopsItUntilTheHoldEnds() throws Exception {
    Pacer pacer = pacer(PacingStrategy.useAllThenWait());
    pacer.acquire(GET).complete(limit(200, 1_000_000, 1_000_000, 60));
    assertThat(partition(pacer).lane.isOpen()).isTrue();
    Permit throttledOne = pacer.acquire(GET);
    AtomicBoolean held = new AtomicBoolean();
    AtomicInteger after = new AtomicInteger();
    AtomicInteger before = new AtomicInteger();
    CountDownLatch running = new CountDownLatch(THREADS);
    List<Future<?>> done = new ArrayList<>();
    for (int t = 0; t < THREADS; t++) {
      done.add(pool.submit(() -> {
        running.countDown();
        for (int i = 0; i < 20_000; i++) {
          boolean late = held.get();
          Optional<Permit> permit = pacer.tryAcquire(GET);
          if (permit.isPresent()) {
            (late ? after : before).incrementAndGet();
            permit.get().release();
          }
        }
        return null;
      }));
    }
    running.await();
    throttledOne.complete(throttled(Duration.ofSeconds(10)));
    held.set(true);
    for (Future<?> f : done) {
      f.get(30, TimeUnit.SECONDS);
    }

    assertThat(before.get()).isPositive();
    assertThat(after.get()).as("granted during the hold").isZero();
    assertThat(pacer.quota(ITEMS).heldFor()).isPresent();
    assertThat(policy(pacer).inFlight()).isZero();
    clock.advance(Duration.ofSeconds(12)); // past the hold and its jitter
    assertThat(pacer.tryAcquire(GET)).as("a probe after the hold").isPresent();
  }

  @Test
  void atTheResetInstantTheLaneIsShutAndOnlyTheProbesGo() throws Exception {
    Pacer pacer = pacer(PacingStrategy.useAllThenWait());
    pacer.acquire(GET).complete(limit(200, 100, 100, 60));
    Partition base = partition(pacer);
    assertThat(base.lane.isOpen()).isTrue();
    clock.advance(Duration.ofSeconds(60)); // the reset instant: not confirmed by the server
    long before = handedOut(pacer, base);

    List<Permit> granted = race(pacer);

    assertThat(granted).as("the probes (2) and no more").hasSize(2);
    assertThat(handedOut(pacer, base) - before).isZero();
  }

  @Test
  void aPermitWhoseLaneClosedBeforeItEndedIsAdoptedAndLeavesFlightUnderTheMonitor()
      throws Exception {
    Pacer pacer = pacer(PacingStrategy.useAllThenWait());
    pacer.acquire(GET).complete(limit(200, 1000, 1000, 60));
    Partition base = partition(pacer);
    Permit a = pacer.acquire(GET);
    Permit b = pacer.acquire(GET);
    assertThat(inLane(a)).isTrue();
    // A snapshot closes the lane (exact figures: a and b are adopted), then opens a new one.
    assertThat(policy(pacer).inFlight()).isEqualTo(2);
    assertThat(inLane(a)).as("adopted").isFalse();
    assertThat(((PermitImpl) a).live).as("in the list of live permits").isTrue();
    assertThat(base.lane.isOpen()).isTrue();
    Permit c = pacer.acquire(GET);
    Permit d = pacer.acquire(GET);
    assertThat(inLane(d)).isTrue();
    a.release(); // adopted: under the monitor
    b.complete(limit(200, 1000, 990, 60)); // closes c's and d's lane, opens another
    d.release(); // adopted too
    assertThat(policy(pacer).inFlight()).isEqualTo(1);
    assertThat(policy(pacer).remaining()).hasValue(989);
    long left = base.lane.left();
    Permit e = pacer.acquire(GET);
    assertThat(base.lane.left()).isEqualTo(left - 1);
    e.release(); // its lane is still open: given back with one CAS on the permit alone
    assertThat(((PermitImpl) e).state).isEqualTo(PermitImpl.GIVEN);
    assertThat(base.lane.left()).as("its units return when its slot is reused")
        .isEqualTo(left - 1);
    c.release();
    assertThat(policy(pacer).inFlight()).isZero();
    assertThat(policy(pacer).remaining()).hasValue(990);
  }

  @Test
  void aLanePermitThatEndedBeforeItsLaneClosedIsNotAdopted() throws Exception {
    Pacer pacer = pacer(PacingStrategy.useAllThenWait());
    pacer.acquire(GET).complete(limit(200, 1000, 1000, 60));
    Partition base = partition(pacer);
    Permit a = pacer.acquire(GET);
    assertThat(inLane(a)).isTrue();
    a.complete(limit(200, 1000, 998, 60)); // ends, then closes the lane under the monitor
    assertThat(((PermitImpl) a).live).isFalse();
    assertThat(policy(pacer).inFlight()).isZero();
    assertThat(policy(pacer).remaining()).hasValue(998);
    assertThat(base.lane.isOpen()).as("reopened after the response").isTrue();
  }

  @Test
  void aLanePermitNeverEndedIsReclaimedAfterItsLease() throws Exception {
    Pacer pacer = builder(PacingStrategy.useAllThenWait())
        .permitLease(Duration.ofSeconds(10)).build();
    pacer.acquire(GET).complete(limit(200, 1_000_000, 1_000_000, 600));
    Partition base = partition(pacer);
    clock.advance(Duration.ofSeconds(1));
    Permit leaked = pacer.acquire(GET);
    assertThat(inLane(leaked)).isTrue();
    // Busy traffic through the lane meanwhile: it must not keep the leak alive.
    for (int i = 0; i < 9; i++) {
      clock.advance(Duration.ofSeconds(1));
      pacer.acquire(GET).release();
    }
    assertThat(events).noneMatch(e -> e instanceof PacerEvent.PermitExpired);
    clock.advance(Duration.ofMillis(999));
    pacer.acquire(GET).release();
    assertThat(events).noneMatch(e -> e instanceof PacerEvent.PermitExpired);
    clock.advance(Duration.ofMillis(1)); // 10 s after the leaked permit was taken

    Permit next = pacer.acquire(GET);

    assertThat(events).filteredOn(e -> e instanceof PacerEvent.PermitExpired)
        .singleElement().isEqualTo(new PacerEvent.PermitExpired(base.key,
            Duration.ofSeconds(10)));
    assertThat(policy(pacer).inFlight()).as("only the new permit").isEqualTo(1);
    leaked.release(); // too late: it was given back already
    next.release();
    assertThat(policy(pacer).inFlight()).isZero();
  }

  @Test
  void aPermitTheLaneHandedOutKeepsItsPartitionFromEviction() throws Exception {
    Pacer pacer = builder(PacingStrategy.useAllThenWait()).maxPartitions(10).build();
    pacer.acquire(GET).complete(limit(200, 5, 5, 60));
    assertThat(partition(pacer).lane.isOpen()).isTrue();
    Permit out = pacer.acquire(GET);
    assertThat(inLane(out)).isTrue();
    for (int i = 0; i < 100; i++) {
      clock.advance(Duration.ofMillis(1));
      pacer.acquire(RequestInfo.get(URI.create("https://host" + i + ".example.com/")))
          .release();
    }
    assertThat(policy(pacer).inFlight()).as("kept: its permit is out").isEqualTo(1);
    assertThat(policy(pacer).remaining()).hasValue(4);
    out.release();
    for (int i = 100; i < 200; i++) {
      clock.advance(Duration.ofMillis(1));
      pacer.acquire(RequestInfo.get(URI.create("https://host" + i + ".example.com/")))
          .release();
    }
    assertThat(pacer.partitionCount()).as("an open lane keeps nothing alive at rest")
        .isLessThanOrEqualTo(10);
  }

  @Test
  void anAdoptedPermitIsChargedToItsRouteAndScopedRoutesShutTheLane() throws Exception {
    Pacer pacer = pacer(PacingStrategy.useAllThenWait());
    pacer.acquire(GET).complete(limit(200, 1000, 1000, 60));
    Partition base = partition(pacer);
    Permit a = pacer.acquire(GET);
    assertThat(inLane(a)).isTrue();
    Route items = base.routes.find(((PermitImpl) a).routeHash());
    assertThat(items).isNotNull();
    pacer.quota(ITEMS); // closes the lane: a is adopted
    assertThat(items.inFlight.permits()).isEqualTo(1);
    a.release();
    assertThat(items.inFlight.permits()).isZero();

    // Another route names another policy: each policy now governs its own routes.
    RequestInfo other = RequestInfo.get(URI.create("https://api.example.com/search"));
    pacer.acquire(other).complete(limit(200, "search", 10, 10, 60));
    assertThat(base.routes.uniform()).isFalse();
    Permit b = pacer.acquire(GET);
    assertThat(inLane(b)).as("scoped routes: the monitor decides").isFalse();
    assertThat(base.lane.isOpen()).isFalse();
    b.release();
    assertThat(pacer.quota(ITEMS).policies()).allMatch(p -> p.inFlight() == 0);
  }

  @Test
  void acquireAndReleaseThroughTheLaneAllocateOnlyThePermit() throws Exception {
    Pacer pacer = pacer(PacingStrategy.burstThenSpread(0.2));
    pacer.acquire(GET).complete(limit(200, 1_000_000_000L, 999_999_999L, 60));
    Partition base = partition(pacer);
    for (int i = 0; i < 200_000; i++) {
      pacer.acquire(GET).release();
    }
    // Reflection: the test sources are compiled into the module, which does not read
    // java.management; at run time the tests are on the class path.
    Object threads = Class.forName("java.lang.management.ManagementFactory")
        .getMethod("getThreadMXBean").invoke(null);
    java.lang.reflect.Method allocated = Class.forName("com.sun.management.ThreadMXBean")
        .getMethod("getThreadAllocatedBytes", long.class);
    long thread = Thread.currentThread().getId();
    int runs = 200_000;
    long lane = handedOut(pacer, base);
    long before = (long) allocated.invoke(threads, thread);
    for (int i = 0; i < runs; i++) {
      pacer.acquire(GET).release();
    }
    long bytes = ((long) allocated.invoke(threads, thread) - before) / runs;
    System.out.printf("acquire + release through the lane: %d bytes%n", bytes);
    // All but one in every SLOTS + 1: the permit that finds a generation's slots used up
    // takes the monitor, which closes the lane and opens the next generation.
    assertThat(handedOut(pacer, base) - lane).as("through the lane")
        .isGreaterThanOrEqualTo((long) runs * FastLane.SLOTS / (FastLane.SLOTS + 1));
    assertThat(policy(pacer).inFlight()).isZero();
    assertThat(clock.elapsed()).isEqualTo(Duration.ZERO);
    // The permit (128 bytes with compressed references) and nothing else.
    assertThat(bytes).isLessThanOrEqualTo(128);
  }

  @Test
  void theLaneStaysShutForADeclaredPolicyASpreadWithAResetAndAStrategyOfTheUsers()
      throws Exception {
    for (PacingStrategy strategy : new PacingStrategy[] {
        PacingStrategy.spread(), (available, limit, timeToReset) -> 0}) {
      Pacer pacer = pacer(strategy);
      pacer.acquire(GET).complete(limit(200, 1000, 1000, 60));
      assertThat(partition(pacer).lane.isOpen()).as(strategy.toString()).isFalse();
    }
    Pacer declared = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .declare(ClientPolicy.tokenBucket("documented", 100, Duration.ofMinutes(1)))
        .build();
    assertThat(partition(declared).lane.isOpen()).isFalse();
  }
}
