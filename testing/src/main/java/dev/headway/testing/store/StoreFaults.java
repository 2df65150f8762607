package dev.headway.testing.store;

import dev.headway.store.Lease;
import dev.headway.store.QuotaKey;
import dev.headway.store.QuotaStore;
import dev.headway.store.QuotaStoreException;
import dev.headway.store.RefillRate;
import dev.headway.store.ServerCount;
import dev.headway.store.SharedQuota;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * Faults and counts for {@link QuotaStore}s under test: the stores {@link #wrap}ped by one
 * {@code StoreFaults} count their calls together ({@link #calls()}) and, while {@link
 * #unavailable(boolean) unavailable}, fail every call with a {@link QuotaStoreException} without
 * calling the store, as a store whose server is down would. Wrap every instance of a fleet with
 * the same {@code StoreFaults} to take the whole fleet's store down at once:
 *
 * <pre>{@code
 * StoreFaults faults = new StoreFaults();
 * Pacer pacer = Pacer.builder().store(faults.wrap(InMemoryQuotaStore.create())).build();
 * faults.unavailable(true); // the pacer falls back to local pacing
 * }</pre>
 *
 * <p>Thread-safe.
 */
public final class StoreFaults {
  private final AtomicLong calls = new AtomicLong();
  private volatile boolean down;

  /** Creates faults that are off: wrapped stores answer as they would. */
  public StoreFaults() {}

  /**
   * Returns {@code store} with these faults and this count.
   *
   * @param store the store to wrap; closing the wrapper closes it
   * @return the wrapped store
   */
  public QuotaStore wrap(QuotaStore store) {
    return new Wrapped(Objects.requireNonNull(store, "store must not be null"));
  }

  /**
   * Makes every call of the wrapped stores fail while {@code down} is true.
   *
   * @param down whether calls fail
   */
  public void unavailable(boolean down) {
    this.down = down;
  }

  /**
   * Returns how many calls the wrapped stores received (failed ones included).
   *
   * @return the calls so far
   */
  public long calls() {
    return calls.get();
  }

  private final class Wrapped implements QuotaStore {
    private final QuotaStore store;

    Wrapped(QuotaStore store) {
      this.store = store;
    }

    private <T> CompletionStage<T> call(Supplier<CompletionStage<T>> call) {
      calls.incrementAndGet();
      return down ? CompletableFuture.failedFuture(new QuotaStoreException("store unavailable"))
          : call.get();
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

    @Override
    public String toString() {
      return store + " (with StoreFaults)";
    }
  }
}
