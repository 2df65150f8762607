package dev.headway.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.headway.testing.VirtualClock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * What is particular to the in-memory store: its simulated round trip, its bounds on keys and
 * leases, its builder. The behaviour every store owes is {@link InMemoryQuotaStoreContractTest}.
 */
class InMemoryQuotaStoreTest {
  private static final QuotaKey KEY = new QuotaKey("https://api.example.com:443", "default");

  private final VirtualClock clock = VirtualClock.create();

  private InMemoryQuotaStore store() {
    return InMemoryQuotaStore.builder().clock(clock).build();
  }

  private static <T> T now(java.util.concurrent.CompletionStage<T> stage) {
    CompletableFuture<T> f = stage.toCompletableFuture();
    assertThat(f).as("completed without a round trip").isDone();
    return f.join();
  }

  private Instant at(long millis) {
    return clock.instant().plusMillis(millis);
  }

  @Test
  void withARoundTripEachCallCompletesAfterItOnTheScheduler() {
    InMemoryQuotaStore store = InMemoryQuotaStore.builder()
        .clock(clock).roundTrip(Duration.ofMillis(1), clock).build();
    CompletableFuture<SharedQuota> observed =
        store.observe(KEY, ServerCount.of(3, clock.instant())).toCompletableFuture();
    CompletableFuture<Lease> lease = store.lease(KEY, 1, 3).toCompletableFuture();
    assertThat(observed).isNotDone();
    assertThat(lease).isNotDone();
    clock.advance(Duration.ofMillis(1));
    assertThat(observed).isDone();
    assertThat(lease.join().granted()).isEqualTo(3);
  }

  @Test
  void aLearnedRateIsForgottenADayAfterItWasLearned() {
    // RedisQuotaStore forgets it through the key's time to live, in Redis's own time.
    InMemoryQuotaStore a = store();
    RefillRate rate = new RefillRate(10, Duration.ofMinutes(1), clock.instant());
    now(a.learnRate(KEY, rate));
    assertThat(now(a.instance("b").read(KEY)).refillRate()).contains(rate);
    clock.advance(Duration.ofDays(1));
    assertThat(now(a.instance("b").read(KEY)).refillRate()).isEmpty();
  }

  @Test
  void valuesAndConfigurationAreValidated() {
    InMemoryQuotaStore store = store();
    assertThatThrownBy(() -> store.lease(KEY, 0, 1)).hasMessageContaining("minUnits");
    assertThatThrownBy(() -> store.lease(KEY, 3, 2)).hasMessageContaining("maxUnits");
    assertThatThrownBy(() -> new QuotaKey("", "p")).hasMessageContaining("partition");
    assertThatThrownBy(() -> new QuotaKey("p", "a\nb")).hasMessageContaining("policy");
    assertThatThrownBy(() -> new QuotaKey("x".repeat(513), "p")).hasMessageContaining("512");
    assertThatThrownBy(() -> ServerCount.of(-1, clock.instant()))
        .hasMessageContaining("remaining");
    assertThatThrownBy(() -> ServerCount.of(1, clock.instant(), at(1), 0, Duration.ofSeconds(1)))
        .hasMessageContaining("quota");
    assertThatThrownBy(() -> ServerCount.of(1, clock.instant(), at(1), 1, Duration.ZERO))
        .hasMessageContaining("window");
    assertThatThrownBy(() -> new RefillRate(0, Duration.ofSeconds(1), clock.instant()))
        .hasMessageContaining("units");
    assertThatThrownBy(() -> InMemoryQuotaStore.builder().maxLeaseUnits(0))
        .hasMessageContaining("maxLeaseUnits");
    assertThatThrownBy(() -> InMemoryQuotaStore.builder().maxLeaseDuration(Duration.ZERO))
        .hasMessageContaining("maxLeaseDuration");
    assertThatThrownBy(() -> InMemoryQuotaStore.builder()
        .roundTrip(Duration.ofMillis(-1), clock)).hasMessageContaining("roundTrip");
  }

  @Test
  void theLeastRecentlyUsedKeysAreDroppedBeyondTheBound() {
    InMemoryQuotaStore store = InMemoryQuotaStore.builder().clock(clock).maxKeys(2).build();
    now(store.observe(KEY, ServerCount.of(5, clock.instant())));
    now(store.read(new QuotaKey("b", "p")));
    now(store.read(new QuotaKey("c", "p")));
    assertThat(now(store.read(KEY)).count()).isEmpty();
  }

  @Test
  void leasesBetweenTwoCountsAreNeverRefusedForTheirNumberAndTheirUnitsStayTaken() {
    InMemoryQuotaStore store = store();
    now(store.observe(KEY, ServerCount.of(1_000_000, clock.instant())));
    long granted = 0;
    for (int i = 0; i < 3 * InMemoryQuotaStore.MAX_LEASES_PER_KEY; i++) {
      Lease lease = now(store.lease(KEY, 1, 16));
      assertThat(lease.granted()).as("lease %d", i).isEqualTo(16);
      granted += lease.granted();
      clock.advance(Duration.ofMillis(i % 2 == 0 ? 30 : 1100));
    }
    assertThat(now(store.read(KEY)).taken()).isEqualTo(granted);
    now(store.observe(KEY, ServerCount.of(500, clock.instant())));
    assertThat(now(store.read(KEY)).taken()).as("all ended before the count").isZero();
  }
}
