package dev.headway.internal.adapter;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.util.OptionalLong;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The body read-ahead every blocking adapter uses: bounded in bytes and time, nothing lost. */
@Timeout(10)
class BodyTapTest {
  private static final OptionalLong UNKNOWN_LENGTH = OptionalLong.empty();

  @Test
  void aShortBodyIsReadWholeAndTheCallerStillReadsEveryByte() throws IOException {
    BodyTap tap =
        BodyTap.start(new ByteArrayInputStream(bytes("{\"retry_after\": 3}")), 64, UNKNOWN_LENGTH);

    assertThat(tap.complete()).isTrue();
    assertThat(new String(tap.bytes(), UTF_8)).isEqualTo("{\"retry_after\": 3}");
    assertThat(tap.heldWhole(64)).isTrue();
    assertThat(new String(tap.stream().readAllBytes(), UTF_8)).isEqualTo("{\"retry_after\": 3}");
  }

  @Test
  void aLongBodyIsReadUpToTheLimitAndTheCallerGetsTheRest() throws IOException {
    String body = "x".repeat(10_000) + "y".repeat(10_000);
    BodyTap tap = BodyTap.start(new ByteArrayInputStream(bytes(body)), 10_001, UNKNOWN_LENGTH);

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

    // Returns after BodyHints.WAIT: the rest never came.
    BodyTap tap = BodyTap.start(body, 64, UNKNOWN_LENGTH);

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

    BodyTap tap = BodyTap.start(failing, 64, UNKNOWN_LENGTH);

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
    BodyTap tap = BodyTap.start(original, 10, UNKNOWN_LENGTH);

    tap.stream().close();

    assertThat(closed).isTrue();
    assertThatThrownBy(() -> tap.stream().read()).isInstanceOf(IOException.class);
  }

  @Test
  void aBodyWhoseDeclaredLengthArrivedGivesItsHintThoughItsEndComesLate() throws Exception {
    String hint = "{\"retry_after\": 3}";
    CountDownLatch endSent = new CountDownLatch(1);
    InputStream body = new EndHeldBack(bytes(hint), endSent);

    BodyTap tap = BodyTap.start(body, 64, OptionalLong.of(hint.length()));

    assertThat(tap.bytes()).as("the hint, every declared byte having arrived in time").isNotNull();
    assertThat(new String(tap.bytes(), UTF_8)).isEqualTo(hint);
    assertThat(tap.reading()).as("nothing left to read ahead").isFalse();
    assertThat(tap.heldWhole(64)).as("the whole body, to keep without its connection").isTrue();
    endSent.countDown();
    assertThat(new String(tap.stream().readAllBytes(), UTF_8)).isEqualTo(hint);
  }

  @Test
  void aBodyWithoutDeclaredLengthCountsOnlyOnceItEnds() throws Exception {
    String hint = "{\"retry_after\": 3}";
    CountDownLatch endSent = new CountDownLatch(1);
    InputStream body = new EndHeldBack(bytes(hint), endSent);

    // Returns after BodyHints.WAIT: the end never came.
    BodyTap tap = BodyTap.start(body, 64, UNKNOWN_LENGTH);

    assertThat(tap.bytes()).as("no hint from a body of unknown length not ended in time")
        .isNull();
    endSent.countDown();
    assertThat(new String(tap.stream().readAllBytes(), UTF_8)).isEqualTo(hint);
  }

  @Test
  void aBodyShorterThanItsDeclaredLengthIsStillNotWaitedFor() throws Exception {
    String hint = "{\"retry_after\": 3}";
    CountDownLatch endSent = new CountDownLatch(1);
    InputStream body = new EndHeldBack(bytes(hint), endSent);

    // Returns after BodyHints.WAIT: the rest of the declared bytes never came.
    BodyTap tap = BodyTap.start(body, 64, OptionalLong.of(hint.length() + 1));

    assertThat(tap.bytes()).as("no hint from a body cut short of its declared length").isNull();
    assertThat(tap.reading()).isTrue();
    endSent.countDown();
    assertThat(new String(tap.stream().readAllBytes(), UTF_8)).isEqualTo(hint);
  }

  /**
   * A body whose bytes are all handed over at once, and whose end is held back until released: a
   * client thread descheduled between the last bytes and the end of the stream.
   */
  private static final class EndHeldBack extends InputStream {
    private final byte[] bytes;
    private final CountDownLatch endSent;
    private int next;

    EndHeldBack(byte[] bytes, CountDownLatch endSent) {
      this.bytes = bytes;
      this.endSent = endSent;
    }

    @Override
    public int read() throws IOException {
      byte[] one = new byte[1];
      int n = read(one, 0, 1);
      return n == -1 ? -1 : one[0] & 0xff;
    }

    @Override
    public synchronized int read(byte[] into, int offset, int length) throws IOException {
      if (next < bytes.length) {
        int n = Math.min(length, bytes.length - next);
        System.arraycopy(bytes, next, into, offset, n);
        next += n;
        return n;
      }
      try {
        endSent.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted while the end was held back");
      }
      return -1;
    }
  }

  private static byte[] bytes(String s) {
    return s.getBytes(UTF_8);
  }
}
