package dev.headway.testing.store;

import dev.headway.store.QuotaKey;
import dev.headway.store.QuotaStore;
import dev.headway.store.ServerCount;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;

/**
 * What {@link QuotaStoreContractTest}'s tests share: the stores under test (made through the
 * subclass, closed after each test), the clock, and the helpers. Not thread-safe.
 */
abstract class StoreContractSupport {
  /** The key most tests use. */
  protected static final QuotaKey KEY = new QuotaKey("https://api.example.com:443", "default");

  /** The wall clock of every store a test makes; starts at 2026-01-01T00:00:00Z. */
  protected final ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));

  private final List<QuotaStore> made = new ArrayList<>();

  StoreContractSupport() {}

  /**
   * Returns the first instance of a new fleet: a store sharing no state with any store made
   * before, reading wall time from {@code clock}, with leases of at most {@code maxLeaseUnits}
   * units (unless one request costs more), leases valid for at most 1 second, and instances
   * counted as alive for 10 seconds after their last call.
   *
   * @param clock the wall clock the store must read
   * @param maxLeaseUnits the most units one lease grants
   * @return the store
   */
  protected abstract QuotaStore newFleet(InstantSource clock, long maxLeaseUnits);

  /**
   * Returns another instance of {@code member}'s fleet, as another process would be: it shares
   * the fleet's state and bounds under its own instance name.
   *
   * @param member an instance this test made
   * @param name the other instance's name
   * @return the other instance
   */
  protected abstract QuotaStore newInstance(QuotaStore member, String name);

  @AfterEach
  void closeWhatTheTestMade() {
    made.forEach(QuotaStore::close);
    made.clear();
  }

  /** A new fleet with the default bound of 16 units per lease. */
  QuotaStore store() {
    return fleet(16);
  }

  QuotaStore fleet(long maxLeaseUnits) {
    QuotaStore store = newFleet(clock, maxLeaseUnits);
    made.add(store);
    return store;
  }

  QuotaStore instance(QuotaStore member, String name) {
    QuotaStore store = newInstance(member, name);
    made.add(store);
    return store;
  }

  /** Waits at most 10 seconds for {@code stage}. */
  static <T> T await(CompletionStage<T> stage) {
    try {
      return stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
      throw new AssertionError(e);
    }
  }

  Instant at(long millis) {
    return clock.instant().plusMillis(millis);
  }

  static ServerCount count(long remaining, Instant observedAt) {
    return ServerCount.of(remaining, observedAt, observedAt.plusSeconds(60), 100,
        Duration.ofMinutes(1));
  }
}
