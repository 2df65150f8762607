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
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A window that gives the line less than its quota: ten callers ({@code maxWait} 5 s) wait for
 * the first probes' answers; those say 5 per 3 s, spent until 1.1 s, so all ten are let into the
 * line (five in that window, five in the next). At 1.1 s the new window's two probes go, and
 * their answers say the window is spent again, until 3.2 s: the server counted requests of
 * others. Three of the eight left cannot have their turn by their deadline (the window at 3.2 s
 * serves five); they learn it when they look again after the probes' answers, and are refused
 * then, not at their deadline. The five oldest go at 3.2 s. Virtual time; async acquires on the
 * clock's scheduler.
 */
@Timeout(30)
class WindowShortOfItsQuotaTest {
  static final RequestInfo GET = RequestInfo.get(URI.create("https://api.example.com/limited"));

  @Test
  void callersAWindowCannotServeAreRefusedWhenTheyLearnItNotAtTheirDeadline() throws Exception {
    VirtualClock clock = VirtualClock.create();
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .executor(Runnable::run).jitterSeed(1).maxWait(Duration.ofSeconds(5)).build();
    Permit p1 = pacer.acquire(GET);
    Permit p2 = pacer.acquire(GET);
    List<CompletableFuture<Permit>> callers = new ArrayList<>();
    long[] endedNanos = new long[10];
    for (int i = 0; i < 10; i++) {
      int index = i;
      CompletableFuture<Permit> f = pacer.acquireAsync(GET);
      f.whenComplete((p, e) -> endedNanos[index] = clock.read());
      callers.add(f);
    }
    clock.advance(Duration.ofMillis(100));
    p1.complete(Signals.limit(200, 5, 3, 0, 1)); // spent until 1.1 s
    p2.complete(Signals.limit(200, 5, 3, 0, 1));
    clock.advance(Duration.ofMillis(1_050)); // 1.15 s: the new window's probes went at 1.1 s
    for (CompletableFuture<Permit> f : callers) {
      if (f.isDone() && !f.isCompletedExceptionally() && clock.read() < 1_200_000_000L) {
        f.join().complete(Signals.limit(200, 5, 3, 0, 2)); // spent again, until 3.15 s
      }
    }
    clock.advance(Duration.ofMillis(300)); // 1.45 s
    List<Integer> refusedBy1450 = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      if (callers.get(i).isCompletedExceptionally()) {
        refusedBy1450.add(i);
      }
    }
    clock.advance(Duration.ofMillis(2_000)); // 3.45 s: the window at 3.15 s gave its probes
    for (CompletableFuture<Permit> f : callers) {
      if (f.isDone() && !f.isCompletedExceptionally() && endedNanos[callers.indexOf(f)] > 3e9) {
        f.join().complete(Signals.limit(200, 5, 3, 3, 3));
      }
    }
    clock.advance(Duration.ofMillis(2_000)); // 5.45 s: every deadline passed

    StringBuilder story = new StringBuilder();
    for (int i = 0; i < 10; i++) {
      CompletableFuture<Permit> f = callers.get(i);
      String how = !f.isDone() ? "waiting"
          : f.isCompletedExceptionally() ? "refused: " + cause(f) : "went";
      story.append(String.format("%n  caller %d %s at %.3f s", i, how, endedNanos[i] / 1e9));
    }
    assertThat(callers).as(story.toString()).allMatch(CompletableFuture::isDone);
    assertThat(callers.stream().filter(f -> !f.isCompletedExceptionally()).count())
        .as("callers served by the windows at 1.1 s (2) and 3.15 s (5)" + story).isEqualTo(7);
    assertThat(refusedBy1450)
        .as("the three youngest refused once the probes' answers told the window short" + story)
        .containsExactly(7, 8, 9);
    pacer.close();
  }

  private static String cause(CompletableFuture<Permit> f) {
    try {
      f.join();
      return "";
    } catch (CompletionException e) {
      return String.valueOf(e.getCause().getMessage());
    }
  }
}
