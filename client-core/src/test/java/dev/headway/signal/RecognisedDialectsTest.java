package dev.headway.signal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.headway.HttpFields;
import dev.headway.RateLimitSignal;
import dev.headway.SignalParser;
import dev.headway.SignalWarning;
import dev.headway.dialect.Dialect;
import dev.headway.dialect.DialectContext;
import dev.headway.dialect.SignalSink;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Regression: {@link RateLimitSignal#dialects()} listed dialects that produced only warnings. It
 * lists the dialects that recognised a policy, a limit, a retry delay, a body hint or a throttled
 * flag.
 */
class RecognisedDialectsTest {
  static final Instant NOW = Instant.parse("2025-01-06T10:00:00Z");

  final SignalParser parser = SignalParser.create();

  @Test
  void dialectsThatOnlyWarnedAreNotListed() {
    RateLimitSignal signal = parser.parse(429, HttpFields.of(
        "RateLimit", "\"a\";r=-1;t=1e99", "Retry-After", "soon"), NOW);
    assertThat(signal.dialects()).isEmpty();
    assertThat(signal.warnings()).extracting(SignalWarning::field)
        .contains("ratelimit", "retry-after");
  }

  @Test
  void aDialectThatWarnedAndRecognisedIsListed() {
    RateLimitSignal signal = parser.parse(200, HttpFields.of(
        "RateLimit", "\"a\";r=-1, \"b\";r=4", "Retry-After", "soon"), NOW);
    assertThat(signal.dialects()).containsExactly("ietf-structured");
  }

  @Test
  void aNegativeRetryDelayIsNotRecognised() {
    Dialect acme = new Dialect() {
      @Override
      public String name() {
        return "acme";
      }

      @Override
      public void read(DialectContext context, SignalSink sink) {
        sink.retryAfter(Duration.ofSeconds(-5), "x-acme-wait");
      }
    };
    RateLimitSignal signal = SignalParser.builder().dialects(List.of(acme)).build()
        .parse(429, HttpFields.of("X-Acme-Wait", "-5"), NOW);
    assertThat(signal.retryAfter()).isEmpty();
    assertThat(signal.dialects()).isEmpty();
    assertThat(signal.warnings()).extracting(SignalWarning::field, SignalWarning::message)
        .containsExactly(tuple("x-acme-wait", "negative delay -5 s"));
  }

  @Test
  void aCappedValueIsStillRecognised() {
    RateLimitSignal signal = parser.parse(429, HttpFields.of("Retry-After", "999999999"), NOW);
    assertThat(signal.dialects()).containsExactly("retry-after");
  }
}
