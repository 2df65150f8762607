package dev.headway.jdk;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
import dev.headway.testing.HeldCallers;
import dev.headway.testing.ScriptedServer;
import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The request's timeout ({@link HttpRequest#timeout()}) of a call Headway held: counted from the
 * call while the server has answered nothing on its partition, whole after the server answered
 * (see {@link HeldCallers}).
 */
@Timeout(60)
class HeldCallTimeoutTest {
  private final HttpClient delegate =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  @ParameterizedTest
  @EnumSource(Mode.class)
  void eightCallersAgainstAServerThatNeverAnswersFailAsSoonAsWithoutHeadway(Mode mode)
      throws Exception {
    // Failed before: the six callers behind the two probes went 550 ms late with the whole
    // timeout, and failed at about 1.55 s.
    HeldCallers.failAsSoonAsWithoutHeadway("jdk " + mode, "request timeout", (server, pacer) -> {
      HttpClient client = pacer == null ? delegate : RateLimitedHttpClient.wrap(delegate, pacer);
      return HeldCallers.callers(server, url -> mode.start(client,
          request(url, HeldCallers.TIMEOUT), BodyHandlers.discarding()).future());
    }, failure -> assertThat(failure).isInstanceOf(HttpTimeoutException.class));
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void aWaitForASpentWindowTheServerAnnouncedLeavesTheTimeoutWhole(Mode mode) throws Exception {
    VirtualClock clock = VirtualClock.create();
    try (ScriptedServer server = HeldCallers.spentWindowThenSlow();
        Pacer pacer = clock.pacer().maxWait(Duration.ofSeconds(30)).build()) {
      HttpClient client = RateLimitedHttpClient.wrap(delegate, pacer);
      assertThat(client.send(request(server.url("/a"), Duration.ofSeconds(2)),
          BodyHandlers.ofString()).statusCode()).isEqualTo(200);

      Mode.Call<String> second = mode.start(client,
          request(server.url("/b"), Duration.ofSeconds(2)), BodyHandlers.ofString());
      HeldCallers.passTheWindow(server, pacer, clock);

      assertThat(second.future().get(20, TimeUnit.SECONDS).statusCode())
          .as("answered within the whole 2 s").isEqualTo(200);
    }
  }

  private static HttpRequest request(String url, Duration timeout) {
    return HttpRequest.newBuilder(URI.create(url)).timeout(timeout).build();
  }
}
