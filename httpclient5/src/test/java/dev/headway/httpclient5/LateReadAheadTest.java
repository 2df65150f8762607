package dev.headway.httpclient5;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Jitter;
import dev.headway.Pacer;
import dev.headway.PacingStrategy;
import dev.headway.testing.VirtualClock;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import org.apache.hc.client5.http.classic.methods.HttpGet;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManager;
import org.apache.hc.core5.http.ClassicHttpResponse;
import org.apache.hc.core5.http.config.RegistryBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * HttpClient5Exchange.discard closes a slow throttled body's connection and waits for the
 * read-ahead to stop, at most {@code BodyHints.WAIT} (100 ms), because the body's stream hands
 * its connection back through the execution's runtime, which the retry uses next. When the
 * read-ahead has not stopped by then (its read returns late after the close), the retry goes out
 * anyway; the late read's failure then reaches the runtime and discards the retry's connection,
 * under the caller who holds its response. Here the first connection's read, failed by the close,
 * is held until the caller has the retry's response.
 */
@Timeout(30)
class LateReadAheadTest {

  @Test
  void aReadAheadStoppingLateDoesNotTakeTheRetrysConnection() throws Exception {
    VirtualClock clock = VirtualClock.create().autoAdvance(true);
    CountDownLatch lateRead = new CountDownLatch(1);
    CountDownLatch readFailed = new CountDownLatch(1);
    AtomicInteger sockets = new AtomicInteger();
    try (MockWebServer server = new MockWebServer()) {
      server.start(InetAddress.getByName("127.0.0.1"), 0);
      server.enqueue(new MockResponse.Builder().code(429).addHeader("Retry-After", "1")
          .addHeader("Content-Type", "application/json").body("{\"error\":\"rate limited\"}")
          .throttleBody(1, 20, TimeUnit.SECONDS).build());
      server.enqueue(new MockResponse.Builder().code(200).body("ok").build());
      org.apache.hc.client5.http.io.DetachedSocketFactory plain = proxy -> {
          boolean first = sockets.incrementAndGet() == 1;
          return new Socket() {
            private InputStream in;

            @Override
            public synchronized InputStream getInputStream() throws IOException {
              if (in == null) {
                InputStream real = super.getInputStream();
                in = !first ? real : new InputStream() {
                  @Override
                  public int read() throws IOException {
                    byte[] one = new byte[1];
                    return read(one, 0, 1) == -1 ? -1 : one[0] & 0xff;
                  }

                  @Override
                  public int read(byte[] b, int off, int len) throws IOException {
                    try {
                      return real.read(b, off, len);
                    } catch (IOException e) {
                      readFailed.countDown();
                      try {
                        lateRead.await(10, TimeUnit.SECONDS); // returns late after the close
                      } catch (InterruptedException x) {
                        Thread.currentThread().interrupt();
                      }
                      throw e;
                    }
                  }
                };
              }
              return in;
            }
          };
      };
      PoolingHttpClientConnectionManager pool = new PoolingHttpClientConnectionManager(
          new org.apache.hc.client5.http.impl.io.DefaultHttpClientConnectionOperator(plain, null,
              null, RegistryBuilder.<org.apache.hc.client5.http.ssl.TlsSocketStrategy>create()
                  .build()),
          org.apache.hc.core5.pool.PoolConcurrencyPolicy.STRICT,
          org.apache.hc.core5.pool.PoolReusePolicy.LIFO, org.apache.hc.core5.util.TimeValue.NEG_ONE_MILLISECOND,
          null);
      Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
          .jitter(Jitter.none()).strategy(PacingStrategy.useAllThenWait())
          .maxWait(Duration.ofSeconds(10)).maxAttempts(3).build();
      try (CloseableHttpClient client = RateLimitExecChainHandler.create(pacer)
          .addTo(HttpClients.custom().setConnectionManager(pool)).build()) {
        ClassicHttpResponse response = client.executeOpen(null,
            new HttpGet(server.url("/a").toString()), null);
        assertThat(response.getCode()).isEqualTo(200);
        assertThat(readFailed.await(5, TimeUnit.SECONDS)).as("the close failed the read")
            .isTrue();
        assertThat(pool.getTotalStats().getLeased()).as("leased, the caller holding the 200")
            .isEqualTo(1);

        lateRead.countDown(); // the read-ahead's read returns now, after the retry went out
        // Its failure goes through the runtime on the read-ahead's thread: give it up to 2 s.
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        while (pool.getTotalStats().getLeased() == 1 && System.nanoTime() < until) {
          java.util.concurrent.locks.LockSupport.parkNanos(1_000_000L); // real time, bounded
        }
        assertThat(pool.getTotalStats().getLeased())
            .as("the caller still holds the 200: its connection must stay leased to it (%s)",
                pool.getTotalStats())
            .isEqualTo(1);
        response.close();
      }
    }
  }
}
