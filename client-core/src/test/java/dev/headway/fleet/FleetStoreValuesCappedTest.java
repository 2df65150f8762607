package dev.headway.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
import dev.headway.Permit;
import dev.headway.RateLimitSignal;
import dev.headway.RateLimitedException;
import dev.headway.RequestInfo;
import dev.headway.SanityCaps;
import dev.headway.SignalParser;
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
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Values read back from a store of the user's own pass the caps a server's values get: a store
 * that answers every call with a fleet-wide hold until the year 9999 (a co-tenant's key, a bug)
 * holds the fleet no longer than the {@code Retry-After} cap. Virtual time, store round trip
 * 1 ms.
 */
@Timeout(60)
class FleetStoreValuesCappedTest {
  static final RequestInfo GET = RequestInfo.get(URI.create("https://api.example.com/items"));
  private static final Instant FAR = Instant.parse("9999-12-31T23:59:59Z");

  private final VirtualClock clock = VirtualClock.create();
  private final InMemoryQuotaStore real = InMemoryQuotaStore.builder().clock(clock)
      .roundTrip(Duration.ofMillis(1), clock).build();

  /**
   * A store whose every answer says the fleet is held until 9999 (and that a rate was learned
   * then), and whose leases last until 9999.
   */
  private final class AbsurdStore implements QuotaStore {
    private SharedQuota absurd(SharedQuota state) {
      return new SharedQuota(state.key(), state.count(), state.taken(), Optional.of(FAR),
          Optional.of(new RefillRate(1, Duration.ofDays(365), FAR)), state.instances());
    }

    private CompletionStage<SharedQuota> absurd(CompletionStage<SharedQuota> state) {
      return state.thenApply(this::absurd);
    }

    @Override
    public CompletionStage<SharedQuota> observe(QuotaKey key, ServerCount count) {
      return absurd(real.observe(key, count));
    }

    @Override
    public CompletionStage<SharedQuota> observe(QuotaKey key, ServerCount count, Lease lease,
        long units, Instant lastSentAt) {
      return absurd(real.observe(key, count, lease, units, lastSentAt));
    }

    @Override
    public CompletionStage<Lease> lease(QuotaKey key, long minUnits, long maxUnits) {
      return real.lease(key, minUnits, maxUnits)
          .thenApply(l -> new Lease(l.key(), l.id(), l.granted(), FAR, absurd(l.state())));
    }

    @Override
    public CompletionStage<SharedQuota> spent(Lease lease, long units, Instant lastSentAt) {
      return absurd(real.spent(lease, units, lastSentAt));
    }

    @Override
    public CompletionStage<SharedQuota> release(Lease lease, long unusedUnits) {
      return absurd(real.release(lease, unusedUnits));
    }

    @Override
    public CompletionStage<SharedQuota> hold(QuotaKey key, Instant until) {
      return absurd(real.hold(key, until));
    }

    @Override
    public CompletionStage<SharedQuota> lift(QuotaKey key, Instant until) {
      return absurd(real.lift(key, until));
    }

    @Override
    public CompletionStage<SharedQuota> learnRate(QuotaKey key, RefillRate rate) {
      return absurd(real.learnRate(key, rate));
    }

    @Override
    public CompletionStage<SharedQuota> read(QuotaKey key) {
      return absurd(real.read(key));
    }

    @Override
    public void close() {
      real.close();
    }
  }

  private static RateLimitSignal ok() {
    return new RateLimitSignal(200, List.of(), List.of(), Optional.empty(), Optional.empty(),
        Optional.empty(), List.of(), List.of(), List.of(), false);
  }

  /**
   * Acquires with {@code maxWait}, stepping the clock 1 ms at a time until decided; returns the
   * permit or null if refused.
   */
  private Permit acquire(Pacer pacer, Duration maxWait) {
    CompletableFuture<Permit> call = pacer.acquireAsync(GET, maxWait);
    for (long i = 0; i <= maxWait.toMillis() + 10 && !call.isDone(); i++) {
      clock.advance(Duration.ofMillis(1));
    }
    assertThat(call).isDone();
    if (call.isCompletedExceptionally()) {
      Throwable e = call.handle((p, t) -> t).join();
      while (e.getCause() != null && !(e instanceof RateLimitedException)) {
        e = e.getCause();
      }
      assertThat(e).isInstanceOf(RateLimitedException.class);
      return null;
    }
    return call.join();
  }

  /**
   * With a {@code Retry-After} cap of an hour, a store saying on every answer that the fleet is
   * held until 9999 refuses calls for at most that hour from the first answer that said it (as
   * the Redis store rewrites such a hold to the cap): calls an hour and a minute later go.
   * Before, the hold was adopted uncapped: {@code quota(uri)} showed the partition held for 73
   * years (the longest the engine's clock counts), every call refused but the rare check of a
   * long block.
   */
  @Test
  void aStoresHoldIsCappedLikeAServersRetryAfter() {
    SanityCaps caps = new SanityCaps(Duration.ofHours(1), Duration.ofHours(1), 1_000_000,
        1_000_000);
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .signalParser(SignalParser.builder().caps(caps).build())
        .store(new AbsurdStore()).build();
    // The first call learns the store's answers (its own lease, in the background).
    Permit first = acquire(pacer, Duration.ofSeconds(1));
    if (first != null) {
      first.complete(ok());
    }
    for (int i = 0; i < 5; i++) {
      Permit p = acquire(pacer, Duration.ofSeconds(1));
      if (p != null) {
        p.complete(ok());
      }
    }
    Optional<Duration> held = pacer.quota(GET.uri()).heldFor();
    assertThat(held).as("the hold the store's answers put on the partition").isPresent();
    assertThat(held.get()).isLessThanOrEqualTo(Duration.ofHours(1));
    clock.advance(Duration.ofMinutes(61));
    int went = 0;
    for (int i = 0; i < 10; i++) {
      Permit p = acquire(pacer, Duration.ofSeconds(2));
      if (p != null) {
        went++;
        p.complete(ok());
      }
      clock.advance(Duration.ofSeconds(1));
    }
    assertThat(went).as("calls that went an hour and a minute after the store's hold began")
        .isEqualTo(10);
  }
}
