package dev.headway.pacer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Jitter;
import dev.headway.Pacer;
import dev.headway.RateLimitSignal;
import dev.headway.RequestInfo;
import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * When a cut after a told end leaves the learned pace's ceiling at the cut (the first request
 * paced after the reopening refused: that pace was never admitted), and when it does not: an
 * instance that has seen the server not give at an end it told shares the quota with other
 * clients (the instances of a fleet without a store, told the same end, come back together),
 * and there the refusal may be theirs, not this pace's, as it is when the next end told is a
 * whole first window later (a window counter spent by others after giving this client one
 * request); nor does a {@code Retry-After} of one second say how far off the pace is. Scripted answers to one pacer, virtual time: what is
 * observed is how long the request after the next reopening waits.
 */
@Timeout(60)
class OthersSpendTheQuotaTest {
  static final RequestInfo GET = RequestInfo.get(URI.create("https://api.example.com/items"));

  private final VirtualClock clock = VirtualClock.create();

  private static RateLimitSignal retryAfter(long seconds) {
    return Signals.throttled(429, Optional.of(Duration.ofSeconds(seconds)), List.of(),
        Optional.empty());
  }

  /** Acquires (sleeping through any wait in virtual time), answers, and returns the wait. */
  private Duration send(Pacer pacer, RateLimitSignal answer) throws Exception {
    long before = clock.read();
    var permit = pacer.acquire(GET);
    Duration waited = Duration.ofNanos(clock.read() - before);
    permit.complete(answer);
    return waited;
  }

  /**
   * Five admitted, then {@code Retry-After: 5} (a first window's end: 5 per 5 s); optionally a
   * request at that told end refused again (others took what came back); the reopening at the
   * next told end admitted; the first request paced after it refused with
   * {@code Retry-After: cutSeconds}; the reopening after that admitted. Returns how long the
   * request after it waits for the pace.
   */
  private Duration waitAfterTheCut(boolean missedToldEnd, long cutSeconds) throws Exception {
    clock.autoAdvance(true);
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .jitter(Jitter.none()).build();
    for (int i = 0; i < 5; i++) {
      send(pacer, RateLimitSignal.none(200));
      clock.advance(Duration.ofMillis(10));
    }
    send(pacer, retryAfter(5));
    if (missedToldEnd) {
      send(pacer, retryAfter(5));
    }
    send(pacer, RateLimitSignal.none(200)); // the reopening, at the told end
    send(pacer, retryAfter(cutSeconds)); // the first request paced after it
    send(pacer, RateLimitSignal.none(200)); // the next reopening
    return send(pacer, RateLimitSignal.none(200));
  }

  @Test
  void aloneThePaceThatWasNeverAdmittedIsNoCeiling() throws Exception {
    // Cut to one request per 3 s hold; back toward the refused pace (0.9 a second), one
    // admitted request would shorten the spacing to 2.5 s. It stays at the cut.
    assertThat(waitAfterTheCut(false, 3)).isGreaterThanOrEqualTo(Duration.ofMillis(2_900));
  }

  @Test
  void whereOthersTookWhatAToldEndGaveThePaceReturnsAsBefore() throws Exception {
    // The same, after a request at the first told end was refused: 2.5 s (3 s if the cut were
    // the ceiling).
    assertThat(waitAfterTheCut(true, 3)).isLessThan(Duration.ofMillis(2_800));
  }

  @Test
  void aRetryAfterOfOneSecondLeavesTheCeilingWhereItWas() throws Exception {
    // Cut to what the cycle sustained (0.47 a second); back toward 0.9 a second, one admitted
    // request shortens the spacing to 1.85 s (2.05 s if the cut were the ceiling).
    assertThat(waitAfterTheCut(false, 1)).isLessThan(Duration.ofMillis(2_000));
  }

  @Test
  void aWindowSpentAfterGivingOneRequestLeavesTheCeilingWhereItWas() throws Exception {
    // The next end told a whole first window (5 s) after the reopening's: a window counter,
    // which gave this client one request and was spent, by others. Back toward 0.9 a second:
    // 3.5 s (5 s if the cut were the ceiling).
    assertThat(waitAfterTheCut(false, 5)).isLessThan(Duration.ofMillis(4_000));
  }
}
