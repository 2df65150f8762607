package dev.headway.pacer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.headway.Pacer;
import dev.headway.Permit;
import dev.headway.RateLimitedException;
import dev.headway.RequestInfo;
import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

/**
 * "Never wait": a call's own {@code maxWait} of zero takes a permit to be had now and fails at
 * once otherwise; the pacer's own {@code maxWait}, which also paces the checks of a quota spent
 * for longer, stays positive, and its refusal says where zero goes.
 */
class ZeroMaxWaitTest {
  static final RequestInfo GET = RequestInfo.get(URI.create("https://api.example.com/items"));

  private final VirtualClock clock = VirtualClock.create();
  private final Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
      .executor(Runnable::run).build();

  @Test
  void aCallWithAZeroMaxWaitGoesIfItMayNowAndFailsAtOnceOtherwise() throws Exception {
    Permit first = pacer.acquire(GET, Duration.ZERO);
    first.complete(Signals.limit(200, 2, 10, 0, 10)); // spent for 10 s
    Duration before = clock.elapsed();

    assertThatThrownBy(() -> pacer.acquire(GET, Duration.ZERO))
        .isInstanceOfSatisfying(RateLimitedException.class, e -> {
          assertThat(e.requiredWait()).isPositive();
          assertThat(e.budget()).contains(Duration.ZERO);
        });
    CompletableFuture<Permit> async = pacer.acquireAsync(GET, Duration.ZERO);
    assertThat(async).as("failed at once, not scheduled").isCompletedExceptionally();
    assertThatThrownBy(async::get).isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(RateLimitedException.class);
    assertThatThrownBy(() -> pacer.reserve(GET, Duration.ZERO))
        .isInstanceOf(RateLimitedException.class);
    assertThat(clock.elapsed()).as("no wait").isEqualTo(before);
  }

  @Test
  void thePacersOwnMaxWaitMustBePositiveAndItsRefusalSaysWhereZeroGoes() {
    assertThatThrownBy(() -> Pacer.builder().maxWait(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("maxWait must be positive but was PT0S: ")
        .hasMessageContaining("acquire(request, Duration.ZERO)")
        .hasMessageContaining("adapter's builder");
    assertThatThrownBy(() -> Pacer.builder().maxWait(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxWait must be positive but was PT-1S");
  }
}
