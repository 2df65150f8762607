package dev.headway.pacer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
import dev.headway.Permit;
import dev.headway.RequestInfo;
import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A window's probes go to the oldest callers: three callers wait for a spent window of 5 per
 * 3 s, two of them older; at the reset the new window's two probes go out. They must be the two
 * older callers' (their answers are not back yet: the third waits for them). The oldest was
 * waiting for the first probes' answers when the window's state came; it keeps its place in
 * line meanwhile, so the two later callers, finding it there, do not take the new window's two
 * probe slots at their first decision. Virtual time; async acquires on the clock's scheduler.
 */
@Timeout(30)
class NewWindowProbesGoToTheOldestTest {
  static final RequestInfo GET = RequestInfo.get(URI.create("https://api.example.com/limited"));

  @Test
  void theNewWindowsProbesGoToTheTwoOlderCallers() throws Exception {
    VirtualClock clock = VirtualClock.create();
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .executor(Runnable::run).jitterSeed(1).recheckInterval(Duration.ofSeconds(1))
        .maxWait(Duration.ofSeconds(60)).build();
    Permit p1 = pacer.acquire(GET);
    Permit p2 = pacer.acquire(GET);
    List<String> went = new ArrayList<>();
    CompletableFuture<Permit> first = pacer.acquireAsync(GET); // waits for the probes' answers
    first.thenRun(() -> went.add("first (oldest) at " + clock.read() / 1e9));
    clock.advance(Duration.ofMillis(100));
    p1.complete(Signals.limit(200, 5, 3, 0, 3)); // spent until 3.1 s
    p2.complete(Signals.limit(200, 5, 3, 0, 3));
    clock.advance(Duration.ofMillis(50));
    CompletableFuture<Permit> second = pacer.acquireAsync(GET);
    second.thenRun(() -> went.add("second at " + clock.read() / 1e9));
    clock.advance(Duration.ofMillis(50));
    CompletableFuture<Permit> third = pacer.acquireAsync(GET);
    third.thenRun(() -> went.add("third (youngest) at " + clock.read() / 1e9));

    clock.advance(Duration.ofMillis(3_000)); // past the reset at 3.1 s; the probes not answered

    assertThat(went).as("callers that went by 3.2 s").hasSize(2);
    assertThat(first).as("oldest: %s", went).isDone();
    assertThat(second).as("second: %s", went).isDone();
    assertThat(third).as("youngest: %s", went).isNotDone();
    pacer.close();
  }

  @Test
  void theOldestIsNotRefusedAfterWaitingWhileTheYoungerOnesTookItsWindow() throws Exception {
    VirtualClock clock = VirtualClock.create();
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .executor(Runnable::run).jitterSeed(1).recheckInterval(Duration.ofSeconds(1))
        .maxWait(Duration.ofSeconds(60)).build();
    Permit p1 = pacer.acquire(GET);
    Permit p2 = pacer.acquire(GET);
    // The oldest will wait at most 3.5 s: the window is back at 3.1 s.
    CompletableFuture<Permit> first = pacer.acquireAsync(GET, Duration.ofMillis(3_500));
    clock.advance(Duration.ofMillis(100));
    p1.complete(Signals.limit(200, 5, 3, 0, 3)); // spent until 3.1 s
    p2.complete(Signals.limit(200, 5, 3, 0, 3));
    clock.advance(Duration.ofMillis(50));
    CompletableFuture<Permit> second = pacer.acquireAsync(GET);
    clock.advance(Duration.ofMillis(50));
    CompletableFuture<Permit> third = pacer.acquireAsync(GET);
    clock.advance(Duration.ofMillis(2_950)); // 3.15 s: the new window's probes answered
    for (CompletableFuture<Permit> f : List.of(second, third)) {
      if (f.isDone() && !f.isCompletedExceptionally()) {
        f.join().complete(Signals.limit(200, 5, 3, 3, 3));
      }
    }
    clock.advance(Duration.ofMillis(2_000));

    assertThat(second).isDone();
    assertThat(third).isDone();
    assertThat(first.isCompletedExceptionally())
        .as("the oldest refused (%s) while two younger callers went at the reset",
            first.handle((p, e) -> String.valueOf(e)).join())
        .isFalse();
    pacer.close();
  }
}
