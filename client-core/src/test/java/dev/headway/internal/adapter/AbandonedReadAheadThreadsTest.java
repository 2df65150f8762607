package dev.headway.internal.adapter;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A server that stalls its throttled bodies, read with no read timeout (HttpURLConnection's
 * default, under Feign's default client and Spring's SimpleClientHttpRequestFactory), leaves one
 * helper blocked per retried 429 for as long as the server holds the connection: the helpers in
 * all stay bounded, past which bodies go without a hint.
 */
@Timeout(30)
class AbandonedReadAheadThreadsTest {
  @Test
  void abandonedStalledBodiesDoNotHoldThreadsWithoutBound() throws IOException {
    CountDownLatch serverCloses = new CountDownLatch(1);
    try {
      int before = readers();
      for (int i = 0; i < 3 * BodyTap.MAX_READERS; i++) {
        BodyTap stalled = BodyTap.start(stalling(serverCloses), 64);
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
