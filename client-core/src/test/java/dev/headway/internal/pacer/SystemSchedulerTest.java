package dev.headway.internal.pacer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.headway.Scheduler;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The production scheduler's sleep, as a caller interrupted while it waits sees it. */
class SystemSchedulerTest {
  @Test
  void anInterruptedSleepSaysWhatWasInterrupted() {
    Thread.currentThread().interrupt();
    try {
      assertThatThrownBy(() -> Scheduler.system().sleep(Duration.ofMinutes(1)))
          .isInstanceOf(InterruptedException.class)
          .hasMessage("interrupted while waiting for the rate limit");
      assertThat(Thread.currentThread().isInterrupted())
          .as("the flag is consumed by the exception, as Thread.sleep does").isFalse();
    } finally {
      Thread.interrupted();
    }
  }
}
