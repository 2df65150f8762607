package dev.headway.pacer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.HttpFields;
import dev.headway.Pacer;
import dev.headway.PolicySnapshot;
import dev.headway.RateLimitSignal;
import dev.headway.RequestInfo;
import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.time.Duration;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Responses' headers, through the real parser, into the pacer's state. */
@Timeout(30)
class HeadersEndToEndTest {
  static final URI API = URI.create("https://api.example.com/items");
  static final RequestInfo GET = RequestInfo.get(API);

  private final VirtualClock clock = VirtualClock.create();
  private final Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
      .maxJitter(Duration.ZERO).build();

  @Test
  void ietfFieldsSetTheQuotaAndASpentQuotaHoldsRequestsUntilTheReset() throws Exception {
    RateLimitSignal signal = pacer.acquire(GET).complete(200, HttpFields.of(
        "RateLimit-Policy", "\"default\";q=100;w=60",
        "RateLimit", "\"default\";r=0;t=30"), null);
    assertThat(signal.limits()).hasSize(1);

    PolicySnapshot state = pacer.quota(API).policy("default").orElseThrow();
    assertThat(state.limit()).isEqualTo(OptionalLong.of(100));
    assertThat(state.remaining()).isEqualTo(OptionalLong.of(0));
    assertThat(state.window()).contains(Duration.ofSeconds(60));
    assertThat(state.timeToReset()).contains(Duration.ofSeconds(30));
    assertThat(pacer.tryAcquire(GET)).isEmpty();
    clock.advance(Duration.ofSeconds(30));
    assertThat(pacer.tryAcquire(GET)).isPresent();
  }

  @Test
  void a429WithRetryAfterHoldsThePartitionAndAdvisesTheRetry() throws Exception {
    RateLimitSignal signal = pacer.acquire(GET).complete(429,
        HttpFields.of("Retry-After", "20"), null);
    assertThat(signal.throttled()).isTrue();
    assertThat(pacer.quota(API).heldFor()).contains(Duration.ofSeconds(20));
    assertThat(pacer.retryDelay(GET, signal, 1)).contains(Duration.ofSeconds(20));
    assertThat(pacer.tryAcquire(GET)).isEmpty();
  }

  @Test
  void aResponseWithoutSignalsLeavesThePartitionUnpaced() throws Exception {
    pacer.acquire(GET).complete(200, HttpFields.of("Content-Type", "text/plain"), null);
    assertThat(pacer.quota(API).policies()).isEmpty();
    for (int i = 0; i < 1000; i++) {
      pacer.tryAcquire(GET).orElseThrow().complete(RateLimitSignal.none(200));
    }
  }
}
