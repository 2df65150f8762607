package dev.headway.internal.pacer;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import org.junit.jupiter.api.Test;

/** What the answers' {@code Date} fields teach of the server's clock. */
class ServerClockTest {
  private static final long MS = 1_000_000L;
  /** The ticker reads 0 when the server's clock reads this. */
  private static final Instant EPOCH = Instant.parse("2026-11-29T12:00:00Z");

  @Test
  void nothingIsKnownBeforeAnAnswer() {
    assertThat(new ServerClock().atLeast(0, 0)).isNull();
  }

  @Test
  void anAnswerJustAfterTheSecondTurnedBoundsTheClockClosely() {
    ServerClock clock = new ServerClock();
    // Sent at 0.95 s, answered at 1.01 s by the server's clock (Date names second 1), arrived
    // at 1.06 s.
    clock.answered(EPOCH.plusSeconds(1), 950 * MS, 1_060 * MS);
    // A request sent at 5.3 s: the server read at least 5.3 - 0.06 s when it answered.
    assertThat(clock.atLeast(5_300 * MS, 5_400 * MS)).isEqualTo(EPOCH.plusMillis(5_240));
  }

  @Test
  void aDateFarFromTheTickerIsNoError() {
    ServerClock clock = new ServerClock();
    clock.answered(Instant.parse("9999-12-31T23:59:59Z"), 0, MS);
    clock.answered(Instant.EPOCH, 0, 2 * MS);
    assertThat(clock.atLeast(3 * MS, 4 * MS)).isNotNull();
    ServerClock past = new ServerClock();
    past.answered(Instant.EPOCH, 5_000 * MS, 6_000 * MS);
    assertThat(past.atLeast(7_000 * MS, 8_000 * MS)).isEqualTo(Instant.EPOCH.plusSeconds(1));
  }

  @Test
  void anAnswerWhoseSecondEndedBeforeTheBoundIsAnotherClockAndStartsItAgain() {
    ServerClock clock = new ServerClock();
    clock.answered(EPOCH.plusSeconds(1), 950 * MS, 1_060 * MS); // bound: -60 ms
    // A backend whose clock is 1.5 s behind: sent at 3 s, its Date names second 1 (it read
    // 1.5 s), although the bound says it read at least 2.94 s.
    clock.answered(EPOCH.plusSeconds(1), 3_000 * MS, 3_100 * MS);
    Instant atLeast = clock.atLeast(5_000 * MS, 5_100 * MS);
    assertThat(atLeast).as("learned again from the answer that disproved it")
        .isEqualTo(EPOCH.plusMillis(5_000 + 1_000 - 3_100));
  }

  @Test
  void theBoundIsForgottenAfterAMinuteWithoutAnswers() {
    ServerClock clock = new ServerClock();
    clock.answered(EPOCH.plusSeconds(1), 950 * MS, 1_060 * MS);
    assertThat(clock.atLeast(30_000 * MS, 30_000 * MS)).isNotNull();
    assertThat(clock.atLeast(95_000 * MS, 95_000 * MS)).isNull();
  }
}
