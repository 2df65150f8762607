package dev.headway.pacer;

import static dev.headway.pacer.Signals.limit;
import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
import dev.headway.PacingStrategy;
import dev.headway.Permit;
import dev.headway.RequestInfo;
import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * Regressions (PacerStrategyTest.eightThreadsAgainstOneQuotaAreNeverThrottled, useAllThenWait,
 * on a clock that only moves when every caller sleeps): what happens at a reset instant, when
 * the probes committed to it go and answer at that same instant.
 */
class ResetInstantRegressionTest {
  static final RequestInfo GET = RequestInfo.get(URI.create("https://api.example.com/items"));

  private final VirtualClock clock = VirtualClock.create();

  private Pacer pacer() {
    return Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock).jitterSeed(1)
        .maxJitter(Duration.ZERO).maxWait(Duration.ofMinutes(2))
        .strategy(PacingStrategy.useAllThenWait()).build();
  }

  @Test
  void probesSentAtTheResetInstantAnsweringOutOfCommitOrderKeepTheSmallerCount() throws Exception {
    // Both probes go at the reset; the server counted the second first (99), then the first
    // (98). The first's answer came from a request sent at the instant the 99 arrived, and was
    // taken as older than it and dropped: the pacer believed in 99 units, the server had 98,
    // and the 99th request of the window drew a 429.
    Pacer pacer = pacer();
    pacer.acquire(GET).complete(limit(200, 100, 60, 0, 60)); // spent, reset in 60 s
    CompletableFuture<Permit> first = pacer.acquireAsync(GET);
    CompletableFuture<Permit> second = pacer.acquireAsync(GET);
    clock.advance(Duration.ofSeconds(60));
    assertThat(first).isDone();
    assertThat(second).isDone();

    second.join().complete(limit(200, 100, 60, 99, 60));
    first.join().complete(limit(200, 100, 60, 98, 60));

    int granted = 0;
    while (granted < 200 && pacer.tryAcquire(GET).isPresent()) {
      granted++;
    }
    assertThat(granted).as("units granted after the server said 98").isEqualTo(98);
  }

  @Test
  void aCallerWaitingForTheNewWindowIsNotOvertakenByTheProbesComingBack() throws Exception {
    // Quota 4. Two probes are committed to the reset; a third caller waits in line for it. At
    // the reset it must look again a moment later (the probes have not answered); meanwhile
    // the probes answer and their callers ask again at once. They took every unit of the new
    // window before the waiter looked again, window after window, until its maxWait ran out.
    Pacer pacer = pacer();
    pacer.acquire(GET).complete(limit(200, 4, 60, 0, 60)); // spent, reset in 60 s
    CompletableFuture<Permit> probe1 = pacer.acquireAsync(GET);
    CompletableFuture<Permit> probe2 = pacer.acquireAsync(GET);
    CompletableFuture<Permit> waiter = pacer.acquireAsync(GET);
    clock.advance(Duration.ofSeconds(60));
    assertThat(probe1).isDone();
    assertThat(probe2).isDone();
    assertThat(waiter).as("only the probes go until the new window answers").isNotDone();

    probe1.join().complete(limit(200, 4, 60, 3, 60));
    probe2.join().complete(limit(200, 4, 60, 2, 60));
    CompletableFuture<Permit> again1 = pacer.acquireAsync(GET);
    CompletableFuture<Permit> again2 = pacer.acquireAsync(GET);
    assertThat(again1).as("behind the caller already waiting").isNotDone();
    assertThat(again2).as("behind the caller already waiting").isNotDone();

    clock.advance(Duration.ofMillis(50));
    assertThat(waiter).as("the waiter's turn").isCompleted();
    assertThat(again1).as("the last unit, in arrival order").isCompleted();
    assertThat(again2).as("no unit left: waits for the next window").isNotDone();
  }
}
