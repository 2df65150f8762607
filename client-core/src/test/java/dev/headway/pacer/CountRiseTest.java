package dev.headway.pacer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Jitter;
import dev.headway.Pacer;
import dev.headway.PacingStrategy;
import dev.headway.RequestInfo;
import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What counts as a count that came back before its reset (units refilled): a count above what
 * the previous one left, less what the request itself took. A refused request takes nothing.
 */
@Timeout(30)
class CountRiseTest {
  static final RequestInfo GET = RequestInfo.get(URI.create("https://api.example.com/items"));

  private final VirtualClock clock = VirtualClock.create();

  private Pacer pacer(Duration maxWait) {
    return Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock).jitter(Jitter.none())
        .maxWait(maxWait).build();
  }

  @Test
  void aRefusedRequestCountedZeroAfterZeroIsNotARefill() throws Exception {
    // A fixed window of 10 per 60 s, spent. Its probe (after maxWait) is refused with r=0: the
    // count did not rise, the window is still spent. Taken for a rise (0 > 0 - 1), it made the
    // policy "refilling" for good: once the next window was spent, one request every 6 s went
    // into it instead of waiting for its reset.
    // useAllThenWait: the next window is spent at once (the default strategy spreads its last
    // fifth, and a request waiting past maxWait for its own pacing is refused, not probed).
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .jitter(Jitter.none()).maxWait(Duration.ofSeconds(10))
        .strategy(PacingStrategy.useAllThenWait()).build();
    pacer.acquire(GET).complete(Signals.limit(200, 10, 60, 0, 60));
    assertThat(pacer.tryAcquire(GET)).as("spent").isEmpty();
    clock.advance(Duration.ofSeconds(10));
    pacer.tryAcquire(GET).orElseThrow(() -> new AssertionError("no probe"))
        .complete(Signals.limit(429, 10, 60, 0, 50));
    // The 429's hold (its reset) waits the window out; the next window is used up at once.
    clock.advance(Duration.ofSeconds(50));
    for (int left = 9; left >= 0; left--) {
      pacer.acquire(GET).complete(Signals.limit(200, 10, 60, left, 60));
    }
    for (int s = 61; s < 70; s++) {
      clock.advance(Duration.ofSeconds(1));
      assertThat(pacer.tryAcquire(GET)).as("at %d s: the window is spent until 120 s", s)
          .isEmpty();
    }
  }

  @Test
  void anAdmittedRequestCountedZeroAfterZeroIsARefill() throws Exception {
    // A bucket of 10 per 60 s that answered r=0, then admitted the next request and still says
    // r=0: a unit came back before the reset. It is paced at the refill rate (one per 6 s), not
    // waited out to the reset 50 s off.
    Pacer pacer = pacer(Duration.ofSeconds(10));
    pacer.acquire(GET).complete(Signals.limit(200, 10, 60, 0, 60));
    assertThat(pacer.tryAcquire(GET)).as("spent").isEmpty();
    clock.advance(Duration.ofSeconds(10));
    pacer.tryAcquire(GET).orElseThrow(() -> new AssertionError("no probe"))
        .complete(Signals.limit(200, 10, 60, 0, 50));
    clock.advance(Duration.ofSeconds(7));
    assertThat(pacer.tryAcquire(GET)).as("7 s later, a unit back at the refill rate")
        .isPresent();
  }
}
