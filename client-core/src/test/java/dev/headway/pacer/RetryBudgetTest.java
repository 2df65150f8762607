package dev.headway.pacer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.headway.ClientPolicy;
import dev.headway.Jitter;
import dev.headway.Pacer;
import dev.headway.PacerEvent;
import dev.headway.RateLimitSignal;
import dev.headway.RequestInfo;
import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** retryDelay with a budget: the retry must also get its permit then, within the budget. */
@Timeout(30)
class RetryBudgetTest {
  static final RequestInfo GET = RequestInfo.get(URI.create("https://api.example.com/items"));

  private final VirtualClock clock = VirtualClock.create();
  private final List<PacerEvent> events = new CopyOnWriteArrayList<>();

  private Pacer.Builder builder() {
    return Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock).jitterSeed(5)
        .jitter(Jitter.none()).listener(events::add);
  }

  private static RateLimitSignal retryAfter(int seconds) {
    return Signals.throttled(429, Optional.of(Duration.ofSeconds(seconds)), List.of(),
        Optional.empty());
  }

  private List<PacerEvent.Retried> retried() {
    return events.stream().filter(e -> e instanceof PacerEvent.Retried)
        .map(e -> (PacerEvent.Retried) e).toList();
  }

  @Test
  void aDelayPastTheBudgetIsNoRetryAndEmitsNoRetriedEvent() throws Exception {
    Pacer pacer = builder().build();
    RateLimitSignal signal = retryAfter(5);
    pacer.acquire(GET).complete(signal);
    assertThat(pacer.retryDelay(GET, signal, 1, Duration.ofSeconds(4))).isEmpty();
    assertThat(retried()).isEmpty();
    assertThat(pacer.retryDelay(GET, signal, 1, Duration.ofSeconds(5)))
        .contains(Duration.ofSeconds(5));
    assertThat(retried()).extracting(PacerEvent.Retried::delay)
        .containsExactly(Duration.ofSeconds(5));
  }

  @Test
  void theThreeArgumentFormUsesMaxWaitAsTheBudget() throws Exception {
    Pacer pacer = builder().maxWait(Duration.ofSeconds(3)).build();
    RateLimitSignal signal = retryAfter(4);
    pacer.acquire(GET).complete(signal);
    assertThat(pacer.retryDelay(GET, signal, 1)).isEmpty();
    assertThat(pacer.retryDelay(GET, signal, 1, Duration.ofSeconds(10)))
        .contains(Duration.ofSeconds(4));
  }

  @Test
  void theDelayCoversThePartitionsOwnWaitSoTheRetryGetsItsPermitAtOnce() throws Exception {
    // A declared bucket of one request per 20 s: the throttled request spent it, so although
    // the server says 1 s, the retry cannot get a permit before 20 s.
    Pacer pacer = builder()
        .declare(ClientPolicy.tokenBucket("documented", 1, Duration.ofSeconds(20))).build();
    RateLimitSignal signal = retryAfter(1);
    pacer.acquire(GET).complete(signal);
    Duration delay = pacer.retryDelay(GET, signal, 1, Duration.ofSeconds(30)).orElseThrow();
    assertThat(delay).isEqualTo(Duration.ofSeconds(20));
    assertThat(pacer.retryDelay(GET, signal, 1, Duration.ofSeconds(19))).isEmpty();
    clock.advance(delay);
    assertThat(pacer.tryAcquire(GET)).as("the retry gets its permit when told").isPresent();
  }

  @Test
  void aNegativeBudgetIsAConfigurationError() {
    Pacer pacer = builder().build();
    assertThatThrownBy(() -> pacer.retryDelay(GET, retryAfter(1), 1, Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("budget must not be negative but was PT-1S");
  }
}
