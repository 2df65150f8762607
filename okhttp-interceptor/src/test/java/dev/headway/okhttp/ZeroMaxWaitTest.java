package dev.headway.okhttp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.headway.RateLimitedException;
import dev.headway.okhttp.testing.Harness;
import dev.headway.okhttp.testing.Mode;
import dev.headway.okhttp.testing.Outcome;
import dev.headway.okhttp.testing.Reply;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A client that never waits: {@code maxWait(Duration.ZERO)} on the interceptor's builder sends
 * what may go at once and fails the rest at once with {@link RateLimitedException}, nothing sent.
 */
class ZeroMaxWaitTest {
  @ParameterizedTest
  @EnumSource(Mode.class)
  void aZeroMaxWaitSendsWhatMayGoNowAndFailsTheRestAtOnce(Mode mode) throws Exception {
    try (Harness h = Harness.start()) {
      h.interceptor(RateLimitInterceptor.builder(h.pacerBuilder().build())
          .maxWait(Duration.ZERO).build());
      h.enqueue(Reply.status(200).header("RateLimit-Policy", "\"default\";q=2;w=10")
          .header("RateLimit", "\"default\";r=0;t=10").body("first"));

      Outcome first = h.send(mode, h.get("/a"));
      assertThat(first.body()).as("a permit to be had at once").isEqualTo("first");
      Duration before = h.clock.elapsed();

      Outcome second = h.send(mode, h.get("/b"));

      assertThat(second.failure()).isInstanceOf(RateLimitedException.class);
      assertThat(h.requestCount()).as("nothing sent").isEqualTo(1);
      assertThat(h.clock.elapsed()).as("no wait").isEqualTo(before);
    }
  }

  @Test
  void theBuilderTakesZeroAndRefusesANegativeMaxWait() throws Exception {
    try (Harness h = Harness.start()) {
      assertThat(RateLimitInterceptor.builder(h.pacer()).maxWait(Duration.ZERO).build().maxWait())
          .isZero();
      assertThatThrownBy(() -> RateLimitInterceptor.builder(h.pacer())
          .maxWait(Duration.ofMillis(-1)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("maxWait must not be negative but was PT-0.001S");
    }
  }
}
