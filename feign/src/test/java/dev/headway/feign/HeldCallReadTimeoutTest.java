package dev.headway.feign;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
import dev.headway.testing.CallerThread;
import dev.headway.testing.HeldCallers;
import dev.headway.testing.ScriptedServer;
import dev.headway.testing.VirtualClock;
import feign.Feign;
import feign.Param;
import feign.Request;
import feign.RequestLine;
import feign.RetryableException;
import feign.Retryer;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The read timeout ({@link Request.Options}) of a call Headway held, with Feign's default client:
 * counted from the call while the server has answered nothing on its partition, whole after the
 * server answered (see {@link HeldCallers}).
 */
@Timeout(60)
class HeldCallReadTimeoutTest {
  interface Api {
    @RequestLine("GET /items/{id}")
    String item(@Param("id") String id);
  }

  private static Api api(String url, Duration readTimeout, @Nullable Pacer pacer) {
    Feign.Builder builder = Feign.builder()
        .options(new Request.Options(1, TimeUnit.SECONDS, readTimeout.toMillis(),
            TimeUnit.MILLISECONDS, true))
        .retryer(Retryer.NEVER_RETRY); // each call fails once, as it times out
    if (pacer != null) {
      builder.addCapability(RateLimitCapability.create(pacer));
    }
    return builder.target(Api.class, url);
  }

  @Test
  void eightCallersAgainstAServerThatNeverAnswersFailAsSoonAsWithoutHeadway() throws Exception {
    // Failed before: the six callers behind the two probes went 550 ms late with the whole read
    // timeout, and failed at 1.5 s and later.
    HeldCallers.failAsSoonAsWithoutHeadway("feign", "read timeout", (server, pacer) -> {
      Api api = api(server.url(""), HeldCallers.TIMEOUT, pacer);
      return HeldCallers.callers(server, url -> CallerThread.start(
          () -> api.item(url.substring(url.lastIndexOf('/') + 1))));
    }, failure -> assertThat(failure).isInstanceOf(RetryableException.class)
        .hasCauseInstanceOf(SocketTimeoutException.class));
  }

  @Test
  void aWaitForASpentWindowTheServerAnnouncedLeavesTheReadTimeoutWhole() throws Exception {
    VirtualClock clock = VirtualClock.create();
    try (ScriptedServer server = HeldCallers.spentWindowThenSlow();
        Pacer pacer = clock.pacer().maxWait(Duration.ofSeconds(30)).build()) {
      Api api = api(server.url(""), Duration.ofSeconds(2), pacer);
      assertThat(api.item("a")).isEqualTo("ok");

      CompletableFuture<String> second = CompletableFuture.supplyAsync(() -> api.item("b"));
      HeldCallers.passTheWindow(server, pacer, clock);

      assertThat(second.get(20, TimeUnit.SECONDS)).as("answered within the whole 2 s")
          .isEqualTo("ok");
    }
  }
}
