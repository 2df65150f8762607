package dev.headway.jdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A call through a closed pacer fails with an {@link IOException} and sends nothing: a closed
 * pacer knows nothing any more, and letting the call out unpaced could draw the 429s it exists
 * to prevent.
 */
class ClosedPacerTest {
  @ParameterizedTest(name = "{0}")
  @EnumSource(Mode.class)
  void aCallThroughAClosedPacerFailsWithAnIOExceptionAndSendsNothing(Mode mode) throws Exception {
    try (Harness h = new Harness()) {
      h.enqueue(200, "ok");
      h.pacer.close();

      assertThatThrownBy(() -> h.call(mode, h.get("/closed")))
          .isInstanceOf(IOException.class)
          .hasMessageContaining("closed");
      assertThat(h.requests()).isZero();
    }
  }
}
