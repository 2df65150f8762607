package dev.headway.pacer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.headway.HttpFields;
import dev.headway.Jitter;
import dev.headway.Pacer;
import dev.headway.PacerEvent;
import dev.headway.RateLimitSignal;
import dev.headway.RequestInfo;
import dev.headway.RetryBudget;
import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** The retry budget of a partition: retries spend it, successes refill it, a spent one refuses. */
class PartitionRetryBudgetTest {
  static final URI ITEMS = URI.create("https://api.example.com/items");
  static final RequestInfo GET = RequestInfo.get(ITEMS);

  private final VirtualClock clock = VirtualClock.create();
  private final List<PacerEvent> events = new CopyOnWriteArrayList<>();

  private Pacer pacer(RetryBudget budget) {
    return Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .jitter(Jitter.none()).retryBudget(budget).listener(events::add)
        .executor(Runnable::run).build();
  }

  private static RateLimitSignal unavailable(Pacer pacer) throws Exception {
    return pacer.acquire(GET, Duration.ofMinutes(1))
        .complete(503, HttpFields.of("Retry-After", "1"), null);
  }

  private static void succeed(Pacer pacer) throws Exception {
    pacer.acquire(GET, Duration.ofMinutes(1)).complete(200, HttpFields.of(), null);
  }

  @Test
  void retriesSpendItUntilNoneIsLeftThenTheRetryIsRefusedWithAnEvent() throws Exception {
    Pacer pacer = pacer(new RetryBudget(2, 0.5));
    assertThat(pacer.quota(ITEMS).retriesLeft()).isEqualTo(OptionalInt.of(2));

    RateLimitSignal signal = unavailable(pacer);
    assertThat(pacer.retryDelay(GET, signal, 1)).isPresent();
    assertThat(pacer.retryDelay(GET, signal, 1)).isPresent();
    assertThat(pacer.quota(ITEMS).retriesLeft()).isEqualTo(OptionalInt.of(0));
    assertThat(pacer.retryDelay(GET, signal, 1)).isEmpty();

    assertThat(events).filteredOn(e -> e instanceof PacerEvent.RetryRefused)
        .singleElement().hasToString("https://api.example.com:443: retry budget spent, 503 not"
            + " retried (attempt 1)");
    assertThat(pacer.quota(ITEMS).toString()).contains("retry budget spent");
  }

  @Test
  void successesRefillIt() throws Exception {
    Pacer pacer = pacer(new RetryBudget(1, 0.5));
    RateLimitSignal signal = unavailable(pacer);
    assertThat(pacer.retryDelay(GET, signal, 1)).isPresent();
    assertThat(pacer.retryDelay(GET, signal, 1)).isEmpty();
    clock.advance(Duration.ofSeconds(2));

    succeed(pacer);
    assertThat(pacer.quota(ITEMS).retriesLeft()).isEqualTo(OptionalInt.of(0)); // half a retry
    succeed(pacer);
    assertThat(pacer.quota(ITEMS).retriesLeft()).isEqualTo(OptionalInt.of(1));
    assertThat(pacer.retryDelay(GET, unavailable(pacer), 1)).isPresent();
  }

  @Test
  void aPartitionsBudgetIsItsOwn() throws Exception {
    Pacer pacer = pacer(new RetryBudget(1, 0.5));
    assertThat(pacer.retryDelay(GET, unavailable(pacer), 1)).isPresent();
    RequestInfo other = RequestInfo.get(URI.create("https://other.example.com/"));
    RateLimitSignal signal = pacer.acquire(other).complete(429, HttpFields.of(), null);
    assertThat(pacer.retryDelay(other, signal, 1)).isPresent();
  }

  @Test
  void offByDefaultAndOnRequest() throws Exception {
    Pacer byDefault = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock).build();
    assertThat(byDefault.quota(ITEMS).retriesLeft()).isEmpty();
    Pacer on = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .retryBudget(RetryBudget.recommended()).build();
    assertThat(on.quota(ITEMS).retriesLeft())
        .isEqualTo(OptionalInt.of(RetryBudget.DEFAULT_RETRIES));
  }

  @Test
  void aWrongBudgetFailsAtTheBuilderNamingTheField() {
    assertThatThrownBy(() -> new RetryBudget(0, 0.1)).hasMessage(
        "retries must be at least 1 but was 0");
    assertThatThrownBy(() -> new RetryBudget(5, 0)).hasMessage(
        "refillPerSuccess must be in (0, 1] but was 0.0");
  }
}
