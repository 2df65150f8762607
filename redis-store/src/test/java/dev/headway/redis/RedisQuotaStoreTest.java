package dev.headway.redis;

import dev.headway.testing.LocalRedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.headway.store.Lease;
import dev.headway.store.QuotaKey;
import dev.headway.store.RefillRate;
import dev.headway.store.ServerCount;
import dev.headway.store.SharedQuota;
import dev.headway.testing.CapturedLogs;
import dev.headway.testing.VirtualClock;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The store against a real redis-server (see {@link LocalRedisServer}). */
class RedisQuotaStoreTest {
  private static LocalRedisServer server;
  private static RedisClient adminClient;
  private static StatefulRedisConnection<String, String> adminConnection;
  private static RedisCommands<String, String> admin;

  private final List<RedisQuotaStore> stores = new ArrayList<>();
  private final VirtualClock clock = VirtualClock.create();
  private QuotaKey key;

  @BeforeAll
  static void startRedis() {
    server = LocalRedisServer.start();
    adminClient = RedisClient.create(server.uri().toString());
    adminConnection = adminClient.connect();
    admin = adminConnection.sync();
  }

  @AfterAll
  static void stopRedis() {
    if (adminClient != null) {
      adminConnection.close();
      adminClient.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
    if (server != null) {
      server.stop();
    }
  }

  @BeforeEach
  void freshKey() {
    admin.flushall();
    key = new QuotaKey("https://api.example.com:443", "default");
  }

  @AfterEach
  void closeStores() {
    stores.forEach(RedisQuotaStore::close);
  }

  /** A store with a timeout no loaded build machine reaches, connected. */
  private RedisQuotaStore store(RedisQuotaStore.Builder builder) {
    RedisQuotaStore store = builder.timeout(Duration.ofSeconds(5)).build();
    stores.add(store);
    try {
      store.connection().get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
    return store;
  }

  private RedisQuotaStore virtualStore() {
    return store(RedisQuotaStore.builder(server.uri()).clock(clock));
  }

  private static <T> T get(CompletionStage<T> stage) {
    try {
      return stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private Instant at(long millis) {
    return clock.instant().plusMillis(millis);
  }

  private static ServerCount count(long remaining, Instant observedAt) {
    return ServerCount.of(remaining, observedAt, observedAt.plusSeconds(60), 100,
        Duration.ofMinutes(1));
  }

  @Test
  void unitsSentBeforeTheCountInForceAreNotTakenAgainAndUnitsSentAfterItAre() {
    RedisQuotaStore store = virtualStore();
    Lease lease = get(store.lease(key, 1, 10)); // no count yet: 10 units
    get(store.observe(key, count(50, at(0))));
    assertThat(get(store.read(key)).available()).as("the lease's 10 units").hasValue(40);
    clock.advance(Duration.ofMillis(100));
    get(store.spent(lease, 3, at(-50))); // sent after the count: not in it
    assertThat(get(store.read(key)).available()).hasValue(40);
    get(store.observe(key, count(47, at(-40)))); // a count holding the 3 units
    assertThat(get(store.read(key)).available()).as("47 less the 7 still leased").hasValue(40);
    get(store.spent(lease, 2, at(-60))); // sent before the count in force: in it already
    assertThat(get(store.read(key)).available()).as("47 less the 5 still leased")
        .hasValue(42);
  }

  @Test
  void aRequestsOwnUnitsLeaveTheCountOnlyWhenItsCountIsTheOneInForce() {
    RedisQuotaStore a = virtualStore();
    RedisQuotaStore b = store(RedisQuotaStore.builder(server.uri()).clock(clock)
        .instanceId("b"));
    Lease lease = get(a.lease(key, 1, 2)); // no count yet: 2 units
    clock.advance(Duration.ofMillis(100));
    // b's count holds for an instant later than a's, but a's own unit was sent after it.
    get(b.observe(key, count(10, at(-20))));
    get(a.observe(key, count(11, at(-30)), lease, 1, at(-10)));
    assertThat(get(a.read(key)).available())
        .as("b's count need not hold a's unit (sent after it), nor the one still leased")
        .hasValue(8);
    Lease next = get(a.lease(key, 1, 1));
    clock.advance(Duration.ofMillis(100));
    get(a.observe(key, count(7, at(-5)), next, 1, at(-3)));
    assertThat(get(a.read(key)).available())
        .as("a's count is in force: its own unit is in it; the unit sent at -110 ms too, "
            + "the other unit of the first lease is still leased")
        .hasValue(6);
  }

  /**
   * A request sent before another instance's reaches the server after it: its count, with an
   * older instant, has fewer units left in the same window. It is the newer count, and its own
   * unit is in it; before, the store kept the other count and dropped the unit as held by it,
   * and lent it out again (the real-process fleet demo's 429s).
   */
  @Test
  void aCountWithFewerUnitsLeftInTheSameWindowIsNewerThoughItsInstantIsOlder() {
    RedisQuotaStore a = virtualStore();
    RedisQuotaStore b = store(RedisQuotaStore.builder(server.uri()).clock(clock)
        .instanceId("b"));
    Lease lease = get(a.lease(key, 1, 2)); // no count yet: 2 units
    clock.advance(Duration.ofMillis(500));
    get(b.observe(key, count(3, at(-20)))); // b's request reached the server first
    get(a.observe(key, count(2, at(-480)), lease, 1, at(-480))); // a's, sent earlier, after it
    SharedQuota state = get(a.read(key));
    assertThat(state.count().get().remaining()).isEqualTo(2);
    assertThat(state.available()).as("2 left, less the unit still leased").hasValue(1);
  }

  @Test
  void fourInstancesSharingTheLastThreeUnitsAreGrantedExactlyThreeConcurrently() throws Exception {
    List<RedisQuotaStore> fleet = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      fleet.add(store(RedisQuotaStore.builder(server.uri()).instanceId("pod-" + i)));
    }
    Instant now = Instant.now();
    get(fleet.get(0).observe(key, ServerCount.of(3, now, now.plusSeconds(60), 100,
        Duration.ofMinutes(1))));
    for (RedisQuotaStore s : fleet) {
      get(s.read(key)); // every instance connected and seen
    }
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<Long>> results = new ArrayList<>();
      for (RedisQuotaStore s : fleet) {
        results.add(pool.submit(() -> {
          start.await();
          List<CompletableFuture<Lease>> leases = new ArrayList<>();
          for (int i = 0; i < 10; i++) {
            leases.add(s.lease(key, 1, 4).toCompletableFuture());
          }
          long granted = 0;
          for (CompletableFuture<Lease> lease : leases) {
            granted += lease.get(10, TimeUnit.SECONDS).granted();
          }
          return granted;
        }));
      }
      start.countDown();
      long total = 0;
      for (Future<Long> f : results) {
        total += f.get(20, TimeUnit.SECONDS);
      }
      assertThat(total).isEqualTo(3);
    } finally {
      pool.shutdownNow();
    }
    SharedQuota state = get(fleet.get(3).read(key));
    assertThat(state.available()).hasValue(0);
    assertThat(state.taken()).isEqualTo(3);
    assertThat(state.instances()).isEqualTo(4);
  }

  @Test
  void leasesAreSizedFromTheAvailableUnitsAndTheInstances() {
    RedisQuotaStore a = store(RedisQuotaStore.builder(server.uri()).clock(clock)
        .maxLeaseUnits(64).instanceId("a"));
    RedisQuotaStore b = store(RedisQuotaStore.builder(server.uri()).clock(clock).instanceId("b"));
    get(b.read(key));
    get(a.observe(key, ServerCount.of(100, clock.instant())));
    Lease lease = get(a.lease(key, 1, 1000));
    assertThat(lease.granted()).isEqualTo(50);
    assertThat(lease.validUntil()).isEqualTo(at(1000));
    assertThat(get(b.lease(key, 1, 1000)).granted()).as("b's own bound").isEqualTo(16);
    assertThat(get(b.lease(key, 40, 40)).granted()).as("fewer left than asked").isZero();
    assertThat(get(b.release(lease, 30)).available()).hasValue(64);
    assertThat(get(b.release(lease, 30)).available()).as("returned once").hasValue(84);
  }

  @Test
  void aCountWithAQuotaAndARateButNoResetIsABucketThatKeepsGivingUnitsBack() {
    // The same rule as the in-memory store's: 2 units at most, 1 back per second, for good.
    // Before, once 2 were taken nothing came back until a fresher count.
    RedisQuotaStore a = store(RedisQuotaStore.builder(server.uri()).clock(clock).instanceId("a"));
    RedisQuotaStore b = store(RedisQuotaStore.builder(server.uri()).clock(clock).instanceId("b"));
    get(a.observe(key, new ServerCount(0, clock.instant(), java.util.Optional.empty(),
        java.util.OptionalLong.of(2), java.util.Optional.of(Duration.ofHours(1)))));
    get(a.learnRate(key, new dev.headway.store.RefillRate(60, Duration.ofMinutes(1),
        clock.instant())));
    clock.advance(Duration.ofSeconds(30));
    assertThat(get(a.read(key)).available(clock.instant())).hasValue(2);
    long granted = 0;
    for (int i = 0; i < 10; i++) {
      granted += get((i % 2 == 0 ? a : b).lease(key, 1, 1)).granted();
    }
    assertThat(granted).as("the bucket's 2, not the 30 the rate gave back").isEqualTo(2);
    clock.advance(Duration.ofMillis(999));
    assertThat(get(b.lease(key, 1, 1)).granted()).isZero();
    clock.advance(Duration.ofMillis(1));
    assertThat(get(b.lease(key, 1, 1)).granted()).as("one more a second later").isOne();
    for (int s = 0; s < 20; s++) {
      clock.advance(Duration.ofSeconds(1));
      Lease lease = get(a.lease(key, 1, 4));
      assertThat(lease.granted()).as("one a second, for good").isOne();
      get(a.spent(lease, 1, clock.instant()));
    }
  }

  @Test
  void withoutACountTheStoreGrantsWhatWasAskedWithinTheBound() {
    RedisQuotaStore store = virtualStore();
    Lease lease = get(store.lease(key, 2, 100));
    assertThat(lease.granted()).isEqualTo(16);
    assertThat(lease.state().count()).isEmpty();
  }

  @Test
  void anOlderCountNeverReplacesANewerOne() {
    RedisQuotaStore store = virtualStore();
    get(store.observe(key, ServerCount.of(7, clock.instant())));
    SharedQuota state = get(store.observe(key, ServerCount.of(90, at(-1000))));
    assertThat(state.count().orElseThrow().remaining()).isEqualTo(7);
    state = get(store.observe(key, ServerCount.of(5, at(1))));
    assertThat(state.count().orElseThrow().remaining()).isEqualTo(5);
  }

  @Test
  void oneInstancesHoldHoldsEveryInstance() {
    RedisQuotaStore a = virtualStore();
    RedisQuotaStore b = virtualStore();
    RedisQuotaStore c = virtualStore();
    get(a.observe(key, ServerCount.of(50, clock.instant())));
    get(a.hold(key, at(30_000)));
    get(b.hold(key, at(10_000))); // a shorter hold does not shorten it
    for (RedisQuotaStore s : List.of(a, b, c)) {
      Lease refused = get(s.lease(key, 1, 1));
      assertThat(refused.granted()).isZero();
      assertThat(refused.state().holdUntil()).contains(at(30_000));
      assertThat(refused.validUntil()).isEqualTo(at(30_000));
    }
    clock.advance(Duration.ofSeconds(30));
    assertThat(get(c.lease(key, 1, 1)).granted()).isEqualTo(1);
  }

  @Test
  void aLeaseNeverOutlivesItsWindowAndTheNextWindowStartsFull() {
    RedisQuotaStore store = virtualStore();
    get(store.observe(key, ServerCount.of(10, clock.instant(), at(300), 10,
        Duration.ofSeconds(1))));
    Lease lease = get(store.lease(key, 1, 8));
    assertThat(lease.granted()).isEqualTo(8);
    assertThat(lease.validUntil()).isEqualTo(at(300));
    assertThat(get(store.lease(key, 3, 3)).granted()).isZero();

    clock.advance(Duration.ofMillis(300));
    SharedQuota next = get(store.read(key));
    assertThat(next.taken()).isZero();
    assertThat(next.available()).hasValue(10);
    assertThat(next.count().orElseThrow().resetAt()).contains(at(1000));
    assertThat(admin.hlen(store.keyNames(key).get(1))).as("old window's leases dropped").isZero();
  }

  @Test
  void aWindowTheStoreStartedItselfLendsTwoUnitsUntilACountOfItArrives() {
    RedisQuotaStore store = virtualStore();
    get(store.observe(key, ServerCount.of(0, clock.instant(), at(300), 10,
        Duration.ofSeconds(1))));
    clock.advance(Duration.ofMillis(300));
    assertThat(get(store.lease(key, 1, 8)).granted()).isEqualTo(2);
    assertThat(get(store.lease(key, 1, 8)).granted()).isZero();
    get(store.observe(key, ServerCount.of(9, at(20), at(1_000), 10, Duration.ofSeconds(1))));
    clock.advance(Duration.ofMillis(30));
    assertThat(get(store.lease(key, 1, 8)).granted()).as("9 less the 2 leased").isEqualTo(7);
  }

  @Test
  void aCountOfAProbeSentJustBeforeTheStoreStartedTheWindowReplacesIt() {
    RedisQuotaStore store = virtualStore();
    get(store.observe(key, ServerCount.of(0, clock.instant(), at(300), 100,
        Duration.ofMinutes(1))));
    clock.advance(Duration.ofMillis(300));
    assertThat(get(store.lease(key, 1, 8)).granted()).isEqualTo(2);
    get(store.observe(key, ServerCount.of(99, at(-10), at(600), 100, Duration.ofMinutes(1))));
    assertThat(get(store.lease(key, 1, 8)).granted()).isEqualTo(8);
  }

  @Test
  void aFirstCountOfAWindowTheStoreStartedHoldingLessThanHalfTheQuotaMakesTheKeyRefill() {
    // A sliding window's reset is the end of its fixed window; the previous window still weighs
    // at its start: 3 of 100 back. Before, the fleet waited for the next reset, a minute later
    // (5 instances on a sliding window: 57.6% goodput).
    RedisQuotaStore store = virtualStore();
    get(store.observe(key, ServerCount.of(0, clock.instant(), at(300), 100,
        Duration.ofMinutes(1))));
    clock.advance(Duration.ofMillis(300));
    assertThat(get(store.lease(key, 1, 8)).granted()).as("the probes").isEqualTo(2);
    clock.advance(Duration.ofMillis(50));
    SharedQuota state = get(store.observe(key, ServerCount.of(3, at(-20), at(59_950), 100,
        Duration.ofMinutes(1))));
    assertThat(state.refillRate()).as("quota per window, from now")
        .contains(new RefillRate(100, Duration.ofMinutes(1), clock.instant()));
    // 3 left, 2 leased: 1 now; one more every 0.6 s from the count's instant.
    assertThat(get(store.lease(key, 1, 8)).granted()).isEqualTo(1);
    assertThat(get(store.lease(key, 1, 8)).granted()).isZero();
    clock.advance(Duration.ofMillis(600));
    assertThat(get(store.lease(key, 1, 8)).granted()).isEqualTo(1);
  }

  @Test
  void aWindowTheStoreStartedThatTheServerGaveBackWholeOrACountOfTheOldWindowShowNoRefill() {
    RedisQuotaStore store = virtualStore();
    get(store.observe(key, ServerCount.of(0, clock.instant(), at(300), 100,
        Duration.ofMinutes(1))));
    clock.advance(Duration.ofMillis(300));
    // A probe sent just before the roll: 0 left of the old window (its reset at the start).
    get(store.observe(key, ServerCount.of(0, at(-10), at(0), 100, Duration.ofMinutes(1))));
    assertThat(get(store.read(key)).refillRate()).isEmpty();
    clock.advance(Duration.ofMillis(50));
    // A fixed window: 98 of 100 back (the probes took 2).
    SharedQuota state = get(store.observe(key, ServerCount.of(98, at(-20), at(59_950), 100,
        Duration.ofMinutes(1))));
    assertThat(state.refillRate()).isEmpty();
    assertThat(state.count().orElseThrow().remaining()).isEqualTo(98);
  }

  @Test
  void aSlowerRateToldLaterReplacesTheRateAndTheCountRefillsSlower() {
    // What a fleet's 429s do to the rate it shares: an instance tells a slower one, newer.
    RedisQuotaStore store = virtualStore();
    get(store.observe(key, ServerCount.of(0, clock.instant(), at(60_000), 100,
        Duration.ofMinutes(1))));
    get(store.learnRate(key, new RefillRate(100, Duration.ofMinutes(1), clock.instant())));
    RefillRate slowed = new RefillRate(100, Duration.ofMillis(61_875), at(1));
    get(store.learnRate(key, slowed));
    get(store.learnRate(key, new RefillRate(100, Duration.ofMinutes(1), at(-1))));
    clock.advance(Duration.ofMillis(600));
    SharedQuota state = get(store.read(key));
    assertThat(state.refillRate()).as("the newest, not the last told").contains(slowed);
    assertThat(state.available(clock.instant())).as("0.6 s: 1 unit at 100/min, 0 slower")
        .hasValue(0);
    clock.advance(Duration.ofMillis(19));
    assertThat(get(store.read(key)).available(clock.instant())).hasValue(1);
  }

  @Test
  void leasesBetweenTwoCountsStayFewInRedisAndTheirUnitsStayTaken() {
    RedisQuotaStore store = virtualStore();
    String leases = store.keyNames(key).get(1);
    get(store.observe(key, ServerCount.of(1_000_000, clock.instant())));
    long granted = 0;
    for (int i = 0; i < 1500; i++) {
      Lease lease = get(store.lease(key, 1, 16));
      assertThat(lease.granted()).as("lease %d", i).isEqualTo(16);
      granted += lease.granted();
      clock.advance(Duration.ofMillis(i % 2 == 0 ? 30 : 1100));
    }
    assertThat(get(store.read(key)).taken()).isEqualTo(granted);
    assertThat(admin.hlen(leases)).isLessThanOrEqualTo(34);
    get(store.observe(key, ServerCount.of(500, clock.instant())));
    assertThat(get(store.read(key)).taken()).as("all ended before the count").isZero();
    assertThat(admin.hlen(leases)).isZero();
  }

  @Test
  void aLearnedRateIsShared() {
    RedisQuotaStore a = virtualStore();
    RedisQuotaStore b = virtualStore();
    RefillRate rate = new RefillRate(10, Duration.ofMinutes(1), clock.instant());
    get(a.learnRate(key, rate));
    get(a.learnRate(key, new RefillRate(99, Duration.ofMinutes(1), at(-1))));
    assertThat(get(b.read(key)).refillRate()).contains(rate);
  }

  @Test
  void withARefillRateTheCountGrowsAtItBetweenCountsAsInMemory() {
    // Before: a spent count of a refilling server gave nothing back until its reset.
    RedisQuotaStore a = virtualStore();
    RedisQuotaStore b = store(RedisQuotaStore.builder(server.uri()).clock(clock)
        .instanceId("b"));
    get(a.observe(key, ServerCount.of(0, clock.instant(), at(30_000), 100,
        Duration.ofMinutes(1))));
    get(b.learnRate(key, new RefillRate(100, Duration.ofMinutes(1), clock.instant())));
    clock.advance(Duration.ofMillis(599));
    assertThat(get(a.lease(key, 1, 4)).granted()).as("0.599 s: no unit back yet").isZero();
    clock.advance(Duration.ofMillis(1));
    assertThat(get(a.lease(key, 1, 4)).granted()).isEqualTo(1);
    clock.advance(Duration.ofMillis(5_400));
    assertThat(get(b.read(key)).available(clock.instant())).hasValue(9);
    Lease four = get(b.lease(key, 1, 4));
    assertThat(four.granted()).isEqualTo(4);
    assertThat(four.validUntil()).isEqualTo(clock.instant().plusSeconds(1));
    clock.advance(Duration.ofSeconds(25)); // past the reset: still refilling from its instant
    SharedQuota late = get(a.read(key));
    assertThat(late.available(clock.instant())).hasValue(46);
    clock.advance(Duration.ofSeconds(120));
    assertThat(get(a.read(key)).count().orElseThrow().remaining()).isEqualTo(100);
  }

  @Test
  void anInstanceNamedLikeTheBucketsKeepsItsLeasesApart() {
    // Before: the lease ids of an instance "e" were "e:<n>", taken for buckets of units sent.
    RedisQuotaStore e = store(RedisQuotaStore.builder(server.uri()).clock(clock)
        .instanceId("e"));
    get(e.observe(key, count(10, at(0))));
    Lease lease = get(e.lease(key, 1, 4));
    assertThat(lease.granted()).isEqualTo(4);
    clock.advance(Duration.ofMillis(100));
    get(e.spent(lease, 4, at(-50)));
    get(e.observe(key, count(6, at(-20))));
    assertThat(get(e.read(key)).available()).hasValue(6);
  }

  @Test
  void everyKeyCarriesATtlBoundedByItsUseAndExpires() throws Exception {
    // Real time: Redis expires keys on its own clock. TTLs of 1-2 s: with 250-500 ms, a loaded
    // machine let the hold expire between the calls and the check that all five keys exist.
    RedisQuotaStore store = store(RedisQuotaStore.builder(server.uri())
        .heartbeat(Duration.ofMillis(1600)).maxLeaseDuration(Duration.ofMillis(400)));
    List<String> names = store.keyNames(key);
    Set<String> expired = new HashSet<>();
    CompletableFuture<Void> allGone = new CompletableFuture<>();
    admin.configSet("notify-keyspace-events", "Ex");
    RedisClient subscriber = RedisClient.create(server.uri().toString());
    try (StatefulRedisPubSubConnection<String, String> pubsub = subscriber.connectPubSub()) {
      pubsub.addListener(new RedisPubSubAdapter<>() {
        @Override
        public void message(String channel, String message) {
          synchronized (expired) {
            expired.add(message);
            if (expired.containsAll(List.of(names.get(0), names.get(2), names.get(3),
                names.get(4)))) {
              allGone.complete(null);
            }
          }
        }
      });
      pubsub.sync().subscribe("__keyevent@0__:expired");
      get(store.read(key)); // connected, script loaded
      admin.del(names.get(4));
      Instant now = Instant.now();
      get(store.observe(key, ServerCount.of(10, now, now.plusMillis(1200), 10,
          Duration.ofMillis(800))));
      get(store.lease(key, 1, 1));
      get(store.hold(key, now.plusMillis(1000)));
      get(store.learnRate(key, new RefillRate(1, Duration.ofSeconds(1),
          now.minus(Duration.ofDays(1)).plusMillis(2000))));
      assertThat(admin.exists(names.toArray(String[]::new))).isEqualTo(5);
      long[] bounds = {1200 + 800, 60_000 + 400, 1000, 2000, 1600};
      for (int i = 0; i < names.size(); i++) {
        assertThat(admin.pttl(names.get(i))).as(names.get(i)).isPositive()
            .isLessThanOrEqualTo(bounds[i]);
      }

      allGone.get(10, TimeUnit.SECONDS);
    } finally {
      subscriber.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
    assertThat(admin.exists(names.get(0), names.get(2), names.get(3), names.get(4))).isZero();
    // The leases hash lives a minute past its last lease, then goes too.
    assertThat(admin.pttl(names.get(1))).isPositive().isLessThanOrEqualTo(60_400);
  }

  @Test
  void valuesThisVersionDidNotWriteAreIgnoredDeletedAndLoggedOnce() {
    RedisQuotaStore store = virtualStore();
    List<String> names = store.keyNames(key);
    CapturedLogs.clear();
    {
      admin.hset(names.get(0), java.util.Map.of("v", "1", "remaining", "lots", "observed", "0"));
      admin.set(names.get(1), "not a hash");
      admin.hset(names.get(0) + "x", "v", "1"); // unrelated key: untouched
      admin.set(names.get(2), "soon");
      admin.set(names.get(3), "1:2");
      admin.set(names.get(4), "x");
      SharedQuota state = get(store.read(key));
      assertThat(state.count()).isEmpty();
      assertThat(state.holdUntil()).isEmpty();
      assertThat(state.refillRate()).isEmpty();
      assertThat(admin.exists(names.get(0), names.get(1), names.get(2), names.get(3))).isZero();

      admin.hset(names.get(0), java.util.Map.of("v", "2", "remaining", "5", "observed", "0"));
      admin.hset(names.get(1), "someone", "99999999999999999999:1");
      assertThat(get(store.read(key)).count()).as("another version's count").isEmpty();
      assertThat(get(store.lease(key, 1, 2)).granted()).isEqualTo(2);
      get(store.observe(key, ServerCount.of(9, clock.instant())));
      assertThat(get(store.read(key)).available()).as("the lease is still valid").hasValue(7);
    }
    List<CapturedLogs.Line> warnings = CapturedLogs.lines("dev.headway.redis").stream()
        .filter(l -> l.level() == System.Logger.Level.WARNING).toList();
    assertThat(warnings).hasSize(1);
    assertThat(warnings.get(0).message()).contains("did not write");
  }

  @Test
  void eachOperationIsOneRoundTripAsRedisCountsThem() {
    RedisQuotaStore store = virtualStore();
    get(store.read(key)); // loads the script (EVALSHA, NOSCRIPT, EVAL) on a fresh server
    admin.configResetstat();
    long before = store.roundTrips();
    get(store.observe(key, ServerCount.of(100, clock.instant())));
    Lease lease = get(store.lease(key, 1, 4));
    get(store.release(lease, 2));
    get(store.hold(key, at(1)));
    get(store.learnRate(key, new RefillRate(1, Duration.ofSeconds(1), clock.instant())));
    get(store.read(key));
    assertThat(store.roundTrips() - before).isEqualTo(6);
    String stats = admin.info("commandstats");
    assertThat(calls(stats, "evalsha")).isEqualTo(6);
    assertThat(calls(stats, "eval")).isZero();
  }

  @Test
  void aScriptLostByRedisIsSentAgainOnce() {
    RedisQuotaStore store = virtualStore();
    get(store.read(key));
    admin.scriptFlush();
    long before = store.roundTrips();
    get(store.read(key));
    get(store.read(key));
    assertThat(store.roundTrips() - before).as("EVALSHA, EVAL, then EVALSHA").isEqualTo(3);
  }

  @Test
  void aStoreOnYourClientLeavesItOpen() {
    RedisClient client = RedisClient.create(server.uri().toString());
    try {
      RedisQuotaStore store = RedisQuotaStore.builder(client).timeout(Duration.ofSeconds(5))
          .build();
      get(store.observe(key, ServerCount.of(4, Instant.now())));
      store.close();
      store.close();
      assertThatThrownBy(() -> get(store.read(key))).hasRootCauseMessage("store closed");
      try (StatefulRedisConnection<String, String> c = client.connect()) {
        assertThat(c.sync().ping()).isEqualTo("PONG");
      }
    } finally {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }

  @Test
  void keyNamesAreEscapedAndPrefixed() {
    RedisQuotaStore store = store(RedisQuotaStore.builder(server.uri()).keyPrefix("app1:"));
    QuotaKey odd = new QuotaKey("https://h/{x}|y z", "p%");
    assertThat(store.keyNames(odd)).first()
        .isEqualTo("app1:{https://h/%7Bx%7D%7Cy%20z|p%25}:count");
    assertThatThrownBy(() -> RedisQuotaStore.builder(server.uri()).keyPrefix("a{b"))
        .hasMessageContaining("keyPrefix");
    assertThatThrownBy(() -> RedisQuotaStore.builder(java.net.URI.create("http://x")))
        .hasMessageContaining("redis://");
    assertThatThrownBy(() -> RedisQuotaStore.builder(server.uri()).timeout(Duration.ZERO))
        .hasMessageContaining("timeout");
  }

  @Test
  void leaseOptionsAndArgumentsAreCheckedAsByTheInMemoryStore() {
    // One set of checks (StoreArguments) for both stores: same bounds, same messages.
    RedisQuotaStore store = virtualStore();
    assertThatThrownBy(() -> store.lease(key, 0, 1))
        .hasMessage("minUnits must be 1 to 1000000000000 but was 0");
    assertThatThrownBy(() -> store.release(get(store.lease(key, 1, 1)), -1))
        .hasMessage("unusedUnits must not be negative but was -1");
    assertThatThrownBy(() -> RedisQuotaStore.builder(server.uri()).maxLeaseUnits(0))
        .hasMessage("maxLeaseUnits must be 1 to 1000000000000 but was 0");
    assertThatThrownBy(() -> RedisQuotaStore.builder(server.uri())
        .maxLeaseDuration(Duration.ZERO))
        .hasMessage("maxLeaseDuration must be positive and at most PT24H but was PT0S");
  }

  private static long calls(String commandStats, String command) {
    Matcher m = Pattern.compile("cmdstat_" + command + ":calls=(\\d+)").matcher(commandStats);
    return m.find() ? Long.parseLong(m.group(1)) : 0;
  }
}
