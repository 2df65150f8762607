package dev.headway.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.headway.Pacer;
import dev.headway.RateLimitedException;
import dev.headway.RequestInfo;
import dev.headway.store.InMemoryQuotaStore;
import dev.headway.store.Lease;
import dev.headway.store.QuotaKey;
import dev.headway.store.QuotaStore;
import dev.headway.store.RefillRate;
import dev.headway.store.ServerCount;
import dev.headway.store.SharedQuota;
import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Several pacers of one process given the same store object (one Spring {@code QuotaStore} bean
 * injected into two {@code Pacer} beans, one {@code RedisQuotaStore} built once and handed
 * around). One store object is one instance of the fleet: before, the pacers were one instance
 * to the store, each spent units the store had leased to the other or went as if alone, and four
 * pacers sharing the last three units sent four (one 429). Now a pacer built on a store another
 * open pacer uses runs on {@link QuotaStore#anotherInstance()}. Virtual time, 1 ms to the store.
 */
@Timeout(60)
class SeveralPacersOneStoreTest {
  static final RequestInfo GET = RequestInfo.get(URI.create("https://api.example.com/items"));

  private final VirtualClock clock = VirtualClock.create();
  private final InMemoryQuotaStore store = InMemoryQuotaStore.builder().clock(clock)
      .roundTrip(Duration.ofMillis(1), clock).build();
  private final QuotaServer server = new QuotaServer(clock, 100, Duration.ofSeconds(60));

  private Pacer pacer(QuotaStore on, int seed) {
    return Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock).jitterSeed(seed)
        .store(on).build();
  }

  private CompletableFuture<Long> call(Pacer pacer, String name, Duration maxWait) {
    return pacer.acquireAsync(GET, maxWait).thenApply(permit -> {
      long at = clock.read();
      permit.complete(server.handle(name));
      return at;
    });
  }

  @Test
  void fourPacersGivenOneStoreShareTheLastThreeUnitsAsFourInstancesDo() {
    List<Pacer> pacers = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      pacers.add(pacer(store, i));
    }
    server.spend(96);
    CompletableFuture<Long> first = call(pacers.get(0), "p0", Duration.ofSeconds(1));
    clock.advance(Duration.ofMillis(20));
    assertThat(first).isDone(); // the server says 3 are left
    List<CompletableFuture<Long>> calls = new ArrayList<>();
    for (int i = 0; i < pacers.size(); i++) {
      for (int j = 0; j < 3; j++) {
        calls.add(call(pacers.get(i), "p" + i, Duration.ofSeconds(5)));
      }
    }
    clock.advance(Duration.ofSeconds(6));
    assertThat(calls).allMatch(CompletableFuture::isDone);
    long sent = calls.stream().filter(c -> !c.isCompletedExceptionally()).count();
    assertThat(server.count(429)).as("429s").isZero();
    assertThat(sent).isEqualTo(3);
  }

  @Test
  void twoOpenPacersOnOneStoreAreTwoInstancesToIt() {
    Pacer first = pacer(store, 1);
    Pacer second = pacer(store, 2);
    CompletableFuture<Long> a = call(first, "p0", Duration.ofSeconds(1));
    CompletableFuture<Long> b = call(second, "p1", Duration.ofSeconds(1));
    clock.advance(Duration.ofSeconds(2));
    assertThat(a).isDone();
    assertThat(b).isDone();
    CompletionStage<SharedQuota> read =
        store.read(new QuotaKey("https://api.example.com:443", "requests"));
    clock.advance(Duration.ofMillis(2));
    assertThat(read.toCompletableFuture().join().instances()).isEqualTo(2);
  }

  @Test
  void aStoreWithOneInstancePerObjectIsRefusedForASecondOpenPacerWithAClearMessage() {
    QuotaStore plain = new OneInstanceStore(store);
    Pacer first = pacer(plain, 1);
    assertThatThrownBy(() -> pacer(plain, 2))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("already used by another open Pacer")
        .hasMessageContaining("Give each pacer its own store");
    first.close();
    pacer(plain, 3).close(); // once the first is closed, it is free again
  }

  /** A store of someone else's that does not implement {@code anotherInstance()}. */
  private record OneInstanceStore(QuotaStore inner) implements QuotaStore {
    @Override
    public CompletionStage<SharedQuota> observe(QuotaKey key, ServerCount count) {
      return inner.observe(key, count);
    }

    @Override
    public CompletionStage<SharedQuota> observe(QuotaKey key, ServerCount count, Lease lease,
        long units, Instant sentAt) {
      return inner.observe(key, count, lease, units, sentAt);
    }

    @Override
    public CompletionStage<Lease> lease(QuotaKey key, long minUnits, long maxUnits) {
      return inner.lease(key, minUnits, maxUnits);
    }

    @Override
    public CompletionStage<SharedQuota> spent(Lease lease, long units, Instant lastSentAt) {
      return inner.spent(lease, units, lastSentAt);
    }

    @Override
    public CompletionStage<SharedQuota> release(Lease lease, long unusedUnits) {
      return inner.release(lease, unusedUnits);
    }

    @Override
    public CompletionStage<SharedQuota> hold(QuotaKey key, Instant until) {
      return inner.hold(key, until);
    }

    @Override
    public CompletionStage<SharedQuota> lift(QuotaKey key, Instant until) {
      return inner.lift(key, until);
    }

    @Override
    public CompletionStage<SharedQuota> learnRate(QuotaKey key, RefillRate rate) {
      return inner.learnRate(key, rate);
    }

    @Override
    public CompletionStage<SharedQuota> read(QuotaKey key) {
      return inner.read(key);
    }

    @Override
    public void close() {
      inner.close();
    }
  }
}
