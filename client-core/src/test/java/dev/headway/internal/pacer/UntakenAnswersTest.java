package dev.headway.internal.pacer;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The answers whose counts were not taken: a count taken later forgets exactly those that
 * arrived before its request was sent, however many there were and in whatever order they
 * were recorded; when the ring is full, units are kept longer, never lost.
 */
class UntakenAnswersTest {

  @Test
  void forgetsOnlyTheAnswersThatArrivedBeforeTheRequestWasSent() {
    UntakenAnswers answers = new UntakenAnswers();
    answers.add(10, 1);
    answers.add(20, 2);
    answers.add(30, 4);

    assertThat(answers.units()).isEqualTo(7);
    assertThat(answers.forgetBefore(10)).as("none arrived before 10").isZero();
    assertThat(answers.forgetBefore(21)).as("the answers at 10 and 20").isEqualTo(3);
    assertThat(answers.units()).as("the answer at 30 is kept").isEqualTo(4);
    assertThat(answers.forgetBefore(31)).as("the answer at 30").isEqualTo(4);
    assertThat(answers.forgetBefore(Long.MAX_VALUE)).isZero();
  }

  @Test
  void anAnswerRecordedOutOfOrderIsKeptAsLongAsTheLaterOne() {
    UntakenAnswers answers = new UntakenAnswers();
    answers.add(50, 1);
    answers.add(40, 2); // its time read a little before the last one's

    assertThat(answers.forgetBefore(45)).as("kept with the answer at 50").isZero();
    assertThat(answers.forgetBefore(51)).isEqualTo(3);
  }

  @Test
  void manyAnswersGrowTheRingAndWrapAroundWithoutLosingAUnit() {
    UntakenAnswers answers = new UntakenAnswers();
    long forgotten = 0;
    long t = 0;
    for (int round = 0; round < 5; round++) {
      for (int i = 0; i < 700; i++) {
        answers.add(++t, 1);
      }
      forgotten += answers.forgetBefore(t - 99); // keeps the last 100
    }
    assertThat(answers.units()).as("the last 100 kept").isEqualTo(100);
    assertThat(forgotten + answers.forgetBefore(Long.MAX_VALUE)).isEqualTo(3_500);
    assertThat(answers.units()).isZero();
  }

  @Test
  void pastItsMostEntriesTheOldestMergeAndAreKeptALittleLonger() {
    UntakenAnswers answers = new UntakenAnswers();
    for (int i = 1; i <= UntakenAnswers.MAX + 1; i++) {
      answers.add(i, 1);
    }
    // The answers at 1 and 2 became one, at 2: forgetting before 2 forgets nothing.
    assertThat(answers.forgetBefore(2)).isZero();
    assertThat(answers.forgetBefore(3)).isEqualTo(2);
    assertThat(answers.forgetBefore(Long.MAX_VALUE)).isEqualTo(UntakenAnswers.MAX - 1);
  }

  @Test
  void clearForgetsEverything() {
    UntakenAnswers answers = new UntakenAnswers();
    answers.add(1, 5);
    answers.clear();
    assertThat(answers.forgetBefore(Long.MAX_VALUE)).isZero();
    answers.add(2, 1);
    assertThat(answers.forgetBefore(3)).isEqualTo(1);
  }
}
