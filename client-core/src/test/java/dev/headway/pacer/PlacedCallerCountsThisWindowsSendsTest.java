package dev.headway.pacer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
import dev.headway.PacingStrategy;
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
 * A caller's turn in line does not count the permits this window's units were given (sent
 * later in it, by a spreading strategy) as ahead of it for the next window. A fixed window of 10
 * per 10 s (windows start at 0, 10, 20 s), the spread strategy; 30 callers (maxWait 25 s) wait
 * for the first probes' answers. The window at 10 s can give all ten of its units to callers
 * whose deadline (25.1 s) is past its end; on main the callers from the 17th on were refused at
 * 0.1 s ("15 callers ahead", 7 of them scheduled in the window at 0) and the window at 10 s sent
 * 8. A fake server answers each request 50 ms after it goes. Virtual time; async acquires on the
 * clock's scheduler.
 */
@Timeout(60)
class PlacedCallerCountsThisWindowsSendsTest {
  static final RequestInfo GET = RequestInfo.get(URI.create("https://api.example.com/limited"));
  static final long QUOTA = 10;
  static final long WINDOW_NANOS = 10_000_000_000L;

  @Test
  void thisWindowsSpreadSendsDoNotCountAgainstTheNextWindow() throws Exception {
    run(30, Duration.ofSeconds(25), PacingStrategy.spread());
  }

  static void run(int n, Duration maxWait, PacingStrategy strategy) throws Exception {
    VirtualClock clock = VirtualClock.create();
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .executor(Runnable::run).jitterSeed(1).strategy(strategy).maxWait(maxWait).build();
    List<long[]> sent = new ArrayList<>(); // {sentNanos}
    List<Permit> out = new ArrayList<>();
    long[] windowCount = new long[100];
    Permit p1 = pacer.acquire(GET);
    Permit p2 = pacer.acquire(GET);
    out.add(p1);
    out.add(p2);
    sent.add(new long[] {clock.read()});
    sent.add(new long[] {clock.read()});
    windowCount[0] = 2;
    List<CompletableFuture<Permit>> callers = new ArrayList<>();
    long[] endedNanos = new long[n];
    int[] statuses = new int[n];
    int[] over = new int[1];
    for (int i = 0; i < n; i++) {
      int index = i;
      CompletableFuture<Permit> f = pacer.acquireAsync(GET);
      f.whenComplete((p, e) -> {
        endedNanos[index] = clock.read();
        if (p != null) {
          long t = clock.read();
          int w = (int) (t / WINDOW_NANOS);
          if (++windowCount[w] > QUOTA) {
            over[0]++;
          }
          out.add(p);
          sent.add(new long[] {t});
        }
      });
      callers.add(f);
    }
    for (int step = 0; step < 3_000; step++) {
      clock.advance(Duration.ofMillis(10));
      long now = clock.read();
      for (int i = 0; i < out.size(); i++) {
        Permit p = out.get(i);
        long s = sent.get(i)[0];
        if (p != null && now - s >= 50_000_000L) {
          int w = (int) (s / WINDOW_NANOS);
          long remaining = Math.max(0, QUOTA - windowCount[w]);
          long reset = ((w + 1) * WINDOW_NANOS - now + 999_999_999L) / 1_000_000_000L;
          p.complete(Signals.limit(windowCount[w] > QUOTA ? 429 : 200, QUOTA, 10, remaining,
              reset));
          out.set(i, null);
        }
      }
    }
    StringBuilder story = new StringBuilder();
    for (int i = 0; i < n; i++) {
      CompletableFuture<Permit> f = callers.get(i);
      String how = !f.isDone() ? "waiting"
          : f.isCompletedExceptionally() ? "refused: " + cause(f) : "went";
      story.append(String.format("%n  caller %d %s at %.3f s", i, how, endedNanos[i] / 1e9));
    }
    assertThat(callers).as(story.toString()).allMatch(CompletableFuture::isDone);
    assertThat(over[0]).as("requests past the server's quota" + story).isZero();
    assertThat(windowCount[1])
        .as("the window at 10 s gives its whole quota to callers whose deadline (25.1 s) is past"
            + " it, not refuse them at 0.1 s" + story).isEqualTo(QUOTA);
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
