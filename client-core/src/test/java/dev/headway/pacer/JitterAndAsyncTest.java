package dev.headway.pacer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Jitter;
import dev.headway.Pacer;
import dev.headway.Permit;
import dev.headway.RateLimitSignal;
import dev.headway.RateLimitedException;
import dev.headway.RequestInfo;
import dev.headway.RetryBudget;
import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Jitter bounds and seeding; the asynchronous path's rejections, timeouts and cancellations. */
@Timeout(30)
class JitterAndAsyncTest {
  static final URI API = URI.create("https://api.example.com/items");
  static final RequestInfo GET = RequestInfo.get(API);

  private final VirtualClock clock = VirtualClock.create();

  private Pacer.Builder builder() {
    return Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock);
  }

  @Test
  void eachJitterStaysWithinItsDocumentedBounds() {
    Random random = new Random(5);
    Duration d = Duration.ofSeconds(8);
    Duration previous = Duration.ofSeconds(4);
    for (int i = 0; i < 1_000; i++) {
      assertThat(Jitter.none().backoff(d, previous, random)).isEqualTo(d);
      assertThat(Jitter.none().extra(d, random)).isZero();
      assertThat(Jitter.full().backoff(d, previous, random)).isBetween(Duration.ZERO, d);
      assertThat(Jitter.full().extra(d, random)).isBetween(Duration.ZERO, d);
      assertThat(Jitter.equal().backoff(d, previous, random))
          .isBetween(Duration.ofSeconds(4), d);
      assertThat(Jitter.equal().extra(d, random)).isBetween(Duration.ZERO, Duration.ofSeconds(4));
      assertThat(Jitter.decorrelated().backoff(d, previous, random))
          .isBetween(Duration.ofSeconds(4), Duration.ofSeconds(12));
    }
  }

  @Test
  void theSameSeedGivesTheSameDelays() {
    RateLimitSignal bare = Signals.throttled(429, Optional.empty(), List.of(), Optional.empty());
    RateLimitSignal server = Signals.throttled(429, Optional.of(Duration.ofSeconds(10)),
        List.of(), Optional.empty());
    // 40 advices in a row: past any retry budget, which is not what this test is about.
    List<Duration> first = delays(builder().jitterSeed(99).retryBudget(RetryBudget.off()).build(), bare, server);
    List<Duration> second = delays(builder().jitterSeed(99).retryBudget(RetryBudget.off()).build(), bare,
        server);
    List<Duration> other = delays(builder().jitterSeed(100).retryBudget(RetryBudget.off()).build(), bare,
        server);
    assertThat(first).isEqualTo(second).isNotEqualTo(other);
  }

  private static List<Duration> delays(Pacer pacer, RateLimitSignal bare, RateLimitSignal server) {
    List<Duration> out = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      out.add(pacer.retryDelay(GET, bare, 1).orElseThrow());
      out.add(pacer.retryDelay(GET, server, 1).orElseThrow());
    }
    return out;
  }

  @Test
  void anAsyncWaitPastMaxWaitFailsAtOnceWithoutScheduling() throws Exception {
    Pacer pacer = builder().maxWait(Duration.ofSeconds(5)).build();
    pacer.acquire(GET).complete(Signals.limit(200, 10, 60, 0, 30));
    CompletableFuture<Permit> future = pacer.acquireAsync(GET);
    assertThat(future).isCompletedExceptionally();
    assertThat(clock.pendingTasks()).isZero();
    try {
      future.get();
    } catch (ExecutionException e) {
      RateLimitedException cause = (RateLimitedException) e.getCause();
      assertThat(cause.requiredWait()).isBetween(Duration.ofSeconds(30), Duration.ofSeconds(31));
      assertThat(cause.policy()).contains("default");
    }
  }

  @Test
  void aTimedOutAsyncWaitReleasesItsPermit() throws Exception {
    Pacer pacer = builder().build();
    pacer.acquire(GET).complete(Signals.limit(200, 10, 60, 0, 10));
    CompletableFuture<Permit> future = pacer.acquireAsync(GET);
    assertThat(pacer.quota(API).policy("default").orElseThrow().inFlight()).isEqualTo(1);
    future.orTimeout(1, TimeUnit.MILLISECONDS);
    try {
      future.get(5, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      assertThat(e.getCause()).isInstanceOf(TimeoutException.class);
    }
    assertThat(pacer.quota(API).policy("default").orElseThrow().inFlight()).isZero();
    assertThat(clock.pendingTasks()).isZero();
  }

  @Test
  void cancellingAWaitThatIsLookingAgainReleasesItToo() throws Exception {
    Pacer pacer = builder().probes(1).build();
    pacer.acquire(GET).complete(Signals.remainingOnly(200, 0, Optional.empty())); // spent, no t
    Permit probe = pacer.tryAcquire(GET).orElseThrow();
    CompletableFuture<Permit> waiting = pacer.acquireAsync(GET);
    clock.advance(Duration.ofMillis(120));
    assertThat(waiting).isNotDone();
    assertThat(waiting.cancel(false)).isTrue();
    assertThat(clock.pendingTasks()).isZero();
    probe.complete(Signals.remainingOnly(200, 5, Optional.of(Duration.ofSeconds(10))));
    assertThat(pacer.quota(API).policy("default").orElseThrow().inFlight()).isZero();
  }

  @Test
  void cancellingFromAnotherThreadWhileTheSchedulerHandsOutNeverLeaksAUnit() throws Exception {
    Pacer pacer = builder().build();
    for (int round = 0; round < 200; round++) {
      pacer.acquire(GET).complete(Signals.limit(200, 10, 1, 0, 1));
      CompletableFuture<Permit> future = pacer.acquireAsync(GET);
      Thread canceller = new Thread(() -> future.cancel(false));
      canceller.start();
      clock.advance(Duration.ofSeconds(2));
      canceller.join();
      if (!future.isCancelled()) {
        future.join().release();
      }
      assertThat(pacer.quota(API).policy("default").orElseThrow().inFlight()).isZero();
    }
  }
}
