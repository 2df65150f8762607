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
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/**
 * Regression (simulator: fixed window, 64 callers, 5.35% 429s): requests in flight together
 * reach the server in an order the client cannot know (committed at the same instant, unequal
 * network delays). The pacer took the count of whichever response it deemed newest, and a
 * larger count from a request the server had counted earlier forgot the requests counted after
 * it, whose responses had already left the in-flight count: the estimate ran ahead of the
 * server's and the next burst drew 429s.
 */
class ConcurrentResponsesRegressionTest {
  static final RequestInfo GET = RequestInfo.get(URI.create("https://api.example.com/items"));

  private static Pacer pacer(VirtualClock clock) {
    return Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock).jitterSeed(1)
        .strategy(PacingStrategy.useAllThenWait()).build();
  }

  @Test
  void concurrentResponsesCountedByTheServerInAnotherOrderNeverRaiseTheEstimate() {
    VirtualClock clock = VirtualClock.create();
    Pacer pacer = pacer(clock);
    pacer.tryAcquire(GET).orElseThrow().complete(limit(200, 100, 60, 90, 60));
    List<Permit> permits = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      permits.add(pacer.tryAcquire(GET).orElseThrow());
    }
    clock.advance(Duration.ofMillis(50));
    // The server counted them last-committed first (r = 89 .. 80); the responses come back in
    // commit order, so the last to arrive carries the largest count.
    for (int i = 0; i < 10; i++) {
      permits.get(i).complete(limit(200, 100, 60, 80 + i, 60));
    }
    assertThat(pacer.quota(GET.uri()).policy("default").orElseThrow().remaining())
        .isEqualTo(OptionalLong.of(80));
    int sent = 0;
    while (pacer.tryAcquire(GET).isPresent()) {
      sent++;
    }
    assertThat(sent).as("requests sent before the reset").isEqualTo(80);
  }

  @Test
  void aRequestSentLaterButCountedEarlierDoesNotBringBackAUnit() {
    VirtualClock clock = VirtualClock.create();
    Pacer pacer = pacer(clock);
    pacer.tryAcquire(GET).orElseThrow().complete(limit(200, 100, 60, 90, 60));
    Permit first = pacer.tryAcquire(GET).orElseThrow();
    clock.advance(Duration.ofMillis(1));
    Permit second = pacer.tryAcquire(GET).orElseThrow();
    clock.advance(Duration.ofMillis(50));
    // The second overtook the first on the way: the server counted it first (r=89), then the
    // first (r=88); the first's answer arrives first.
    first.complete(limit(200, 100, 60, 88, 60));
    second.complete(limit(200, 100, 60, 89, 60));
    assertThat(pacer.quota(GET.uri()).policy("default").orElseThrow().remaining())
        .isEqualTo(OptionalLong.of(88));
  }

  @Test
  void aRequestSentAfterTheCountArrivedMayRaiseIt() {
    VirtualClock clock = VirtualClock.create();
    Pacer pacer = pacer(clock);
    pacer.tryAcquire(GET).orElseThrow().complete(limit(200, 100, 60, 10, 60));
    clock.advance(Duration.ofSeconds(5));
    // A refilling server (token bucket) gave units back meanwhile: a causally later answer wins.
    pacer.tryAcquire(GET).orElseThrow().complete(limit(200, 100, 60, 20, 55));
    assertThat(pacer.quota(GET.uri()).policy("default").orElseThrow().remaining())
        .isEqualTo(OptionalLong.of(20));
  }
}
