package dev.headway.internal.store;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.headway.store.InMemoryQuotaStore;
import dev.headway.store.QuotaKey;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The checks both stores share: same bounds, same messages. */
class StoreArgumentsTest {
  @Test
  void leaseBoundsUnitsAndDurationsAreCheckedWithOneMessageEach() {
    InMemoryQuotaStore store = InMemoryQuotaStore.create();
    QuotaKey key = new QuotaKey("https://api.example.com:443", "requests");
    assertThatThrownBy(() -> store.lease(key, 0, 1))
        .hasMessage("minUnits must be 1 to 1000000000000 but was 0");
    assertThatThrownBy(() -> store.lease(key, 3, 2))
        .hasMessage("maxUnits must be 3 to 1000000000000 but was 2");
    assertThatThrownBy(() -> StoreArguments.notNegative("units", -1))
        .hasMessage("units must not be negative but was -1");
    assertThatThrownBy(() -> InMemoryQuotaStore.builder().maxLeaseUnits(0))
        .hasMessage("maxLeaseUnits must be 1 to 1000000000000 but was 0");
    assertThatThrownBy(() -> InMemoryQuotaStore.builder().maxLeaseDuration(Duration.ZERO))
        .hasMessage("maxLeaseDuration must be positive and at most PT24H but was PT0S");
    assertThatThrownBy(() -> InMemoryQuotaStore.builder().heartbeat(Duration.ofDays(2)))
        .hasMessage("heartbeat must be positive and at most PT24H but was PT48H");
    assertThatThrownBy(() -> StoreArguments.positive("timeout", null, Duration.ofMinutes(1)))
        .isInstanceOf(NullPointerException.class).hasMessage("timeout must not be null");
  }
}
