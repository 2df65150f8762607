package dev.headway.internal.pacer;

import dev.headway.store.Lease;
import dev.headway.store.QuotaKey;
import dev.headway.store.QuotaStore;
import dev.headway.store.RefillRate;
import dev.headway.store.ServerCount;
import dev.headway.store.SharedQuota;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * A user's {@link QuotaStore} as the {@link Fleet} calls it: a call that throws (a bug, a class
 * missing from the class path, as a store built against another Redis client version would) or
 * returns no stage is a failed call, as one whose stage fails. The fleet then paces locally and
 * asks again later; a request never fails, nor waits for an answer that cannot come, because of
 * how a store failed. Thread-safe if the store is.
 */
final class GuardedStore implements QuotaStore {
  private final QuotaStore store;

  GuardedStore(QuotaStore store) {
    this.store = store;
  }

  private static <T> CompletionStage<T> call(Supplier<CompletionStage<T>> call) {
    CompletionStage<T> stage;
    try {
      stage = call.get();
    } catch (RuntimeException | LinkageError | StackOverflowError e) {
      return CompletableFuture.failedFuture(e);
    }
    return stage != null ? stage
        : CompletableFuture.failedFuture(new IllegalStateException("the store returned no stage"));
  }

  @Override
  public CompletionStage<SharedQuota> observe(QuotaKey key, ServerCount count) {
    return call(() -> store.observe(key, count));
  }

  @Override
  public CompletionStage<SharedQuota> observe(QuotaKey key, ServerCount count, Lease lease,
      long units, Instant sentAt) {
    return call(() -> store.observe(key, count, lease, units, sentAt));
  }

  @Override
  public CompletionStage<Lease> lease(QuotaKey key, long minUnits, long maxUnits) {
    return call(() -> store.lease(key, minUnits, maxUnits));
  }

  @Override
  public CompletionStage<SharedQuota> spent(Lease lease, long units, Instant lastSentAt) {
    return call(() -> store.spent(lease, units, lastSentAt));
  }

  @Override
  public CompletionStage<SharedQuota> release(Lease lease, long unusedUnits) {
    return call(() -> store.release(lease, unusedUnits));
  }

  @Override
  public CompletionStage<SharedQuota> hold(QuotaKey key, Instant until) {
    return call(() -> store.hold(key, until));
  }

  @Override
  public CompletionStage<SharedQuota> lift(QuotaKey key, Instant until) {
    return call(() -> store.lift(key, until));
  }

  @Override
  public CompletionStage<SharedQuota> learnRate(QuotaKey key, RefillRate rate) {
    return call(() -> store.learnRate(key, rate));
  }

  @Override
  public CompletionStage<SharedQuota> read(QuotaKey key) {
    return call(() -> store.read(key));
  }

  @Override
  public void close() {
    store.close();
  }
}
