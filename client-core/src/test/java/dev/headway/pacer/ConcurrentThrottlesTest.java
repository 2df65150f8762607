package dev.headway.pacer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Jitter;
import dev.headway.Pacer;
import dev.headway.Permit;
import dev.headway.RateLimitSignal;
import dev.headway.RequestInfo;
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
 * Bare 429s (no {@code Retry-After}, no count) to requests that were in flight together are one
 * overshoot, not a run of them: the partition is held for the first backoff step, not for a
 * step that doubles with every refused request of the burst. Virtual time throughout.
 */
@Timeout(60)
class ConcurrentThrottlesTest {
  static final RequestInfo GET = RequestInfo.get(URI.create("https://api.example.com/items"));

  private final VirtualClock clock = VirtualClock.create();

  private Pacer pacer() {
    return Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .jitter(Jitter.none()).build();
  }

  private static RateLimitSignal bare429() {
    return Signals.throttled(429, Optional.empty(), List.of(), Optional.empty());
  }

  /** Admits a few requests one by one, so the server is known and many may be in flight. */
  private List<Permit> eightInFlight(Pacer pacer) throws Exception {
    for (int i = 0; i < 40; i++) {
      pacer.acquire(GET).complete(RateLimitSignal.none(200));
    }
    List<Permit> out = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      CompletableFuture<Permit> f = pacer.acquireAsync(GET);
      assertThat(f).as("request %d goes at once", i).isDone();
      out.add(f.join());
    }
    return out;
  }

  @Test
  void eightRefusedTogetherHoldForOneBackoffStepNotTwoToTheEighth() throws Exception {
    Pacer pacer = pacer();
    List<Permit> out = eightInFlight(pacer);
    clock.advance(Duration.ofMillis(50));
    for (Permit permit : out) {
      permit.complete(bare429());
      clock.advance(Duration.ofMillis(2));
    }
    long start = clock.read();
    CompletableFuture<Permit> next = pacer.acquireAsync(GET);
    clock.advance(Duration.ofMillis(1_100));
    // Before: each 429 of the burst doubled the hold (1, 2, 4 ... 30 s): this caller waited
    // 30 s, and with the default maxWait was refused.
    assertThat(next).as("the hold of one overshoot (1 s base backoff) is over").isDone();
    assertThat(clock.read() - start).isLessThanOrEqualTo(1_100_000_000L);
    next.join().complete(RateLimitSignal.none(200));
  }

  @Test
  void aRequestSentAfterThe429ArrivedAndRefusedAgainDoublesTheHold() throws Exception {
    Pacer pacer = pacer();
    List<Permit> out = eightInFlight(pacer);
    clock.advance(Duration.ofMillis(50));
    for (Permit permit : out) {
      permit.complete(bare429());
    }
    CompletableFuture<Permit> probe = pacer.acquireAsync(GET);
    for (int i = 0; i < 50 && !probe.isDone(); i++) {
      clock.advance(Duration.ofMillis(100));
    }
    assertThat(probe).as("goes once the 1 s hold is over").isDone();
    clock.advance(Duration.ofMillis(50));
    probe.join().complete(bare429()); // sent after the first 429: a second one in a row
    CompletableFuture<Permit> next = pacer.acquireAsync(GET);
    clock.advance(Duration.ofMillis(1_500));
    assertThat(next).as("held 2 s now, not 1 s").isNotDone();
    clock.advance(Duration.ofMillis(600));
    assertThat(next).isDone();
  }
}
