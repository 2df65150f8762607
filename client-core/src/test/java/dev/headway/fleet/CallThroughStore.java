package dev.headway.fleet;

import dev.headway.store.Lease;
import dev.headway.store.QuotaKey;
import dev.headway.store.QuotaStore;
import dev.headway.store.RefillRate;
import dev.headway.store.ServerCount;
import dev.headway.store.SharedQuota;
import java.time.Instant;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * A store for fault tests whose every operation goes through {@link #call}, where a test decides
 * whether the store behind is reached, fails, or loses the answer (a primary down, a connection
 * lost, a client backing off).
 */
abstract class CallThroughStore implements QuotaStore {
  /** Runs {@code operation} on the store behind, or fails as the fault being modelled does. */
  abstract <T> CompletionStage<T> call(Function<QuotaStore, CompletionStage<T>> operation);

  @Override
  public CompletionStage<SharedQuota> observe(QuotaKey key, ServerCount count) {
    return call(s -> s.observe(key, count));
  }

  @Override
  public CompletionStage<SharedQuota> observe(QuotaKey key, ServerCount count, Lease lease,
      long units, Instant sentAt) {
    return call(s -> s.observe(key, count, lease, units, sentAt));
  }

  @Override
  public CompletionStage<Lease> lease(QuotaKey key, long minUnits, long maxUnits) {
    return call(s -> s.lease(key, minUnits, maxUnits));
  }

  @Override
  public CompletionStage<SharedQuota> spent(Lease lease, long units, Instant lastSentAt) {
    return call(s -> s.spent(lease, units, lastSentAt));
  }

  @Override
  public CompletionStage<SharedQuota> release(Lease lease, long unusedUnits) {
    return call(s -> s.release(lease, unusedUnits));
  }

  @Override
  public CompletionStage<SharedQuota> hold(QuotaKey key, Instant until) {
    return call(s -> s.hold(key, until));
  }

  @Override
  public CompletionStage<SharedQuota> lift(QuotaKey key, Instant until) {
    return call(s -> s.lift(key, until));
  }

  @Override
  public CompletionStage<SharedQuota> learnRate(QuotaKey key, RefillRate rate) {
    return call(s -> s.learnRate(key, rate));
  }

  @Override
  public CompletionStage<SharedQuota> read(QuotaKey key) {
    return call(s -> s.read(key));
  }

  @Override
  public void close() {}
}
