package dev.headway.feign;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
import dev.headway.testing.VirtualClock;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import feign.Feign;
import feign.Request;
import feign.RequestLine;

/**
 * A throttled body that stalls, on Feign's default client (HttpURLConnection), is retried past,
 * and its connection closed once the read-ahead's read returns: here at the client's read timeout (1 s), after which HttpURLConnection's own
 * keep-alive cleaner gives the rest of the body up to 5 s before it closes the socket. Without a
 * read timeout that read never returns and nothing can close the connection: HttpURLConnection's
 * {@code disconnect()} and its stream's {@code close()} both wait for the blocked read (they take
 * the stream's lock), and an interrupt does not end it; the read-ahead then no longer counts
 * against the readers of later bodies ({@code AbandonedReadAheadTest}). A raw server: the first
 * connection answers 429 with one byte of its body and then says nothing.
 */
@Timeout(30)
class StalledThrottledBodyConnectionTest {
  interface Api {
    @RequestLine("GET /items")
    String items();
  }

  @Test
  void theStalledBodysConnectionIsClosedWhenTheRetryGoesOut() throws Exception {
    VirtualClock clock = VirtualClock.create().autoAdvance(true);
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .maxWait(Duration.ofSeconds(10)).build();
    CountDownLatch firstClosed = new CountDownLatch(1);
    try (ServerSocket listener = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"))) {
      Thread server = new Thread(() -> {
        try {
          Socket first = listener.accept();
          readHead(first.getInputStream());
          OutputStream out = first.getOutputStream();
          out.write(("HTTP/1.1 429 Too Many Requests\r\nRetry-After: 1\r\n"
              + "Content-Type: application/json\r\nContent-Length: 24\r\n\r\n{")
              .getBytes(StandardCharsets.US_ASCII));
          out.flush();
          Thread closer = new Thread(() -> {
            try {
              while (first.getInputStream().read() != -1) {
                // nothing comes; -1 or an exception when the client closes
              }
            } catch (IOException e) {
              // reset by the client: closed too
            }
            firstClosed.countDown();
          });
          closer.setDaemon(true);
          closer.start();
          Socket second = listener.accept();
          readHead(second.getInputStream());
          second.getOutputStream().write(("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n"
              + "Connection: close\r\n\r\nok").getBytes(StandardCharsets.US_ASCII));
          second.getOutputStream().flush();
          second.close();
        } catch (IOException e) {
          // the test fails on what the client saw
        }
      });
      server.setDaemon(true);
      server.start();
      Api api = Feign.builder()
          .options(new Request.Options(1, TimeUnit.SECONDS, 1, TimeUnit.SECONDS, true))
          .addCapability(RateLimitCapability.create(pacer))
          .target(Api.class, "http://127.0.0.1:" + listener.getLocalPort());

      String body = api.items();

      assertThat(body).isEqualTo("ok");
      assertThat(firstClosed.await(15, TimeUnit.SECONDS))
          .as("the stalled 429's connection closed once the read-ahead's read timed out").isTrue();
    } finally {
      pacer.close();
    }
  }

  private static void readHead(InputStream in) throws IOException {
    int matched = 0;
    int b;
    while (matched < 4 && (b = in.read()) != -1) {
      matched = (b == "\r\n\r\n".charAt(matched)) ? matched + 1 : (b == '\r' ? 1 : 0);
    }
  }
}
