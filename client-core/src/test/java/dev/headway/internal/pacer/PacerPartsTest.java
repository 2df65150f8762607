package dev.headway.internal.pacer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.QuotaUnit;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The small parts the engine is wired from, each on its own: decisions, the waiting line, units
 * in flight, holds and probing, jitter.
 */
class PacerPartsTest {
  private static final long SECOND = 1_000_000_000L;

  private static PermitImpl permit(Partition partition, long requests, long bytes, long tokens) {
    return new PermitImpl(null, partition, requests, bytes, tokens);
  }

  @Test
  void aDecisionToGoAtItsOwnInstantIsTheSharedGoNow() {
    assertThat(Decision.go(5, 5, "p")).isSameAs(Decision.NOW);
    assertThat(Decision.NOW.goesNow()).isTrue();
    Decision later = Decision.go(9, 5, "p");
    assertThat(later.goesNow()).isFalse();
    assertThat(later.verdict).isEqualTo(Decision.Verdict.GO);
    assertThat(later.waitNanos()).isEqualTo(4);
    assertThat(later.decider).isEqualTo("p");
  }

  @Test
  void lookingAgainPastTheDeadlineIsARejection() {
    assertThat(Decision.later(10, 9, 0, null).verdict).isEqualTo(Decision.Verdict.REJECT);
    assertThat(Decision.later(9, 9, 0, null).verdict).isEqualTo(Decision.Verdict.RECHECK);
    assertThat(Decision.reject(3, 5, null).waitNanos()).isZero();
  }

  @Test
  void inFlightCountsEachUnitByNameAndConcurrencyByPermits() {
    Partition partition = new Partition("k", null, 0);
    InFlight inFlight = partition.inFlight;
    PermitImpl a = permit(partition, 1, 300, 7);
    PermitImpl b = permit(partition, 2, 0, 5);
    inFlight.add(a);
    inFlight.add(b);
    assertThat(inFlight.units(QuotaUnit.REQUESTS)).isEqualTo(3);
    assertThat(inFlight.units(QuotaUnit.CONTENT_BYTES)).isEqualTo(300);
    assertThat(inFlight.units(QuotaUnit.TOKENS)).isEqualTo(12);
    assertThat(inFlight.units(QuotaUnit.CONCURRENT_REQUESTS)).isZero();
    assertThat(inFlight.permits()).isEqualTo(2);
    inFlight.remove(a);
    assertThat(inFlight.units(QuotaUnit.TOKENS)).isEqualTo(5);
    assertThat(inFlight.permits()).isEqualTo(1);
  }

  @Test
  void anOlderCallerInLineGoesFirstAndLosesItsPlaceIfItDoesNotComeBack() {
    Partition partition = new Partition("k", null, 0);
    WaitingLine line = partition.line;
    long recheck = SECOND;
    PermitImpl older = permit(partition, 1, 0, 0);
    older.ticket = line.nextTicket();
    PermitImpl younger = permit(partition, 1, 0, 0);
    younger.ticket = line.nextTicket();
    assertThat(line.turn(younger, 0, 0, null, recheck)).isEqualTo(Long.MIN_VALUE);

    line.join(older, SECOND / 2, null, false);
    assertThat(older.waitWakeNanos).isEqualTo(SECOND / 2);
    // The older one looks again within a recheck interval: the younger waits for it.
    assertThat(line.turn(younger, 0, 0, null, recheck)).isEqualTo(SECOND / 2);
    // Nobody younger holds the older one back.
    assertThat(line.turn(older, 0, 0, null, recheck)).isEqualTo(Long.MIN_VALUE);
    // Due now but not back yet: the younger looks again a moment later.
    assertThat(line.turn(younger, SECOND / 2, SECOND / 2, null, recheck))
        .isEqualTo(SECOND / 2 + recheck / 50);
    // More than a recheck interval late: its place is lost.
    assertThat(line.turn(younger, 2 * SECOND, 2 * SECOND, null, recheck))
        .isEqualTo(Long.MIN_VALUE);
    assertThat(line.turn(younger, SECOND / 2, SECOND / 2, null, recheck))
        .isEqualTo(Long.MIN_VALUE);

    line.join(older, 3 * SECOND, null, false);
    line.leave(older);
    assertThat(older.waitWakeNanos).isEqualTo(Long.MAX_VALUE);
    assertThat(line.turn(younger, 3 * SECOND, 3 * SECOND, null, recheck))
        .isEqualTo(Long.MIN_VALUE);
  }

  @Test
  void callersDueAtOneInstantGoInTheOrderTheyCameAndNoneTakesAResetOlderOnesWaitFor() {
    Partition partition = new Partition("k", null, 0);
    WaitingLine line = partition.line;
    PermitImpl older = permit(partition, 1, 0, 0);
    older.ticket = line.nextTicket();
    PermitImpl younger = permit(partition, 1, 0, 0);
    younger.ticket = line.nextTicket();
    ServerPolicy policy = new ServerPolicy("default", QuotaUnit.REQUESTS, "test", 0);
    policy.quota = 5; // a window of 5 per 3 s
    policy.window.windowNanos = 3 * SECOND;
    line.join(older, 3 * SECOND, policy, false);
    line.join(younger, 3 * SECOND, policy, false);
    // Both woken at the reset: the younger looks again a moment later, the older goes.
    assertThat(line.turn(younger, 3 * SECOND, 3 * SECOND, null, SECOND / 20))
        .isEqualTo(3 * SECOND + SECOND / 1000);
    assertThat(line.turn(older, 3 * SECOND, 3 * SECOND, null, SECOND / 20))
        .isEqualTo(Long.MIN_VALUE);
    // A newcomer that would go at the reset (a new window's probe) waits for the older ones.
    line.leave(younger);
    PermitImpl newcomer = permit(partition, 1, 0, 0);
    newcomer.ticket = line.nextTicket();
    assertThat(line.turn(newcomer, SECOND, 3 * SECOND, policy, SECOND / 20)).isEqualTo(3 * SECOND);
    // Nor one that would go by another policy at the reset.
    ServerPolicy other = new ServerPolicy("other", QuotaUnit.REQUESTS, "test", 0);
    other.quota = 5;
    other.window.windowNanos = 3 * SECOND;
    assertThat(line.turn(newcomer, SECOND, 3 * SECOND, other, SECOND / 20))
        .isEqualTo(Long.MIN_VALUE);
    // One that could go now does not wait for them.
    assertThat(line.turn(newcomer, SECOND, SECOND, policy, SECOND / 20))
        .isEqualTo(Long.MIN_VALUE);
  }

  @Test
  void aCallerDueFartherThanARecheckIntervalHoldsNobodyBack() {
    Partition partition = new Partition("k", null, 0);
    PermitImpl older = permit(partition, 1, 0, 0);
    older.ticket = partition.line.nextTicket();
    PermitImpl younger = permit(partition, 1, 0, 0);
    younger.ticket = partition.line.nextTicket();
    partition.line.join(older, 10 * SECOND, null, false);
    assertThat(partition.line.turn(younger, 0, 0, null, SECOND)).isEqualTo(Long.MIN_VALUE);
  }

  @Test
  void probingLetsOnlyTheProbesOutUntilAResponseToALaterRequest() {
    Hold hold = new Hold();
    assertThat(hold.closed(0, 2)).isFalse();
    assertThat(hold.closed(2, 2)).isTrue();
    hold.answered(0, 200, 0);
    assertThat(hold.closed(50, 2)).isFalse();
  }

  @Test
  void aHoldIsNeverShortenedAndProbesAfterIt() {
    Hold hold = new Hold();
    hold.known();
    hold.holdFor(0, 10 * SECOND, false, 2);
    assertThat(hold.untilNanos()).isEqualTo(10 * SECOND);
    assertThat(hold.beyond(5 * SECOND)).isTrue();
    hold.holdFor(SECOND, SECOND, false, 2);
    assertThat(hold.untilNanos()).isEqualTo(10 * SECOND);
    assertThat(hold.closed(2, 2)).isTrue();
    // A response to a request sent before the hold ended does not end probing.
    hold.answered(9 * SECOND, 200, 11 * SECOND);
    assertThat(hold.closed(2, 2)).isTrue();
    hold.answered(10 * SECOND, 200, 11 * SECOND);
    assertThat(hold.closed(2, 2)).isFalse();
  }

  @Test
  void anUnexplainedHoldRampsUpOnePermitPerSuccess() {
    Hold hold = new Hold();
    hold.known();
    assertThat(hold.throttled(0, SECOND / 10)).isEqualTo(1);
    assertThat(hold.throttled(SECOND / 5, SECOND / 4)).isEqualTo(2);
    hold.holdFor(0, 10 * SECOND, true, 2);
    hold.answered(10 * SECOND, 200, 11 * SECOND);
    assertThat(hold.closed(2, 2)).isFalse();
    assertThat(hold.closed(3, 2)).isTrue();
    assertThat(hold.throttled(11 * SECOND, 12 * SECOND)).isEqualTo(1); // the success reset it
    hold.answered(10 * SECOND, 200, 20 * SECOND); // as long again as the hold: unbounded
    assertThat(hold.closed(1000, 2)).isFalse();
  }

  @Test
  void throttlesToRequestsInFlightTogetherAreOneInARow() {
    Hold hold = new Hold();
    hold.known();
    // Eight requests sent at 0 to 0.07 s, all refused: the 429s after the first answer requests
    // sent before it arrived (the same overshoot), so the backoff does not double for each.
    for (int i = 0; i < 8; i++) {
      assertThat(hold.throttled(i * SECOND / 100, SECOND / 10 + i * SECOND / 100))
          .as("429 %d of the same burst", i).isEqualTo(1);
    }
    // A request sent after the first 429 arrived and throttled again: one more in a row.
    assertThat(hold.throttled(2 * SECOND, 2 * SECOND + SECOND / 10)).isEqualTo(2);
    assertThat(hold.throttled(SECOND, 3 * SECOND)).as("sent before the second").isEqualTo(2);
    assertThat(hold.throttled(5 * SECOND, 6 * SECOND)).isEqualTo(3);
  }

  @Test
  void seededJitterDrawsTheSameSequenceAsTheGeneratorItself() {
    JitterSource source = new JitterSource(Jitters.FULL, new Random(42), 10 * SECOND);
    Random expected = new Random(42);
    for (int i = 0; i < 100; i++) {
      long spread = Math.min(10 * SECOND, (100 * SECOND) / 5);
      long extra = Math.min(Jitters.FULL.extra(Duration.ofNanos(spread), expected).toNanos(),
          spread);
      assertThat(source.serverTime(100 * SECOND, 0, Long.MAX_VALUE, 0, false))
          .isEqualTo(100 * SECOND + extra);
    }
    assertThat(source.below(1000)).isEqualTo(expected.nextLong(1000));
  }

  @Test
  void jitterOnlyAddsAndNeverPassesTheDeadline() throws InterruptedException {
    JitterSource unseeded = new JitterSource(Jitters.FULL, null, SECOND);
    JitterSource seeded = new JitterSource(Jitters.FULL, new Random(1), SECOND);
    List<Thread> threads = new ArrayList<>();
    List<Long> bad = java.util.Collections.synchronizedList(new ArrayList<>());
    for (int t = 0; t < 4; t++) {
      Thread thread = new Thread(() -> {
        for (int i = 0; i < 10_000; i++) {
          for (JitterSource source : List.of(unseeded, seeded)) {
            long at = source.serverTime(20 * SECOND, 0, 20 * SECOND + SECOND / 2, 0, false);
            if (at < 20 * SECOND || at > 20 * SECOND + SECOND / 2) {
              bad.add(at);
            }
          }
        }
      });
      threads.add(thread);
      thread.start();
    }
    for (Thread thread : threads) {
      thread.join();
    }
    assertThat(bad).isEmpty();
  }
}
