package dev.headway.pacer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Jitter;
import dev.headway.Pacer;
import dev.headway.QuotaLimit;
import dev.headway.QuotaPolicy;
import dev.headway.QuotaUnit;
import dev.headway.RateLimitSignal;
import dev.headway.RequestInfo;
import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A 429 whose {@code Retry-After} is longer than {@code maxWait} but within the window the server
 * told for the policy it says is spent (a sliding window of 7 per 720 s whose next unit is back in
 * 100 s) is believed: the callers are refused until it ends, no check goes into the 429 the
 * server announced, and the first request after it goes.
 */
class ToldWindowHoldTest {
  static final RequestInfo GET = RequestInfo.get(URI.create("https://api.example.com/items"));

  private static RateLimitSignal spent(int status, long windowSeconds, long resetSeconds,
      Optional<Duration> retryAfter) {
    return new RateLimitSignal(status,
        List.of(new QuotaPolicy("default", 7, QuotaUnit.REQUESTS,
            Optional.of(Duration.ofSeconds(windowSeconds)), Optional.empty(), "ietf")),
        List.of(new QuotaLimit("default", 0, Optional.of(Duration.ofSeconds(resetSeconds)),
            Optional.empty(), "ietf")),
        retryAfter, Optional.empty(), Optional.empty(), List.of(), List.of("ietf"), List.of(),
        status == 429);
  }

  @Test
  void aRetryAfterTheToldWindowExplainsIsWaitedOutThenTheNextRequestGoes() throws Exception {
    VirtualClock clock = VirtualClock.create();
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .jitter(Jitter.none()).maxWait(Duration.ofSeconds(2)).build();
    pacer.acquire(GET).complete(spent(429, 720, 400, Optional.of(Duration.ofSeconds(100))));
    for (int s = 1; s < 100; s++) {
      clock.advance(Duration.ofSeconds(1));
      assertThat(pacer.tryAcquire(GET)).as("at %d s", s).isEmpty();
    }
    // The server refills (its next unit is back much sooner than its reset): paced at its
    // refill rate from then, a unit every 720 / 7 = 103 s.
    clock.advance(Duration.ofSeconds(5));
    assertThat(pacer.tryAcquire(GET)).as("the unit the Retry-After said is back").isPresent();
  }

  @Test
  void aRetryAfterPastTheToldWindowIsStillChecked() throws Exception {
    // A Retry-After of an hour on a window the server says is a minute: not one the window
    // explains, checked after maxWait.
    VirtualClock clock = VirtualClock.create();
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .jitter(Jitter.none()).maxWait(Duration.ofSeconds(2)).build();
    pacer.acquire(GET).complete(spent(429, 60, 3600, Optional.of(Duration.ofSeconds(3600))));
    assertThat(pacer.tryAcquire(GET)).isEmpty();
    clock.advance(Duration.ofSeconds(2));
    assertThat(pacer.tryAcquire(GET)).as("the check").isPresent();
  }
}
