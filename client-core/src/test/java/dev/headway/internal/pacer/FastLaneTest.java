package dev.headway.internal.pacer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
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
 * The lock-free lane (see {@link FastLane}) against the races it introduces: threads racing
 * through it for the last units, responses and holds arriving while it hands permits out, a
 * reset instant, and the bookkeeping of permits whose lane closed before they ended. Time is a
 * virtual clock that does not move unless told: every figure is exact.
 */
@Timeout(60)
class FastLaneTest {
  private static final RequestInfo GET =
      RequestInfo.get(URI.create("https://api.example.com/items"));
  private static final int THREADS = 8;

  private final VirtualClock clock = VirtualClock.create();
  private final ExecutorService pool = Executors.newFixedThreadPool(THREADS);

  @AfterEach
  void stop() throws InterruptedException {
    pool.shutdownNow();
    assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
  }

  private Pacer pacer(PacingStrategy strategy) {
    return Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock).jitterSeed(3)
        .strategy(strategy).build();
  }

  private static RateLimitSignal limit(int status, long quota, long remaining, long reset) {
    return new RateLimitSignal(status,
        List.of(new QuotaPolicy("default", quota, QuotaUnit.REQUESTS,
            Optional.of(Duration.ofSeconds(60)), Optional.empty(), "ietf")),
        List.of(new QuotaLimit("default", remaining, Optional.of(Duration.ofSeconds(reset)),
            Optional.empty(), "ietf")),
        Optional.empty(), Optional.empty(), Optional.empty(), List.of(), List.of("ietf"),
        List.of(), status == 429);
  }

  private static RateLimitSignal throttled(Duration retryAfter) {
    return new RateLimitSignal(429, List.of(), List.of(), Optional.of(retryAfter),
        Optional.empty(), Optional.empty(), List.of(), List.of("test"), List.of(), true);
  }

  private static FastLane lane(Pacer pacer) throws Exception {
    Permit permit = pacer.acquire(GET);
    FastLane lane = ((PermitImpl) permit).base.lane;
    permit.release();
    return lane;
  }

  private static PolicySnapshot policy(Pacer pacer) {
    return pacer.quota(GET.uri()).policy("default").orElseThrow();
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

  private static long fromLane(List<Permit> permits) {
    return permits.stream().filter(p -> ((PermitImpl) p).laneGen != 0).count();
  }

  @Test
  void threadsRacingThroughTheLaneForTheLastUnitsGetExactlyThem() throws Exception {
    Pacer pacer = pacer(PacingStrategy.useAllThenWait());
    pacer.acquire(GET).complete(limit(200, 1000, 300, 60));
    assertThat(lane(pacer).isOpen()).isTrue();

    List<Permit> granted = race(pacer);

    assertThat(granted).as("exactly the 300 units left, no unit twice").hasSize(300);
    assertThat(fromLane(granted)).as("most went through the lane").isGreaterThanOrEqualTo(298);
    assertThat(granted.stream().map(p -> ((PermitImpl) p).seq).distinct().count())
        .as("every permit has its own commit sequence").isEqualTo(300);
    assertThat(policy(pacer).remaining()).hasValue(0);
    assertThat(policy(pacer).inFlight()).isEqualTo(300);
    granted.forEach(Permit::release);
    assertThat(policy(pacer).inFlight()).as("nothing leaked by the lane").isZero();
    assertThat(policy(pacer).remaining()).hasValue(300);
  }

  @Test
  void theLaneStopsWhereTheDefaultStrategyStartsSpacingAsTheMonitorWould() throws Exception {
    // burstThenSpread(0.2) of q=1000: no gap while more than 200 are left. The permit that
    // finds exactly 200 still goes now but moves the cursor; the next would wait.
    Pacer pacer = pacer(PacingStrategy.burstThenSpread(0.2));
    pacer.acquire(GET).complete(limit(200, 1000, 300, 60));
    assertThat(lane(pacer).isOpen()).isTrue();

    List<Permit> granted = race(pacer);

    assertThat(granted).hasSize(101);
    assertThat(fromLane(granted)).isGreaterThanOrEqualTo(99);
    assertThat(pacer.tryAcquire(GET)).as("spacing now").isEmpty();
    granted.forEach(Permit::release);
    assertThat(policy(pacer).inFlight()).isZero();
  }

  @Test
  void aResponseSayingSpentStopsTheLaneForEveryAcquireThatStartsAfterIt() throws Exception {
    Pacer pacer = pacer(PacingStrategy.useAllThenWait());
    pacer.acquire(GET).complete(limit(200, 1_000_000, 1_000_000, 60));
    assertThat(lane(pacer).isOpen()).isTrue();
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
    assertThat(lane(pacer).isOpen()).isTrue();
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
    assertThat(pacer.quota(GET.uri()).heldFor()).isPresent();
    assertThat(policy(pacer).inFlight()).isZero();
    clock.advance(Duration.ofSeconds(12)); // past the hold and its jitter
    assertThat(pacer.tryAcquire(GET)).as("a probe after the hold").isPresent();
  }

  @Test
  void atTheResetInstantTheLaneIsShutAndOnlyTheProbesGo() throws Exception {
    Pacer pacer = pacer(PacingStrategy.useAllThenWait());
    pacer.acquire(GET).complete(limit(200, 100, 100, 60));
    assertThat(lane(pacer).isOpen()).isTrue();
    clock.advance(Duration.ofSeconds(60)); // the reset instant: not confirmed by the server

    List<Permit> granted = race(pacer);

    assertThat(granted).as("the probes (2) and no more").hasSize(2);
    assertThat(fromLane(granted)).isZero();
  }

  @Test
  void aPermitWhoseLaneClosedBeforeItEndedIsReleasedUnderTheMonitor() throws Exception {
    Pacer pacer = pacer(PacingStrategy.useAllThenWait());
    pacer.acquire(GET).complete(limit(200, 1000, 1000, 60));
    FastLane lane = lane(pacer);
    Permit a = pacer.acquire(GET);
    Permit b = pacer.acquire(GET);
    assertThat(((PermitImpl) a).laneGen).isNotZero();
    // A snapshot closes the lane (exact figures), then opens a new one.
    assertThat(policy(pacer).inFlight()).isEqualTo(2);
    assertThat(lane.isOpen()).isTrue();
    Permit c = pacer.acquire(GET);
    Permit d = pacer.acquire(GET);
    assertThat(((PermitImpl) d).laneGen).isNotZero().isNotEqualTo(((PermitImpl) a).laneGen);
    a.release(); // its lane is gone: under the monitor
    b.complete(limit(200, 1000, 990, 60)); // closes c's and d's lane, opens another
    d.release(); // under the monitor too
    assertThat(policy(pacer).inFlight()).isEqualTo(1);
    assertThat(policy(pacer).remaining()).hasValue(989);
    long left = lane.left();
    Permit e = pacer.acquire(GET);
    assertThat(lane.left()).isEqualTo(left - 1);
    e.release(); // its lane is still open: given back with one CAS
    assertThat(lane.left()).isEqualTo(left);
    c.release();
    assertThat(policy(pacer).inFlight()).isZero();
    assertThat(policy(pacer).remaining()).hasValue(990);
  }

  @Test
  void theLaneStaysShutForADeclaredPolicyASpreadWithAResetAndAStrategyOfTheUsers()
      throws Exception {
    for (PacingStrategy strategy : new PacingStrategy[] {
        PacingStrategy.spread(), (available, limit, timeToReset) -> 0}) {
      Pacer pacer = pacer(strategy);
      pacer.acquire(GET).complete(limit(200, 1000, 1000, 60));
      assertThat(lane(pacer).isOpen()).as(strategy.toString()).isFalse();
    }
    Pacer declared = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .declare(dev.headway.ClientPolicy.tokenBucket("documented", 100, Duration.ofMinutes(1)))
        .build();
    assertThat(lane(declared).isOpen()).isFalse();
  }
}
