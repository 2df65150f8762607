package dev.headway.internal.pacer;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The steady window on its own: a bare server that gave the same count twice is not sent more
 * than that count between one reopening and the next one predicted, where one request probes.
 * Times in seconds from first contact.
 */
class SteadyWindowTest {
  private static final long SECOND = 1_000_000_000L;
  private static final long PATIENCE = 10 * SECOND;

  private static long s(double seconds) {
    return (long) (seconds * SECOND);
  }

  /** Sends {@code count} requests from {@code from}, 10 ms apart, all admitted. */
  private static void sendAdmitted(SteadyWindow steady, int count, double from) {
    for (int i = 0; i < count; i++) {
      steady.commit(1, s(from + i * 0.01));
      steady.admitted(s(from + i * 0.01));
    }
  }

  /** A request sent at {@code at} into the spent server, refused. */
  private static void sendRefused(SteadyWindow steady, double at) {
    steady.commit(1, s(at));
    steady.refusedInCycle();
  }

  /**
   * A window of 20 that reopens every 60 s, met at 0 with its 20 left: the first burst's 20, a
   * first reopening found by probes between 30 s and 62 s, 20 admitted, a 429, probes, and a
   * second reopening between 94 s and 126 s.
   */
  private static SteadyWindow twoEqualCycles() {
    SteadyWindow steady = new SteadyWindow();
    steady.firstBurst(20);
    steady.cycleStarted();
    for (double at : new double[] {1, 3, 30}) {
      sendRefused(steady, at);
    }
    steady.commit(1, s(62));
    steady.admitted(s(62));
    steady.opened(s(30), s(62), 1);
    sendAdmitted(steady, 19, 62.01);
    steady.cycleClosed(20, true);
    steady.cycleStarted();
    assertThat(steady.active()).isFalse();
    for (double at : new double[] {64, 66, 70, 78, 94}) {
      sendRefused(steady, at);
    }
    steady.commit(1, s(126));
    steady.admitted(s(126));
    steady.opened(s(94), s(126), 1);
    return steady;
  }

  @Test
  void twoCyclesWithTheSameCountOfTenOrMoreMakeASteadyWindow() {
    SteadyWindow steady = twoEqualCycles();
    assertThat(steady.active()).isTrue();
    assertThat(steady.count()).isEqualTo(20);
  }

  @Test
  void theCountGoesFreelyThenTheNextRequestWaitsForThePredictedReopening() {
    SteadyWindow steady = twoEqualCycles();
    // One of the 20 is sent (the request that found the reopening): 19 more go when paced.
    assertThat(steady.notBefore(s(127))).isEqualTo(s(127));
    sendAdmitted(steady, 19, 126.1);
    // The period lies between 32 s (94 - 62) and 96 s (126 - 30): the next reopening after
    // 126 s and at or before 222 s; halfway is 174 s, but a try goes no later than a least
    // period after the earliest, 158 s, so that an admitted one is in the window expected.
    assertThat(steady.notBefore(s(130))).isEqualTo(s(158));
    steady.commit(1, s(158));
    assertThat(steady.probing(s(159), PATIENCE)).as("the probe is out").isTrue();
    // Refused as too early: the reopening is after 158 s; the next try halfway to 222 s, no
    // later than 158 + 32 s.
    assertThat(steady.refused(s(158))).isTrue();
    assertThat(steady.active()).isTrue();
    assertThat(steady.notBefore(s(160))).isEqualTo(s(190));
    steady.commit(1, s(190));
    steady.admitted(s(190));
    // Two periods from the first reopening: the period is now between 48 s ((158 - 62) / 2)
    // and 80 s ((190 - 30) / 2); the next reopening after 206 s, at or before 270 s: 238 s.
    sendAdmitted(steady, 19, 190.1);
    assertThat(steady.notBefore(s(195))).isEqualTo(s(238));
  }

  @Test
  void aProbeUnansweredPastThePatienceLetsAnotherGo() {
    SteadyWindow steady = twoEqualCycles();
    sendAdmitted(steady, 19, 126.1);
    steady.commit(1, s(158));
    assertThat(steady.probing(s(160), PATIENCE)).isTrue();
    assertThat(steady.probing(s(169), PATIENCE)).isFalse();
    assertThat(steady.notBefore(s(169))).isEqualTo(s(169));
  }

  @Test
  void anyOther429EndsTheSteadyWindow() {
    SteadyWindow steady = twoEqualCycles();
    sendAdmitted(steady, 5, 126.1);
    // Refused before the count was sent: the server gave less than the count.
    assertThat(steady.refused(s(126.2))).isFalse();
    assertThat(steady.active()).isFalse();
    assertThat(steady.notBefore(s(130))).isEqualTo(s(130));
  }

  @Test
  void countsThatDifferOrAreUnderTenMakeNoSteadyWindow() {
    SteadyWindow steady = new SteadyWindow();
    steady.firstBurst(9);
    steady.cycleStarted();
    steady.opened(s(30), s(62), 1);
    steady.cycleClosed(9, true);
    steady.cycleStarted();
    steady.opened(s(94), s(126), 1);
    assertThat(steady.active()).as("nine twice: a bucket's tokens repeat by chance").isFalse();
    steady.cycleClosed(12, true);
    steady.cycleStarted();
    steady.opened(s(150), s(190), 1);
    assertThat(steady.active()).as("9, then 12").isFalse();
  }
}
