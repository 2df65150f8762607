package dev.headway.internal.pacer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/**
 * The steady window on its own: a bare server that gave the same count twice is not sent more
 * than that count between one reopening and the next one predicted, where one request probes.
 * A window of 20 that reopens every 60 s, first contact at 0 s; times in seconds.
 */
class SteadyWindowTest {
  private static final long SECOND = 1_000_000_000L;
  private static final long PATIENCE = 10 * SECOND;

  private static long s(double seconds) {
    return Math.round(seconds * SECOND);
  }

  private static void assertSeconds(long actualNanos, double seconds) {
    assertThat(actualNanos / 1e9).isCloseTo(seconds, within(1e-6));
  }

  /** Sends {@code count} requests from {@code from}, 10 ms apart, all admitted. */
  private static void sendAdmitted(SteadyWindow steady, int count, double from) {
    for (int i = 0; i < count; i++) {
      steady.commit(1, s(from + i * 0.01));
      steady.admitted(s(from + i * 0.01));
    }
  }

  /**
   * The first burst's 20 at 0 s, a first reopening found by probes after 30 s and at or before
   * 62 s, 20 admitted from there, and a 429 to the request sent at 63 s.
   */
  private static SteadyWindow firstBurstThenTheSameCount(long count) {
    SteadyWindow steady = new SteadyWindow();
    steady.firstBurst(count, 0);
    steady.opened(s(30), s(62));
    sendAdmitted(steady, (int) count, 62);
    steady.cycleClosed(count, true, s(63), s(63.05));
    return steady;
  }

  @Test
  void aCycleThatAdmittedAsManyAsTheFirstBurstMakesASteadyWindowAtItsCut() {
    SteadyWindow steady = firstBurstThenTheSameCount(20);
    assertThat(steady.active()).isTrue();
    assertThat(steady.count()).isEqualTo(20);
  }

  @Test
  void theFirstWindowBoundsThePeriodFromFirstContactAndTheProbesNarrowIt() {
    SteadyWindow steady = firstBurstThenTheSameCount(20);
    // The first window began at or before first contact and was still spent at 30 s: the period
    // is longer than 30 s, and nothing bounds it above yet. The next reopening is after 60 s:
    // the probe goes a least period after that, 90 s, where it is in the next window at most.
    assertSeconds(steady.notBefore(s(64)), 90);
    steady.commit(1, s(90));
    assertThat(steady.probing(s(91), PATIENCE)).as("the probe is out").isTrue();
    assertSeconds(steady.notBefore(s(91)), 91);
    // Refused: still the window that reopened by 62 s, so the period is longer than 28 s, and
    // the next reopening is after 90 s: the next try a least period (30 s) later.
    assertThat(steady.refused(s(90))).isTrue();
    assertThat(steady.active()).isTrue();
    assertSeconds(steady.notBefore(s(91)), 120);
    steady.commit(1, s(120));
    steady.admitted(s(120));
    // Three windows now: reopened by 0 s, in (30 s, 62 s], in (90 s, 120 s]. Two periods since
    // first contact reach past 90 s: the period is over 45 s; from the second window's earliest
    // to the third's latest it is at most 90 s. The next reopening is after 135 s (90 + 45) and
    // at or before 210 s (120 + 90): halfway, 172.5 s.
    sendAdmitted(steady, 19, 120.01);
    assertSeconds(steady.notBefore(s(121)), 172.5);
    steady.commit(1, s(172.5));
    assertThat(steady.refused(s(172.5))).isTrue();
    // Refused 52.5 s after the window that reopened by 120 s: halfway to 210 s next.
    assertSeconds(steady.notBefore(s(173)), 191.25);
    steady.commit(1, s(191.25));
    steady.admitted(s(191.25));
    sendAdmitted(steady, 19, 191.26);
    // Every two windows bound the period: over 57.5 s (three periods from first contact to
    // 172.5 s) and at most 80.625 s (two from 30 s to 191.25 s); the next reopening in
    // (230 s, 271.875 s], tried halfway.
    assertSeconds(steady.notBefore(s(192)), 250.9375);
  }

  @Test
  void the429sOfTheOvershootThatClosedTheCycleDoNotEndIt() {
    SteadyWindow steady = firstBurstThenTheSameCount(20);
    // Sent before the cut arrived, refused after it: the same overshoot.
    assertThat(steady.refused(s(63.02))).isFalse();
    assertThat(steady.active()).isTrue();
  }

  @Test
  void aProbeUnansweredPastThePatienceLetsAnotherGo() {
    SteadyWindow steady = firstBurstThenTheSameCount(20);
    steady.commit(1, s(90));
    assertThat(steady.probing(s(95), PATIENCE)).isTrue();
    assertThat(steady.probing(s(101), PATIENCE)).isFalse();
    assertSeconds(steady.notBefore(s(101)), 101);
  }

  @Test
  void anyOther429EndsTheSteadyWindow() {
    SteadyWindow steady = firstBurstThenTheSameCount(20);
    steady.commit(1, s(90));
    steady.admitted(s(90));
    sendAdmitted(steady, 5, 90.01);
    // Refused before the count was sent: the server gave less than the count.
    assertThat(steady.refused(s(90.1))).isFalse();
    assertThat(steady.active()).isFalse();
    assertSeconds(steady.notBefore(s(91)), 91);
  }

  @Test
  void countsThatDifferOrAreUnderTenMakeNoSteadyWindow() {
    assertThat(firstBurstThenTheSameCount(9).active())
        .as("nine twice: a bucket's tokens repeat by chance").isFalse();
    SteadyWindow steady = new SteadyWindow();
    steady.firstBurst(20, 0);
    steady.opened(s(30), s(62));
    steady.cycleClosed(12, true, s(63), s(63.05));
    assertThat(steady.active()).as("20, then 12").isFalse();
    steady.opened(s(94), s(126));
    steady.cycleClosed(12, true, s(127), s(127.05));
    assertThat(steady.active()).as("12 twice").isTrue();
  }
}
