package dev.headway.okhttp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.headway.okhttp.testing.Harness;
import dev.headway.okhttp.testing.Mode;
import dev.headway.okhttp.testing.Reply;
import java.util.concurrent.TimeUnit;
import okhttp3.ConnectionPool;
import okhttp3.OkHttpClient;
import okhttp3.Response;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every response the interceptor discards is closed, and the harness's leak check (which every
 * test runs when it closes its {@link Harness}) can fail.
 */
class LeakDetectionTest {
  @Test
  void theHarnessLeakCheckFailsWhenAResponseIsLeftOpen() throws Exception {
    try (Harness h = Harness.start()) {
      h.fallback(Reply.status(200).body("never read"));
      Response leaked = h.client().newCall(h.get("/leak")).execute();

      assertThatThrownBy(h::assertNoLeakedConnection).isInstanceOf(AssertionError.class)
          .hasMessageContaining("connections still allocated");

      leaked.close();
    }
  }

  @Test
  void okHttpsLeakWarningReachesTheCapturedLogger() throws Exception {
    try (Harness h = Harness.start()) {
      h.client(h.interceptor(), b -> b.connectionPool(new ConnectionPool(5, 50,
          TimeUnit.MILLISECONDS)));
      h.fallback(Reply.status(200).body("never read"));
      leakOne(h.client(), h);
      h.client(h.interceptor(), b -> b); // drop the leaking client from the harness's check

      h.awaitCondition(() -> {
        System.gc();
        return !h.okhttpLog().isEmpty();
      });

      assertThat(h.okhttpLog()).anySatisfy(r -> assertThat(r.getMessage()).contains("leaked"));
      h.okhttpLogClear();
    }
  }

  private static void leakOne(OkHttpClient client, Harness h) throws Exception {
    client.newCall(h.get("/leak")).execute(); // not closed, on purpose
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void everyDiscardedThrottledResponseIsClosed(Mode mode) throws Exception {
    try (Harness h = Harness.start()) {
      h.pacer(p -> p.maxAttempts(3));
      h.fallback(Reply.status(429).header("Retry-After", "1").header("Content-Type",
          "application/json").body("{\"retry_after\": 1, \"padding\": \"" + "x".repeat(40_000)
          + "\"}"));

      assertThat(h.send(mode, h.get("/r")).code()).isEqualTo(429);
      assertThat(h.requestCount()).isEqualTo(3);
      h.assertNoLeakedConnection();
    }
  }
}
