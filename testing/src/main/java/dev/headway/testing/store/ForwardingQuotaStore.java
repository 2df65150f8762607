package dev.headway.testing.store;

import dev.headway.store.Lease;
import dev.headway.store.QuotaKey;
import dev.headway.store.QuotaStore;
import dev.headway.store.RefillRate;
import dev.headway.store.ServerCount;
import dev.headway.store.SharedQuota;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.CompletionStage;

/**
 * A {@link QuotaStore} that hands every call to another store: override the calls a test watches
 * (to count leases, to record what the pacer tells the store) and leave the rest as they are.
 */
public class ForwardingQuotaStore implements QuotaStore {
  private final QuotaStore store;

  /**
   * Creates a store that forwards every call to {@code store}.
   *
   * @param store the store that answers
   */
  public ForwardingQuotaStore(QuotaStore store) {
    this.store = Objects.requireNonNull(store, "store must not be null");
  }

  @Override
  public CompletionStage<SharedQuota> observe(QuotaKey key, ServerCount count) {
    return store.observe(key, count);
  }

  @Override
  public CompletionStage<SharedQuota> observe(QuotaKey key, ServerCount count, Lease lease,
      long units, Instant lastSentAt) {
    return store.observe(key, count, lease, units, lastSentAt);
  }

  @Override
  public CompletionStage<Lease> lease(QuotaKey key, long minUnits, long maxUnits) {
    return store.lease(key, minUnits, maxUnits);
  }

  @Override
  public CompletionStage<SharedQuota> spent(Lease lease, long units, Instant lastSentAt) {
    return store.spent(lease, units, lastSentAt);
  }

  @Override
  public CompletionStage<SharedQuota> release(Lease lease, long unusedUnits) {
    return store.release(lease, unusedUnits);
  }

  @Override
  public CompletionStage<SharedQuota> hold(QuotaKey key, Instant until) {
    return store.hold(key, until);
  }

  @Override
  public CompletionStage<SharedQuota> lift(QuotaKey key, Instant until) {
    return store.lift(key, until);
  }

  @Override
  public CompletionStage<SharedQuota> learnRate(QuotaKey key, RefillRate rate) {
    return store.learnRate(key, rate);
  }

  @Override
  public CompletionStage<SharedQuota> read(QuotaKey key) {
    return store.read(key);
  }

  @Override
  public void close() {
    store.close();
  }
}
