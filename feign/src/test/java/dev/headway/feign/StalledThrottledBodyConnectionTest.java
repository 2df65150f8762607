package dev.headway.feign;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
import dev.headway.testing.StalledBodyServer;
import dev.headway.testing.VirtualClock;
import java.time.Duration;
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
    try (StalledBodyServer server = StalledBodyServer.start()) {
      Api api = Feign.builder()
          .options(new Request.Options(1, TimeUnit.SECONDS, 1, TimeUnit.SECONDS, true))
          .addCapability(RateLimitCapability.create(pacer))
          .target(Api.class, server.url());

      String body = api.items();

      assertThat(body).isEqualTo("ok");
      assertThat(server.firstClosedWithin(Duration.ofSeconds(15)))
          .as("the stalled 429's connection closed once the read-ahead's read timed out").isTrue();
    } finally {
      pacer.close();
    }
  }
}
