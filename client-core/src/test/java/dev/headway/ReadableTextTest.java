package dev.headway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** What snapshots, events and the fail-fast exception print: one tidy line each. */
@Timeout(30)
class ReadableTextTest {
  static final URI API = URI.create("https://api.example.com/items");
  static final RequestInfo GET = RequestInfo.get(API);

  private final VirtualClock clock = VirtualClock.create();
  private final List<PacerEvent> events = new CopyOnWriteArrayList<>();

  private Pacer pacer(Duration maxWait) {
    return Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock).jitterSeed(1)
        .jitter(Jitter.none()).strategy(PacingStrategy.useAllThenWait()).maxWait(maxWait)
        .listener(events::add).build();
  }

  @Test
  void aQuotaSnapshotPrintsLikeTheDemo() throws Exception {
    Pacer pacer = pacer(Duration.ofSeconds(30));
    assertThat(pacer.quota(API)).hasToString("https://api.example.com:443: no quota known");

    pacer.acquire(GET).complete(200, HttpFields.of(
        "RateLimit-Policy", "\"fixed\";q=10;w=1, \"hour\";q=5000;w=3600",
        "RateLimit", "\"fixed\";r=0;t=1, \"hour\";r=4998;t=1800"), null);
    clock.advance(Duration.ofMillis(520));

    QuotaSnapshot quota = pacer.quota(API);
    assertThat(quota.policy("fixed").orElseThrow()).hasToString(
        "fixed: 0 of 10 requests left per 1 s, resets in 0.48 s, 0 in flight"
            + " (from ietf-structured, 0.52 s old)");
    assertThat(quota).hasToString("https://api.example.com:443: "
        + "fixed: 0 of 10 requests left per 1 s, resets in 0.48 s"
        + " (from ietf-structured, 0.52 s old); "
        + "hour: 4998 of 5000 requests left per 3600 s, resets in 1799.48 s"
        + " (from ietf-structured, 0.52 s old), 0 in flight");
    assertThat(quota.toString()).doesNotContain("Optional");
  }

  @Test
  void unknownValuesPrintAsAQuestionMarkAndAHoldIsShown() {
    PolicySnapshot unknown = new PolicySnapshot("default", OptionalLong.empty(),
        OptionalLong.empty(), 2, Optional.empty(), Optional.empty(), QuotaUnit.TOKENS,
        "x-ratelimit", Duration.ofMillis(1500));
    assertThat(unknown).hasToString(
        "default: ? of ? tokens left, 2 in flight (from x-ratelimit, 1.5 s old)");
    QuotaSnapshot held = new QuotaSnapshot("https://a:443", List.of(unknown),
        Optional.of(Duration.ofSeconds(20)));
    assertThat(held).as("the partition's calls in flight, not the policy's units")
        .hasToString("https://a:443: default: ? of ? tokens left"
        + " (from x-ratelimit, 1.5 s old), 0 in flight, held for 20 s");
  }

  @Test
  void aLearnedRatePrintsAsThePaceItKeeps() {
    PolicySnapshot learned = new PolicySnapshot("learned", OptionalLong.of(1),
        OptionalLong.empty(), 0, Optional.empty(), Optional.of(Duration.ofMillis(110)),
        QuotaUnit.REQUESTS, "retry-after", Duration.ofMillis(500)).asLearned(0.5);
    assertThat(learned).hasToString("learned: paced at 1 request per 0.11 s (9.09 per s),"
        + " 0 in flight (from retry-after, 0.5 s old, learned, confidence 0.50)");
    PolicySnapshot fleet = new PolicySnapshot("learned", OptionalLong.of(30),
        OptionalLong.empty(), 1, Optional.empty(), Optional.of(Duration.ofSeconds(2)),
        QuotaUnit.REQUESTS, "retry-after", Duration.ZERO).asLearned(0.25);
    assertThat(fleet.toString()).startsWith("learned: paced at 30 requests per 2 s (15 per s)");
    PolicySnapshot counted = new PolicySnapshot("default", OptionalLong.of(50),
        OptionalLong.of(25), 0, Optional.of(Duration.ofSeconds(4)),
        Optional.of(Duration.ofSeconds(5)), QuotaUnit.REQUESTS, "x-ratelimit", Duration.ZERO)
        .asLearned(0.5);
    assertThat(counted.toString()).startsWith("default: 25 of 50 requests left per 5 s,");
  }

  @Test
  void aDurationBelowAHundredthOfASecondNeverPrintsAsZero() {
    // Each was "0 s": two decimals of a second hide everything under 5 ms.
    assertThat(Texts.seconds(Duration.ofNanos(1))).isEqualTo("1 ns");
    assertThat(Texts.seconds(Duration.ofNanos(999))).isEqualTo("999 ns");
    assertThat(Texts.seconds(Duration.ofNanos(1_000))).isEqualTo("1 \u00b5s");
    assertThat(Texts.seconds(Duration.ofNanos(12_345))).isEqualTo("12.34 \u00b5s");
    assertThat(Texts.seconds(Duration.ofNanos(999_999))).isEqualTo("999.99 \u00b5s");
    assertThat(Texts.seconds(Duration.ofMillis(1))).isEqualTo("1 ms");
    assertThat(Texts.seconds(Duration.ofMillis(4).plusNanos(500_000))).isEqualTo("4.5 ms");
    assertThat(Texts.seconds(Duration.ofNanos(-1))).isEqualTo("-1 ns");
    assertThat(Texts.seconds(Duration.ofMillis(-3))).isEqualTo("-3 ms");
    // From 5 ms on, seconds as before; zero is still "0 s".
    assertThat(Texts.seconds(Duration.ofMillis(5))).isEqualTo("0.01 s");
    assertThat(Texts.seconds(Duration.ofMillis(480))).isEqualTo("0.48 s");
    assertThat(Texts.seconds(Duration.ofSeconds(30))).isEqualTo("30 s");
    assertThat(Texts.seconds(Duration.ZERO)).isEqualTo("0 s");
    assertThat(Texts.seconds(Duration.ofMillis(-5))).isEqualTo("-0.01 s");
  }

  @Test
  void aOneNanosecondMaxWaitReadsAsOneNanosecond() throws Exception {
    Pacer pacer = pacer(Duration.ofNanos(1));
    assertThat(pacer.toString()).contains("maxWait=1 ns").doesNotContain("0 s");
    pacer.acquire(GET).complete(429, HttpFields.of("Retry-After", "20"), null);
    assertThatThrownBy(() -> pacer.acquire(GET))
        .isInstanceOf(RateLimitedException.class)
        .hasMessageContaining("would have to wait 20 s")
        .hasMessageContaining("longer than maxWait (1 ns)");
  }

  @Test
  void eventsAndTheFailFastExceptionPrintInSeconds() throws Exception {
    Pacer pacer = pacer(Duration.ofSeconds(10));
    pacer.acquire(GET).complete(429, HttpFields.of("Retry-After", "20"), null);

    assertThatThrownBy(() -> pacer.acquire(GET))
        .isInstanceOf(RateLimitedException.class)
        .hasMessageStartingWith("Rate limited: https://api.example.com:443 would have to wait 20 s")
        .hasMessageContaining("longer than maxWait (10 s); retry at 2025-01-01T00:00:20Z")
        .hasMessageEndingWith("the request was not sent");

    assertThat(events).map(Object::toString).contains(
        "https://api.example.com:443: throttled (429), held for 20 s");
    assertThat(events).filteredOn(e -> e instanceof PacerEvent.Rejected).singleElement()
        .asString().startsWith("https://api.example.com:443: rejected, would wait 20 s")
        .endsWith("retry at 2025-01-01T00:00:20Z");

    assertThat(new PacerEvent.Delayed("http://p:80", Duration.ofMillis(480),
        Optional.of("fixed")))
        .hasToString("http://p:80: delayed 0.48 s by policy fixed");
    assertThat(new PacerEvent.Retried("http://p:80", 1, Duration.ofMillis(1500)))
        .hasToString("http://p:80: retry after 1.5 s (attempt 1)");
    assertThat(new PacerEvent.Rejected("http://p:80", Duration.ofSeconds(40), Instant.EPOCH,
        Optional.empty())).hasToString(
        "http://p:80: rejected, would wait 40 s, retry at 1970-01-01T00:00:00Z");
  }

  @Test
  void secondsRoundToTwoDecimals() {
    assertThat(Texts.seconds(Duration.ZERO)).isEqualTo("0 s");
    assertThat(Texts.seconds(Duration.ofNanos(4_999_999))).isEqualTo("4.99 ms");
    assertThat(Texts.seconds(Duration.ofNanos(5_000_000))).isEqualTo("0.01 s");
    assertThat(Texts.seconds(Duration.ofMillis(4900))).isEqualTo("4.9 s");
    assertThat(Texts.seconds(Duration.ofHours(1))).isEqualTo("3600 s");
    assertThat(Texts.seconds(Duration.ofSeconds(Long.MAX_VALUE, 999_999_999)))
        .isEqualTo("9223372036854775808 s");
    assertThat(Texts.seconds(Duration.ofMillis(1995))).isEqualTo("2 s");
    assertThat(Texts.seconds(Duration.ofMillis(1050))).isEqualTo("1.05 s");
    assertThat(Texts.seconds(Duration.ofMillis(10))).isEqualTo("0.01 s");
    assertThat(Texts.seconds(Duration.ofSeconds(-1))).isEqualTo("-1 s");
    java.util.Random random = new java.util.Random(7);
    for (int i = 0; i < 10_000; i++) {
      Duration d = Duration.ofNanos(i < 5_000 ? 5_000_000 + random.nextInt(2_000_000_000)
          : 5_000_000 + (random.nextLong() >>> (random.nextInt(63) + 2)));
      assertThat(Texts.seconds(d)).as("%s", d).isEqualTo(
          java.math.BigDecimal.valueOf(d.getSeconds())
              .add(java.math.BigDecimal.valueOf(d.getNano(), 9))
              .setScale(2, java.math.RoundingMode.HALF_UP).stripTrailingZeros().toPlainString()
              + " s");
    }
  }
}
