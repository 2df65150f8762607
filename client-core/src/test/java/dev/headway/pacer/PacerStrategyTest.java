package dev.headway.pacer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.headway.PacingStrategy;
import dev.headway.Pacer;
import dev.headway.Permit;
import dev.headway.RateLimitedException;
import dev.headway.RequestInfo;
import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The "done when" behaviours, for each pacing strategy. */
@Timeout(30)
class PacerStrategyTest {
  static final URI API = URI.create("https://api.example.com/items");
  static final RequestInfo GET = RequestInfo.get(API);

  static Stream<Arguments> strategies() {
    return Stream.of(
        Arguments.of("spread", PacingStrategy.spread()),
        Arguments.of("burstThenSpread", PacingStrategy.burstThenSpread(0.2)),
        Arguments.of("useAllThenWait", PacingStrategy.useAllThenWait()));
  }

  static Pacer.Builder pacer(VirtualClock clock, PacingStrategy strategy) {
    return Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock).strategy(strategy)
        .jitterSeed(42);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("strategies")
  void aLoneClientSendsTheWholeQuotaPerWindowAndNoMore(String name, PacingStrategy strategy)
      throws Exception {
    VirtualClock clock = VirtualClock.create().autoAdvance(true);
    FakeServer server = new FakeServer(clock, 100, 60);
    Pacer pacer = pacer(clock, strategy).maxWait(Duration.ofMinutes(2)).build();

    while (clock.read() < Duration.ofSeconds(180).toNanos()) {
      Permit permit = pacer.acquire(GET);
      permit.complete(server.handle());
    }

    assertThat(server.throttled()).as("429s").isZero();
    assertThat(server.sentInWindow(0)).isEqualTo(100);
    assertThat(server.sentInWindow(1)).isEqualTo(100);
    assertThat(server.sentInWindow(2)).isEqualTo(100);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("strategies")
  void eightThreadsAgainstOneQuotaAreNeverThrottled(String name, PacingStrategy strategy)
      throws Exception {
    // A manual clock moved by this thread only when every live worker sleeps on it: time never
    // passes while a request is between its permit and its response, however the threads are
    // scheduled (auto-advance let a polling waiter run minutes of virtual time ahead of them).
    VirtualClock clock = VirtualClock.create();
    FakeServer server = new FakeServer(clock, 100, 60);
    Pacer pacer = pacer(clock, strategy).maxWait(Duration.ofMinutes(2)).build();
    ExecutorService pool = Executors.newFixedThreadPool(8);
    AtomicInteger alive = new AtomicInteger(8);
    List<Future<?>> futures = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      futures.add(pool.submit(() -> {
        try {
          while (clock.read() < Duration.ofSeconds(180).toNanos()) {
            Permit permit = pacer.acquire(GET);
            permit.complete(server.handle());
          }
        } finally {
          alive.decrementAndGet();
        }
        return null;
      }));
    }
    long realDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (alive.get() > 0 && System.nanoTime() < realDeadline) {
      if (clock.sleepers() >= alive.get()) {
        clock.advanceToNextEvent();
      } else {
        Thread.onSpinWait();
      }
    }
    for (Future<?> f : futures) {
      f.get(1, TimeUnit.SECONDS);
    }
    pool.shutdownNow();
    assertThat(server.throttled()).as("429s").isZero();
    assertThat(server.sentInWindow(0)).isEqualTo(100);
    assertThat(server.sentInWindow(1)).isEqualTo(100);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("strategies")
  void eightConcurrentCallersShareTheLastThreeUnits(String name, PacingStrategy strategy)
      throws Exception {
    VirtualClock clock = VirtualClock.create();
    FakeServer server = new FakeServer(clock, 100, 60);
    Pacer pacer = pacer(clock, strategy).maxWait(Duration.ofSeconds(25)).build();
    clock.advance(Duration.ofSeconds(30));
    Permit first = pacer.acquire(GET);
    first.complete(Signals.limit(200, 100, 60, 3, 30)); // the last 3 units, reset in 30 s

    ExecutorService pool = Executors.newFixedThreadPool(8);
    CountDownLatch start = new CountDownLatch(1);
    AtomicInteger sent = new AtomicInteger();
    AtomicInteger refused = new AtomicInteger();
    List<Future<?>> futures = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      futures.add(pool.submit(() -> {
        start.await();
        try {
          pacer.acquire(GET); // held: the response has not come back
          server.handle();
          sent.incrementAndGet();
        } catch (RateLimitedException e) {
          refused.incrementAndGet();
        }
        return null;
      }));
    }
    start.countDown();
    // Every caller either went, was refused at once, or sleeps until its committed time.
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (sent.get() + refused.get() + clock.sleepers() < 8 && System.nanoTime() < until) {
      Thread.onSpinWait();
    }
    assertThat(refused.get()).as("refused at once, before any time passed").isEqualTo(5);
    clock.advance(Duration.ofSeconds(25));
    for (Future<?> f : futures) {
      f.get(10, TimeUnit.SECONDS);
    }
    pool.shutdownNow();

    assertThat(sent.get()).isEqualTo(3);
    assertThat(server.received()).isEqualTo(3);
    assertThat(refused.get()).isEqualTo(5);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("strategies")
  void eightConcurrentAsyncCallersShareTheLastThreeUnits(String name, PacingStrategy strategy)
      throws Exception {
    VirtualClock clock = VirtualClock.create();
    Pacer pacer = pacer(clock, strategy).maxWait(Duration.ofSeconds(25)).build();
    pacer.acquire(GET).complete(Signals.limit(200, 100, 60, 3, 30));

    List<CompletableFuture<Permit>> futures = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      futures.add(pacer.acquireAsync(GET));
    }
    clock.advance(Duration.ofSeconds(26));

    long granted = futures.stream().filter(f -> f.isDone() && !f.isCompletedExceptionally())
        .count();
    long refused = futures.stream().filter(CompletableFuture::isCompletedExceptionally).count();
    assertThat(granted).isEqualTo(3);
    assertThat(refused).isEqualTo(5);
    for (CompletableFuture<Permit> f : futures) {
      if (f.isCompletedExceptionally()) {
        assertThatThrownBy(f::get).isInstanceOf(ExecutionException.class)
            .hasCauseInstanceOf(RateLimitedException.class);
      }
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("strategies")
  void anInterruptedWaitSendsNothingAndReleases(String name, PacingStrategy strategy)
      throws Exception {
    VirtualClock clock = VirtualClock.create();
    Pacer pacer = pacer(clock, strategy).build();
    pacer.acquire(GET).complete(Signals.limit(200, 10, 60, 0, 10)); // spent, reset in 10 s

    AtomicInteger sent = new AtomicInteger();
    CompletableFuture<Throwable> outcome = new CompletableFuture<>();
    CompletableFuture<Boolean> flag = new CompletableFuture<>();
    Thread waiter = new Thread(() -> {
      try {
        pacer.acquire(GET);
        sent.incrementAndGet();
        outcome.complete(null);
      } catch (Throwable e) {
        flag.complete(Thread.currentThread().isInterrupted());
        outcome.complete(e);
      }
    });
    waiter.start();
    clock.awaitSleepers(1, Duration.ofSeconds(5));
    assertThat(pacer.quota(API).policy("default").orElseThrow().inFlight()).isEqualTo(1);
    waiter.interrupt();

    assertThat(outcome.get(5, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
    assertThat(flag.get()).as("interrupt flag restored").isTrue();
    clock.advance(Duration.ofSeconds(30));
    assertThat(sent.get()).isZero();
    assertThat(pacer.quota(API).policy("default").orElseThrow().inFlight()).isZero();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("strategies")
  void aCancelledAsyncWaitSendsNothingAndReleases(String name, PacingStrategy strategy)
      throws Exception {
    VirtualClock clock = VirtualClock.create();
    Pacer pacer = pacer(clock, strategy).build();
    pacer.acquire(GET).complete(Signals.limit(200, 10, 60, 0, 10));

    CompletableFuture<Permit> future = pacer.acquireAsync(GET);
    assertThat(future).isNotDone();
    assertThat(clock.pendingTasks()).isEqualTo(1);
    assertThat(pacer.quota(API).policy("default").orElseThrow().inFlight()).isEqualTo(1);

    assertThat(future.cancel(true)).isTrue();
    assertThat(clock.pendingTasks()).isZero();
    assertThat(pacer.quota(API).policy("default").orElseThrow().inFlight()).isZero();
    clock.advance(Duration.ofSeconds(30));
    assertThat(future.isCancelled()).isTrue();
  }
}
