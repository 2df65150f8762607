package dev.headway.pacer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.HttpFields;
import dev.headway.Jitter;
import dev.headway.Pacer;
import dev.headway.PacingStrategy;
import dev.headway.PolicySnapshot;
import dev.headway.QuotaSnapshot;
import dev.headway.RequestInfo;
import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A server that gives its partition key on the {@code RateLimit-Policy} item only, as
 * express-rate-limit's {@code draft-8} headers do: the {@code RateLimit} item of the same name is
 * the same policy, in the same partition, and {@code quota(uri)} shows it as one.
 */
class PartitionKeyOnThePolicyOnlyTest {
  static final URI API = URI.create("https://api.example.com/items");
  static final RequestInfo GET = RequestInfo.get(API);

  private final VirtualClock clock = VirtualClock.create();
  private final Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
      .jitter(Jitter.none()).strategy(PacingStrategy.useAllThenWait()).build();

  private static HttpFields answer(int remaining) {
    return HttpFields.of("RateLimit-Policy", "\"fixed\"; q=10; w=2; pk=:Y2E5NzgxMTJjYTFi:",
        "RateLimit", "\"fixed\"; r=" + remaining + "; t=2");
  }

  @Test
  void quotaShowsOnePolicyWithItsLimitAndWhatIsLeft() throws Exception {
    pacer.acquire(GET).complete(200, answer(9), null);

    QuotaSnapshot quota = pacer.quota(API);
    assertThat(quota.policies()).extracting(PolicySnapshot::name).containsExactly("fixed");
    PolicySnapshot fixed = quota.policies().get(0);
    assertThat(fixed.limit()).hasValue(10);
    assertThat(fixed.remaining()).hasValue(9);
    assertThat(fixed.window()).contains(Duration.ofSeconds(2));
    assertThat(fixed.learned()).isFalse();
  }

  @Test
  void aSpentQuotaHoldsTheNextRequestUntilItsWindowEnds() throws Exception {
    for (int i = 9; i >= 0; i--) {
      pacer.acquire(GET).complete(200, answer(i), null);
    }
    assertThat(pacer.tryAcquire(GET)).isEmpty();
    assertThat(pacer.reserve(GET).delay()).isEqualTo(Duration.ofSeconds(2));
    assertThat(pacer.quota(API).policies()).singleElement().satisfies(p -> {
      assertThat(p.limit()).hasValue(10);
      assertThat(p.remaining()).hasValue(0);
    });
  }
}
