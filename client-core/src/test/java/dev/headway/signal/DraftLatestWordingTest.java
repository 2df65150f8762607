package dev.headway.signal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.HttpFields;
import dev.headway.QuotaLimit;
import dev.headway.QuotaPolicy;
import dev.headway.RateLimitSignal;
import dev.headway.SignalParser;
import dev.headway.SignalWarning;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/**
 * draft-ietf-httpapi-ratelimit-headers-11's meanings (r = available quota, t = effective window)
 * and the open proposal's names (a, w, c, RateLimit-Partition), hand-written from their texts.
 */
class DraftLatestWordingTest {
  private static RateLimitSignal parse(String... headers) {
    return SignalParser.create().parse(200, HttpFields.of(headers), null,
        Instant.parse("2026-05-01T00:00:00Z"));
  }

  private static QuotaLimit onlyLimit(RateLimitSignal signal) {
    assertThat(signal.limits()).hasSize(1);
    return signal.limits().get(0);
  }

  @Test
  void draft11RAndTAreTheAvailableQuotaAndTheEffectiveWindow() {
    RateLimitSignal signal = parse("RateLimit-Policy", "\"default\";q=100;w=60",
        "RateLimit", "\"default\";r=50;t=30");
    assertThat(onlyLimit(signal).remaining()).isEqualTo(50);
    assertThat(onlyLimit(signal).reset()).contains(Duration.ofSeconds(30));
    assertThat(signal.warnings()).isEmpty();
  }

  @Test
  void theProposalsAAndWAreReadLikeRAndT() {
    RateLimitSignal signal = parse("RateLimit-Policy", "\"default\";q=100;w=60",
        "RateLimit", "\"default\";a=50;w=30");
    assertThat(onlyLimit(signal)).isEqualTo(new QuotaLimit("default", 50,
        Optional.of(Duration.ofSeconds(30)), Optional.empty(), "ietf-structured"));
    assertThat(signal.warnings()).isEmpty();
  }

  @Test
  void whenBothSpellingsAreSentTheDraftsOwnWin() {
    RateLimitSignal signal = parse("RateLimit", "\"default\";r=5;t=10;a=99;w=99");
    assertThat(onlyLimit(signal).remaining()).isEqualTo(5);
    assertThat(onlyLimit(signal).reset()).contains(Duration.ofSeconds(10));
  }

  @Test
  void aMissingAvailableQuotaNamesTheParameterTheServerUsed() {
    RateLimitSignal signal = parse("RateLimit", "\"default\";a=?1;w=5");
    assertThat(signal.limits()).isEmpty();
    assertThat(signal.warnings()).extracting(SignalWarning::message)
        .anySatisfy(m -> assertThat(m).contains("a is not an Integer"));
  }

  @Test
  void theCostParameterIsTheRequestsCost() {
    assertThat(parse("RateLimit", "\"default\";r=0;t=5;c=3").cost()).isEqualTo(OptionalLong.of(3));
    assertThat(parse("RateLimit", "\"default\";a=7;w=5;c=0").cost()).isEqualTo(OptionalLong.of(0));
    RateLimitSignal negative = parse("RateLimit", "\"default\";r=0;t=5;c=-2");
    assertThat(negative.cost()).isEmpty();
    assertThat(negative.warnings()).extracting(SignalWarning::message)
        .anySatisfy(m -> assertThat(m).contains("c is negative"));
  }

  @Test
  void rateLimitPartitionIsThePartitionKeyOfItemsWithoutOne() {
    RateLimitSignal signal = parse("RateLimit-Policy", "\"peruser\";q=100;w=60",
        "RateLimit", "\"peruser\";a=40;w=20, \"own\";r=1;t=1;pk=:b3du:",
        "RateLimit-Partition", ":dXNlcjE=:");
    assertThat(signal.policies()).extracting(QuotaPolicy::partitionKey)
        .containsExactly(Optional.of("dXNlcjE="));
    assertThat(signal.limits()).extracting(QuotaLimit::partitionKey)
        .containsExactly(Optional.of("dXNlcjE="), Optional.of("b3du"));
  }

  @Test
  void aStringOrTokenPartitionIsTakenAsItsUtf8Bytes() {
    RateLimitSignal string = parse("RateLimit", "\"default\";r=1;t=1",
        "RateLimit-Partition", "\"user1\"");
    RateLimitSignal token = parse("RateLimit", "\"default\";r=1;t=1",
        "RateLimit-Partition", "user1");
    assertThat(onlyLimit(string).partitionKey()).contains("dXNlcjE=");
    assertThat(onlyLimit(token).partitionKey()).contains("dXNlcjE=");
  }

  @Test
  void aMalformedPartitionIsIgnoredWithAWarning() {
    RateLimitSignal signal = parse("RateLimit", "\"default\";r=1;t=1",
        "RateLimit-Partition", "1.5");
    assertThat(onlyLimit(signal).partitionKey()).isEmpty();
    assertThat(signal.warnings()).extracting(SignalWarning::field)
        .containsExactly("ratelimit-partition");
  }

  @Test
  void aLimitItemWithoutAPartitionKeyTakesItsPolicysKey() {
    // express-rate-limit's draft-8 headers: pk on the policy item only.
    RateLimitSignal signal = parse("RateLimit-Policy", "\"fixed\"; q=10; w=2; pk=:Y2E5NzgxMTJjYTFi:",
        "RateLimit", "\"fixed\"; r=9; t=2, \"other\"; r=1; t=1");
    assertThat(signal.limits()).extracting(QuotaLimit::partitionKey)
        .containsExactly(Optional.of("Y2E5NzgxMTJjYTFi"), Optional.empty());
  }

  @Test
  void aPolicyItemWithoutAPartitionKeyTakesItsLimitsKey() {
    RateLimitSignal signal = parse("RateLimit-Policy", "\"fixed\";q=10;w=2",
        "RateLimit", "\"fixed\";r=9;t=2;pk=:b3du:");
    assertThat(signal.policies()).extracting(QuotaPolicy::partitionKey)
        .containsExactly(Optional.of("b3du"));
  }

  @Test
  void anItemsOwnPartitionKeyAndRateLimitPartitionComeFirst() {
    RateLimitSignal signal = parse("RateLimit-Policy", "\"fixed\";q=10;w=2;pk=:b3du:",
        "RateLimit", "\"fixed\";r=9;t=2;pk=:b3dv:");
    assertThat(signal.limits()).extracting(QuotaLimit::partitionKey)
        .containsExactly(Optional.of("b3dv"));
    RateLimitSignal partition = parse("RateLimit-Policy", "\"fixed\";q=10;w=2;pk=:b3du:",
        "RateLimit", "\"fixed\";r=9;t=2", "RateLimit-Partition", ":dXNlcjE=:");
    assertThat(partition.limits()).extracting(QuotaLimit::partitionKey)
        .containsExactly(Optional.of("dXNlcjE="));
  }
}
