package dev.headway.okhttp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.RateLimitedException;
import dev.headway.okhttp.testing.Harness;
import dev.headway.okhttp.testing.Mode;
import dev.headway.okhttp.testing.Outcome;
import dev.headway.okhttp.testing.Reply;
import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Values meant to stall a client never hold a call past maxWait. */
class HostileServerTest {
  private static final Duration MAX_WAIT = Duration.ofSeconds(10);

  private static void assertNeverPastMaxWait(Harness h, Mode mode) throws Exception {
    for (int i = 0; i < 3; i++) {
      Duration before = h.clock.elapsed();
      Outcome outcome = h.send(mode, h.get("/again"));
      assertThat(h.clock.elapsed().minus(before)).as("call " + i + ": " + outcome)
          .isLessThanOrEqualTo(MAX_WAIT);
      if (outcome.failure() != null) {
        assertThat(outcome.failure()).isInstanceOf(RateLimitedException.class);
      }
    }
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void retryAfterOf99999999SecondsNeverHoldsACallPastMaxWait(Mode mode) throws Exception {
    try (Harness h = Harness.start()) {
      h.pacer(p -> p.maxWait(MAX_WAIT));
      h.fallback(Reply.status(429).header("Retry-After", "99999999").body("no"));

      Outcome first = h.send(mode, h.get("/first"));

      assertThat(first.code()).as("the throttled response comes back, not retried").isEqualTo(429);
      assertThat(h.clock.elapsed()).isLessThanOrEqualTo(MAX_WAIT);
      assertNeverPastMaxWait(h, mode);
    }
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void aRetryAfterTooLargeForALongIsHeldNotRetriedAtOnce(Mode mode) throws Exception {
    try (Harness h = Harness.start()) {
      h.pacer(p -> p.maxWait(MAX_WAIT));
      h.fallback(Reply.status(429).header("Retry-After", "99999999999999999999999").body("no"));

      Outcome first = h.send(mode, h.get("/first"));

      assertThat(first.code()).as("the throttled response comes back, not retried").isEqualTo(429);
      assertNeverPastMaxWait(h, mode);
      assertThat(h.requestCount())
          .as("held as Retry-After: 99999999 is (capped to a day), not retried on backoff")
          .isEqualTo(1);
    }
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void negativeRemainingAndAHugeResetNeverHoldACallPastMaxWait(Mode mode) throws Exception {
    try (Harness h = Harness.start()) {
      h.pacer(p -> p.maxWait(MAX_WAIT));
      h.fallback(Reply.status(200).header("RateLimit", "\"a\";r=-1;t=1e99").body("ok"));

      Outcome first = h.send(mode, h.get("/first"));

      assertThat(first.body()).isEqualTo("ok");
      assertNeverPastMaxWait(h, mode);
      assertThat(h.requestCount()).as("a malformed limit is ignored: nothing blocks")
          .isEqualTo(4);
    }
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void aResetTenYearsOutNeverHoldsACallPastMaxWait(Mode mode) throws Exception {
    try (Harness h = Harness.start()) {
      h.pacer(p -> p.maxWait(MAX_WAIT));
      h.fallback(Reply.status(200).body("ok").headers(
          "RateLimit-Policy", "\"default\";q=1;w=315360000",
          "RateLimit", "\"default\";r=0;t=315360000"));

      h.send(mode, h.get("/first"));

      assertNeverPastMaxWait(h, mode);
    }
  }
}
