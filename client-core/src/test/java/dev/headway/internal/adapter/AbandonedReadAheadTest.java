package dev.headway.internal.adapter;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A throttled body that stalls, read with no read timeout (HttpURLConnection's default, under
 * Feign's default client and Spring's {@code SimpleClientHttpRequestFactory}), keeps its
 * read-ahead blocked until the server sends or closes: no other thread can close that stream. When
 * the retry goes out, the call drops the body; such an abandoned read must not keep later calls
 * from having their bodies read (hints, and a kept body that is never drained on the caller's
 * thread).
 */
@Timeout(30)
class AbandonedReadAheadTest {
  private static final String HINT = "{\"retry_after\": 3}";
  private static final OptionalLong UNKNOWN_LENGTH = OptionalLong.empty();

  /**
   * Each test ends by letting its stalled bodies' reads return; the helpers they held must be free
   * again before the next test (of any class in this JVM) starts one, or that test finds every
   * helper taken and its body goes without a hint.
   */
  @AfterEach
  void theStalledReadsHaveReturned() {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!BodyTap.idle() && System.nanoTime() < deadline) {
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
    }
    assertThat(BodyTap.idle()).as("every helper free 10 s after the server closed").isTrue();
  }

  @Test
  void bodiesTheirCallersGaveUpOnDoNotTakeTheReadersOfLaterBodies() throws IOException {
    CountDownLatch serverCloses = new CountDownLatch(1);
    try {
      for (int i = 0; i < BodyTap.MAX_READERS + 1; i++) {
        BodyTap stalled = BodyTap.start(stalling(serverCloses), 64, UNKNOWN_LENGTH);
        assertThat(stalled).as("a reader for stalled body %s", i).isNotNull();
        assertThat(stalled.reading()).isTrue();
        stalled.stream().close(); // the retry went out: the call gave up on this body
      }

      BodyTap next =
          BodyTap.start(new ByteArrayInputStream(HINT.getBytes(UTF_8)), 64, UNKNOWN_LENGTH);

      assertThat(next).as("a reader for the next throttled body").isNotNull();
      assertThat(new String(next.bytes(), UTF_8)).isEqualTo(HINT);
    } finally {
      serverCloses.countDown();
    }
  }

  @Test
  void bodiesStillReadForTheirCallersAreCapped() throws IOException {
    CountDownLatch serverCloses = new CountDownLatch(1);
    List<BodyTap> live = new ArrayList<>();
    try {
      for (int i = 0; i < BodyTap.MAX_READERS; i++) {
        live.add(BodyTap.start(stalling(serverCloses), 64, UNKNOWN_LENGTH));
      }
      assertThat(live).doesNotContainNull();

      assertThat(BodyTap.start(new ByteArrayInputStream(HINT.getBytes(UTF_8)), 64, UNKNOWN_LENGTH))
          .as("no reader while %s bodies are read for their calls", BodyTap.MAX_READERS).isNull();
    } finally {
      serverCloses.countDown();
      for (BodyTap tap : live) {
        tap.stream().close();
      }
    }
  }

  /**
   * A server that stalls its throttled bodies, read with no read timeout, leaves one helper
   * blocked per retried 429 for as long as it holds the connection: the helpers in all stay
   * bounded, past which bodies go without a hint.
   */
  @Test
  void abandonedStalledBodiesDoNotHoldThreadsWithoutBound() throws IOException {
    CountDownLatch serverCloses = new CountDownLatch(1);
    try {
      int before = readers();
      for (int i = 0; i < 3 * BodyTap.MAX_READERS; i++) {
        BodyTap stalled = BodyTap.start(stalling(serverCloses), 64, UNKNOWN_LENGTH);
        if (stalled != null) {
          stalled.stream().close(); // the retry went out: the call gave up on this body
        }
      }
      assertThat(readers() - before)
          .as("helper threads blocked on bodies nobody wants (%s retried 429s)",
              3 * BodyTap.MAX_READERS)
          .isLessThanOrEqualTo(2 * BodyTap.MAX_READERS);
    } finally {
      serverCloses.countDown();
    }
  }

  private static int readers() {
    return (int) Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().equals("headway-body-reader") && t.isAlive()).count();
  }

  /** A body that sends nothing until the server closes the connection. */
  private static InputStream stalling(CountDownLatch serverCloses) {
    return new InputStream() {
      @Override
      public int read() throws IOException {
        try {
          serverCloses.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IOException(e);
        }
        return -1;
      }
    };
  }
}
