package dev.headway.pacer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.HttpFields;
import dev.headway.Jitter;
import dev.headway.Pacer;
import dev.headway.PacingStrategy;
import dev.headway.RequestInfo;
import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The pacer reads the proposal's spellings as it reads the draft's. */
class DraftLatestWordingPacerTest {
  static final URI API = URI.create("https://api.example.com/items");
  static final RequestInfo GET = RequestInfo.get(API);

  private final VirtualClock clock = VirtualClock.create();
  private final Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
      .jitter(Jitter.none()).strategy(PacingStrategy.useAllThenWait()).build();

  @Test
  void aSpentQuotaSpelledAAndWHoldsTheNextRequestUntilItsWindowEnds() throws Exception {
    pacer.acquire(GET).complete(200, HttpFields.of("RateLimit-Policy", "\"fixed\";q=5;w=5",
        "RateLimit", "\"fixed\";a=0;w=5"), null);

    assertThat(pacer.quota(API).policy("fixed")).hasValueSatisfying(p ->
        assertThat(p.remaining()).hasValue(0));
    assertThat(pacer.tryAcquire(GET)).isEmpty();
    assertThat(pacer.reserve(GET).delay()).isEqualTo(Duration.ofSeconds(5));
  }
}
