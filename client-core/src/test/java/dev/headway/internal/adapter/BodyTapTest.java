package dev.headway.internal.adapter;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The body read-ahead every blocking adapter uses: bounded in bytes and time, nothing lost. */
@Timeout(10)
class BodyTapTest {
  @Test
  void aShortBodyIsReadWholeAndTheCallerStillReadsEveryByte() throws IOException {
    BodyTap tap = BodyTap.start(new ByteArrayInputStream(bytes("{\"retry_after\": 3}")), 64);

    assertThat(tap.complete()).isTrue();
    assertThat(new String(tap.bytes(), UTF_8)).isEqualTo("{\"retry_after\": 3}");
    assertThat(tap.heldWhole(64)).isTrue();
    assertThat(new String(tap.stream().readAllBytes(), UTF_8)).isEqualTo("{\"retry_after\": 3}");
  }

  @Test
  void aLongBodyIsReadUpToTheLimitAndTheCallerGetsTheRest() throws IOException {
    String body = "x".repeat(10_000) + "y".repeat(10_000);
    BodyTap tap = BodyTap.start(new ByteArrayInputStream(bytes(body)), 10_001);

    assertThat(tap.complete()).isFalse();
    assertThat(tap.bytes()).hasSize(10_001);
    assertThat(tap.bytes(16)).hasSize(16);
    assertThat(tap.heldWhole(10_000)).isFalse();
    assertThat(new String(tap.stream().readAllBytes(), UTF_8)).isEqualTo(body);
  }

  @Test
  void aBodyThatDoesNotArriveInTimeIsNotWaitedForAndStillReachesTheCaller() throws IOException {
    PipedOutputStream server = new PipedOutputStream();
    PipedInputStream body = new PipedInputStream(server, 1024);
    server.write(bytes("{\"retry"));

    BodyTap tap = BodyTap.start(body, 64); // returns after BodyHints.WAIT: the rest never came

    assertThat(tap.bytes()).as("no hint from a body cut short by the time limit").isNull();
    assertThat(tap.reading()).isTrue();
    server.write(bytes("_after\": 3}"));
    server.close();
    assertThat(new String(tap.stream().readAllBytes(), UTF_8)).isEqualTo("{\"retry_after\": 3}");
  }

  @Test
  void aFailingBodyGivesNoHintAndTheCallerMeetsTheFailure() {
    InputStream failing = new InputStream() {
      @Override
      public int read() throws IOException {
        throw new IOException("connection reset");
      }
    };

    BodyTap tap = BodyTap.start(failing, 64);

    assertThat(tap.bytes()).isNull();
    assertThatThrownBy(() -> tap.stream().readAllBytes()).isInstanceOf(IOException.class)
        .hasMessageContaining("connection reset");
  }

  @Test
  void closingTheTappedBodyClosesTheOriginal() throws IOException {
    AtomicBoolean closed = new AtomicBoolean();
    InputStream original = new ByteArrayInputStream(bytes("x".repeat(1000))) {
      @Override
      public void close() {
        closed.set(true);
      }
    };
    BodyTap tap = BodyTap.start(original, 10);

    tap.stream().close();

    assertThat(closed).isTrue();
    assertThatThrownBy(() -> tap.stream().read()).isInstanceOf(IOException.class);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(UTF_8);
  }
}
