package dev.headway.store;

import dev.headway.testing.store.QuotaStoreContractTest;
import java.time.InstantSource;

/** {@link QuotaStoreContractTest} against {@link InMemoryQuotaStore}. */
class InMemoryQuotaStoreContractTest extends QuotaStoreContractTest {
  @Override
  protected QuotaStore newFleet(InstantSource clock, long maxLeaseUnits) {
    return InMemoryQuotaStore.builder().clock(clock).maxLeaseUnits(maxLeaseUnits).build();
  }

  @Override
  protected QuotaStore newInstance(QuotaStore member, String name) {
    return ((InMemoryQuotaStore) member).instance(name);
  }
}
