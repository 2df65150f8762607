package dev.headway.signal;

import static org.assertj.core.api.Assertions.assertThat;

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
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The server's own verdict on retrying: x-should-retry, Stripe-Should-Retry, gRPC pushback. */
class ServerRetryVerdictTest {
  private static RateLimitSignal parse(int status, String... headers) {
    return SignalParser.create().parse(status, HttpFields.of(headers), null,
        Instant.parse("2025-01-01T00:00:00Z"));
  }

  @Test
  void anthropicsOverloadedWithShouldRetryTrueIsARetryVerdict() {
    RateLimitSignal signal = Fixture.load("anthropic-overloaded-should-retry.http").parse();
    assertThat(signal.shouldRetry()).contains(true);
    assertThat(signal.throttled()).isFalse();
    assertThat(signal.dialects()).contains("should-retry");
    assertThat(signal.isEmpty()).isFalse();
  }

  @Test
  void openAisInsufficientQuotaWithShouldRetryFalseVetoesTheRetryOfA429() {
    RateLimitSignal signal = Fixture.load("openai-429-should-not-retry.http").parse();
    assertThat(signal.shouldRetry()).contains(false);
    assertThat(signal.throttled()).isTrue(); // still a 429: the partition is held back
  }

  @Test
  void stripeShouldRetryIsRead() {
    assertThat(Fixture.load("stripe-should-retry.http").parse().shouldRetry()).contains(true);
    assertThat(parse(500, "Stripe-Should-Retry", "false").shouldRetry()).contains(false);
  }

  @Test
  void aNegativeGrpcPushbackIsAVetoAndANonNegativeOneADelay() {
    RateLimitSignal veto = Fixture.load("grpc-pushback-negative.http").parse();
    assertThat(veto.shouldRetry()).contains(false);
    assertThat(veto.retryAfter()).contains(Duration.ofSeconds(1));
    RateLimitSignal delay = Fixture.load("grpc-pushback-delay.http").parse();
    assertThat(delay.shouldRetry()).isEmpty();
    assertThat(delay.retryAfter()).contains(Duration.ofMillis(750));
  }

  @Test
  void valuesAreReadCaseInsensitivelyAndAnythingElseIsAWarning() {
    assertThat(parse(500, "X-Should-Retry", " TRUE ").shouldRetry()).contains(true);
    RateLimitSignal odd = parse(500, "x-should-retry", "maybe", "grpc-retry-pushback-ms", "x1");
    assertThat(odd.shouldRetry()).isEmpty();
    assertThat(odd.warnings()).extracting(SignalWarning::field)
        .containsExactly("x-should-retry", "grpc-retry-pushback-ms");
  }

  @Test
  void theFirstVerdictWins() {
    assertThat(parse(500, "x-should-retry", "false", "stripe-should-retry", "true")
        .shouldRetry()).contains(false);
  }

  @Test
  void aDialectOfTheUsersOwnCanGiveAVerdict() {
    Dialect acme = new Dialect() {
      @Override
      public String name() {
        return "acme";
      }

      @Override
      public void read(DialectContext context, SignalSink sink) {
        context.headers().firstValue("acme-retryable")
            .ifPresent(v -> sink.shouldRetry(v.equals("yes"), "acme-retryable"));
      }
    };
    SignalParser parser = SignalParser.builder().addDialect(acme).build();
    RateLimitSignal signal = parser.parse(502,
        HttpFields.of(Map.of("acme-retryable", List.of("no"))), null, Instant.EPOCH);
    assertThat(signal.shouldRetry()).contains(false);
    assertThat(signal.dialects()).containsExactly("acme");
    assertThat(Optional.of(signal.status())).contains(502);
  }
}
