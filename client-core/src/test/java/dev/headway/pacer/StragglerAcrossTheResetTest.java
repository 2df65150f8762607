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
import org.junit.jupiter.api.Test;

/**
 * A request sent just before a fixed window ends may reach the server in the next one, after the
 * count the pacer takes for that window: its answer is ignored (its count may be the old
 * window's), but its unit must not be handed out again. Seen as one 429 in 10,000 calls
 * (busiest window 1,001 of 1,000) from 200 threads against a real 1-second window.
 */
class StragglerAcrossTheResetTest {
  static final RequestInfo GET = RequestInfo.get(URI.create("https://api.example.com/items"));

  private final VirtualClock clock = VirtualClock.create();

  private Pacer pacer() {
    return Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock).jitterSeed(1)
        .maxJitter(Duration.ZERO).maxWait(Duration.ofSeconds(30))
        .strategy(PacingStrategy.useAllThenWait()).build();
  }

  private int grantedNow(Pacer pacer) {
    int granted = 0;
    while (granted < 100 && pacer.tryAcquire(GET).isPresent()) {
      granted++;
    }
    return granted;
  }

  @Test
  void aRequestSentBeforeTheResetAndCountedAfterTheNewWindowsCountIsNotSpentTwice() throws Exception {
    Pacer pacer = pacer();
    pacer.acquire(GET).complete(limit(200, 3, 1, 2, 1)); // 2 of 3 left, reset in 1 s
    clock.advance(Duration.ofMillis(900));
    Permit straggler = pacer.acquire(GET); // sent at 0.9 s, reaches the server after 1.0 s
    clock.advance(Duration.ofMillis(100)); // the window rolls
    Permit probe = pacer.acquire(GET);
    clock.advance(Duration.ofMillis(10));
    probe.complete(limit(200, 3, 1, 2, 1)); // the server counted the probe first: 2 left
    clock.advance(Duration.ofMillis(10));
    straggler.complete(limit(200, 3, 1, 1, 1)); // then the straggler, in the new window: 1 left

    assertThat(grantedNow(pacer)).as("units granted while the server has 1 left").isEqualTo(1);
  }

  @Test
  void aStragglerAnsweredBeforeTheNewWindowsCountIsInThatCountAndCostsNothingMore() throws Exception {
    // The straggler is answered first, then a request sent after that answer: the server
    // counted the straggler before it, so the count already holds it.
    Pacer pacer = pacer();
    pacer.acquire(GET).complete(limit(200, 3, 1, 2, 1));
    clock.advance(Duration.ofMillis(900));
    Permit straggler = pacer.acquire(GET);
    clock.advance(Duration.ofMillis(110));
    straggler.complete(limit(200, 3, 1, 2, 1)); // counted in the new window: 2 left
    clock.advance(Duration.ofMillis(10));
    Permit after = pacer.acquire(GET);
    clock.advance(Duration.ofMillis(10));
    after.complete(limit(200, 3, 1, 1, 1)); // 1 left: the straggler is in it

    assertThat(grantedNow(pacer)).as("units granted while the server has 1 left").isEqualTo(1);
  }

  @Test
  void aStragglerCountedInTheOldWindowCostsAtMostItsOwnUnitUntilTheNextCount() throws Exception {
    // The straggler reached the server before the reset after all (its count, 0, is the old
    // window's). Its unit is kept back only until a count from a request sent after its
    // answer says otherwise.
    Pacer pacer = pacer();
    pacer.acquire(GET).complete(limit(200, 3, 1, 2, 1));
    clock.advance(Duration.ofMillis(900));
    Permit straggler = pacer.acquire(GET);
    clock.advance(Duration.ofMillis(100));
    Permit probe = pacer.acquire(GET);
    clock.advance(Duration.ofMillis(10));
    probe.complete(limit(200, 3, 1, 2, 1));
    clock.advance(Duration.ofMillis(10));
    straggler.complete(limit(200, 3, 1, 1, 1));
    clock.advance(Duration.ofMillis(1));
    Permit next = pacer.tryAcquire(GET).orElseThrow(); // sent after the straggler's answer
    clock.advance(Duration.ofMillis(10));
    next.complete(limit(200, 3, 1, 1, 1)); // the straggler was not in this window: 1 left

    assertThat(grantedNow(pacer)).as("units granted while the server has 1 left").isEqualTo(1);
  }
}
