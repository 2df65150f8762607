package dev.headway.pacer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Jitter;
import dev.headway.Pacer;
import dev.headway.Permit;
import dev.headway.RateLimitSignal;
import dev.headway.RequestInfo;
import dev.headway.RetryBudget;
import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Regressions from the goodput simulator: what happens when the pacer does not know the state
 * (first contact, a hold that ended, a reset that passed). A few probes learn it; the rest wait
 * for their answer. Each test failed before the fix.
 */
@Timeout(30)
class ProbingTest {
  static final RequestInfo GET = RequestInfo.get(URI.create("https://api.example.com/items"));

  private final VirtualClock clock = VirtualClock.create();

  private Pacer.Builder builder() {
    return Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock).jitterSeed(11);
  }

  private static List<CompletableFuture<Permit>> acquireMany(Pacer pacer, int n) {
    List<CompletableFuture<Permit>> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(pacer.acquireAsync(GET));
    }
    return out;
  }

  private static List<Permit> granted(List<CompletableFuture<Permit>> futures) {
    return futures.stream().filter(f -> f.isDone() && !f.isCompletedExceptionally())
        .map(CompletableFuture::join).toList();
  }

  private static RateLimitSignal retryAfterOnly(int seconds) {
    return Signals.throttled(429, Optional.of(Duration.ofSeconds(seconds)), List.of(),
        Optional.empty());
  }

  @Test
  void aPartitionNeverSeenLetsOnlyTheProbesGoUntilOneAnswers() {
    Pacer pacer = builder().build(); // probes = 2
    List<CompletableFuture<Permit>> calls = acquireMany(pacer, 64);
    assertThat(granted(calls)).hasSize(2);
    clock.advance(Duration.ofMillis(200)); // no answer yet: still only the probes
    assertThat(granted(calls)).hasSize(2);
    granted(calls).get(0).complete(Signals.limit(200, 100, 60, 90, 60));
    clock.advance(Duration.ofMillis(50));
    assertThat(granted(calls)).as("the rest go once the server said 90 are left").hasSize(64);
  }

  @Test
  void aLoneCallerIsNotSlowedOnFirstContact() throws Exception {
    Pacer pacer = builder().build();
    assertThat(pacer.tryAcquire(GET)).isPresent();
    Permit second = pacer.acquire(GET);
    second.complete(RateLimitSignal.none(200));
    assertThat(clock.elapsed()).isEqualTo(Duration.ZERO);
  }

  @Test
  void whenAHoldWithoutQuotaInformationEndsOnlyTheProbesGoThenOneMorePerAnswer()
      throws Exception {
    Pacer pacer = builder().build();
    pacer.acquire(GET).complete(RateLimitSignal.none(200)); // known partition, no quota told
    // A 503 (overloaded): a 429 with Retry-After only teaches a rate instead (LearnedRateTest).
    pacer.acquire(GET).complete(Signals.throttled(503, Optional.of(Duration.ofSeconds(1)),
        List.of(), Optional.empty()));
    List<CompletableFuture<Permit>> calls = acquireMany(pacer, 8);
    assertThat(granted(calls)).isEmpty();
    clock.advance(Duration.ofMillis(1_300)); // past the hold and its jitter (<= 0.2 s)
    List<Permit> probes = granted(calls);
    assertThat(probes).hasSize(2);
    probes.get(0).complete(RateLimitSignal.none(200));
    clock.advance(Duration.ofMillis(100));
    // Slow start: three may be in flight now (two plus one per answer), not the whole queue.
    List<Permit> second = granted(calls);
    assertThat(second).hasSize(4);
    for (Permit p : second.subList(1, 4)) {
      p.complete(RateLimitSignal.none(200));
    }
    clock.advance(Duration.ofMillis(100));
    assertThat(granted(calls)).hasSize(8);
  }

  @Test
  void retryAfterTakesPrecedenceOverTheResetOfASpentPolicy() throws Exception {
    Pacer pacer = builder().build();
    pacer.acquire(GET).complete(Signals.limit(200, 100, 60, 1, 60));
    pacer.acquire(GET).complete(Signals.throttled(429, Optional.of(Duration.ofSeconds(1)),
        List.of(Signals.item(0, 60)), Optional.empty()));
    CompletableFuture<Permit> retry = pacer.acquireAsync(GET);
    clock.advance(Duration.ofMillis(1_300));
    assertThat(retry).as("sent after Retry-After, not after the 60 s reset").isDone();
    assertThat(pacer.retryDelay(GET, Signals.throttled(429, Optional.of(Duration.ofSeconds(1)),
        List.of(Signals.item(0, 60)), Optional.empty()), 1).orElseThrow())
        .isLessThanOrEqualTo(Duration.ofMillis(1_200));
  }

  @Test
  void afterAResetOnlyTheProbesGoUntilTheNewWindowAnswers() throws Exception {
    Pacer pacer = builder().strategy(dev.headway.PacingStrategy.useAllThenWait()).build();
    pacer.acquire(GET).complete(Signals.limit(200, 100, 60, 0, 10));
    List<CompletableFuture<Permit>> calls = acquireMany(pacer, 8);
    clock.advance(Duration.ofMillis(9_900));
    assertThat(granted(calls)).isEmpty();
    clock.advance(Duration.ofMillis(200));
    List<Permit> probes = granted(calls);
    assertThat(probes).as("the whole quota is not assumed back at once").hasSize(2);
    probes.get(0).complete(Signals.limit(200, 100, 60, 3, 60)); // a sliding window: 3 back
    clock.advance(Duration.ofMillis(100));
    // One probe is still in flight: 3 - 1 = 2 more may go, not the 6 others.
    assertThat(granted(calls)).hasSize(4);
  }

  @Test
  void aWholeSecondResetIsNotPaddedWithJitterOnTopOfItsRounding() throws Exception {
    Pacer pacer = builder().jitter(Jitter.full()).build();
    pacer.acquire(GET).complete(Signals.limit(200, 100, 60, 0, 30));
    for (int i = 0; i < 20; i++) {
      CompletableFuture<Permit> next = pacer.acquireAsync(GET);
      assertThat(clock.pendingDelays()).allSatisfy(d ->
          assertThat(d).isLessThanOrEqualTo(Duration.ofSeconds(30)));
      next.cancel(false);
    }
  }

  @Test
  void jitterOnAHoldIsAtMostAFifthOfTheWait() throws Exception {
    // 50 advices in a row: past any retry budget, which is not what this test is about.
    Pacer pacer = builder().jitter(Jitter.full()).retryBudget(RetryBudget.off()).build();
    pacer.acquire(GET).complete(RateLimitSignal.none(200));
    pacer.acquire(GET).complete(retryAfterOnly(1));
    for (int i = 0; i < 50; i++) {
      assertThat(pacer.retryDelay(GET, retryAfterOnly(1), 1).orElseThrow())
          .isBetween(Duration.ofSeconds(1), Duration.ofMillis(1_200));
    }
  }
}
