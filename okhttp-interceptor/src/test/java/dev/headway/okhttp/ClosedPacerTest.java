package dev.headway.okhttp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.okhttp.testing.Harness;
import dev.headway.okhttp.testing.Mode;
import dev.headway.okhttp.testing.Outcome;
import dev.headway.okhttp.testing.Reply;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A call through a closed pacer fails with an {@link java.io.IOException} and sends nothing: a
 * closed pacer knows nothing any more, and letting the call out unpaced could draw the 429s it
 * exists to prevent.
 */
class ClosedPacerTest {
  @ParameterizedTest
  @EnumSource(Mode.class)
  void aCallThroughAClosedPacerFailsWithAnIOExceptionAndSendsNothing(Mode mode) throws Exception {
    try (Harness h = Harness.start()) {
      h.enqueue(Reply.status(200).body("ok"));
      h.pacer().close();

      Outcome outcome = h.send(mode, h.get("/closed"));

      assertThat(outcome.failure()).isNotNull();
      assertThat(outcome.failure()).hasMessageContaining("closed");
      assertThat(h.requestCount()).isZero();
    }
  }
}
