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
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What is particular to the Redis store, against a real redis-server (see {@link
 * LocalRedisServer}): keys, expiry, scripts, values it did not write, options. The behaviour every
 * store owes is {@link RedisQuotaStoreContractTest}.
 */
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
  void everyKeyLeftHasATtlAndTheStoresClose() {
    try {
      KeyExpiry.assertEveryKeyExpires(admin, "headway:");
    } finally {
      stores.forEach(RedisQuotaStore::close);
    }
  }

  /** A store with a timeout no loaded build machine reaches, connected. */
  private RedisQuotaStore store(RedisQuotaStore.Builder builder) {
    RedisQuotaStore store = builder.timeout(Duration.ofSeconds(5)).build(); // connected
    stores.add(store);
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

  /** The Redis keys of {@code key} under the default prefix. */
  private static List<String> keyNames(QuotaKey key) {
    return List.of(KeyNames.of("headway:", key));
  }

  private Instant at(long millis) {
    return clock.instant().plusMillis(millis);
  }

  private static ServerCount count(long remaining, Instant observedAt) {
    return ServerCount.of(remaining, observedAt, observedAt.plusSeconds(60), 100,
        Duration.ofMinutes(1));
  }

  @Test
  void valkeysSchemesReachTheSameServerAndOtherSchemesAreRefusedAtTheBuilder() throws Exception {
    // Valkey's clients spell the same protocol valkey://; the store took it and Lettuce refused it.
    RedisQuotaStore valkey = store(RedisQuotaStore.builder(
        URI.create("valkey://127.0.0.1:" + server.port())).clock(clock).instanceId("v"));
    get(valkey.observe(key, count(7, at(0))));
    assertThat(get(virtualStore().read(key)).count().get().remaining()).isEqualTo(7);
    for (String bad : List.of("http://127.0.0.1:6379", "redisx://127.0.0.1:6379",
        "localhost:6379")) {
      assertThatThrownBy(() -> RedisQuotaStore.builder(URI.create(bad)))
          .as(bad).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("uri must be a redis://");
    }
    assertThatThrownBy(() -> RedisQuotaStore.clusterBuilder(
        URI.create("valkey-sentinel://127.0.0.1:26379#primary")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not Sentinels");
  }

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
  void theLeasesOfAWindowLeaveRedisWhenTheNextWindowStarts() {
    // What the window does to leases is QuotaStoreContractTest's; this is where they are kept.
    RedisQuotaStore store = virtualStore();
    get(store.observe(key, ServerCount.of(10, clock.instant(), at(300), 10,
        Duration.ofSeconds(1))));
    assertThat(get(store.lease(key, 1, 8)).granted()).isEqualTo(8);
    assertThat(admin.hlen(keyNames(key).get(1))).as("the lease, in Redis").isOne();
    clock.advance(Duration.ofMillis(300));
    assertThat(get(store.read(key)).taken()).isZero();
    assertThat(admin.hlen(keyNames(key).get(1))).as("old window's leases dropped").isZero();
  }

  @Test
  void leasesBetweenTwoCountsStayFewInRedisAndTheirUnitsStayTaken() {
    RedisQuotaStore store = virtualStore();
    String leases = keyNames(key).get(1);
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

  /**
   * Redis deletes a hash with its last field, and its TTL with it: a write that re-created the
   * leases hash without one left it for ever (three ordinary paths, and the merging of buckets).
   */
  @Test
  void theLeasesHashKeepsAnExpiryWhenItsLastFieldGoesAndComesBack() {
    RedisQuotaStore store = virtualStore();
    String leases = keyNames(key).get(1);

    // Units reported spent: the lease's field goes, the units come back as a bucket.
    get(store.observe(key, ServerCount.of(100, clock.instant())));
    Lease lease = get(store.lease(key, 4, 4));
    clock.advance(Duration.ofMillis(50));
    get(store.spent(lease, 4, at(-10)));
    assertThat(admin.hlen(leases)).as("the bucket of the units spent").isOne();
    assertThat(admin.pttl(leases)).as("units reported spent").isPositive();

    // A count observed with the lease's units, older than the one in force: the field goes,
    // the units wait in a bucket.
    admin.flushall();
    get(store.observe(key, ServerCount.of(100, clock.instant())));
    lease = get(store.lease(key, 2, 2));
    clock.advance(Duration.ofMillis(50));
    get(store.observe(key, ServerCount.of(99, at(-60)), lease, 2, at(-10)));
    assertThat(admin.hlen(leases)).isOne();
    assertThat(admin.pttl(leases)).as("a count observed with the lease's units").isPositive();

    // A read after the lease ended: the ended lease becomes a bucket.
    admin.flushall();
    get(store.observe(key, ServerCount.of(100, clock.instant())));
    get(store.lease(key, 3, 3));
    clock.advance(Duration.ofSeconds(2));
    assertThat(get(store.read(key)).taken()).isEqualTo(3);
    assertThat(admin.hlen(leases)).isOne();
    assertThat(admin.pttl(leases)).as("a read after the lease ended").isPositive();

    // More than 32 buckets merged into one.
    admin.flushall();
    get(store.observe(key, ServerCount.of(1000, clock.instant())));
    for (int i = 0; i < 40; i++) {
      Lease one = get(store.lease(key, 1, 1));
      clock.advance(Duration.ofMillis(150));
      get(store.spent(one, 1, at(-100)));
      assertThat(admin.pttl(leases)).as("after %d units spent", i + 1).isPositive();
    }
    assertThat(get(store.read(key)).taken()).isEqualTo(40);
    assertThat(admin.pttl(leases)).isPositive();
  }

  @Test
  void everyKeyHasATtlAfterEveryCallOfARandomSequenceOfCalls() {
    // Every write, not only the scenarios above: two instances, every operation, counts with and
    // without resets and windows, leases spent, given back, ended and merged, in random order.
    RedisQuotaStore a = virtualStore();
    RedisQuotaStore b = store(RedisQuotaStore.builder(server.uri()).clock(clock).instanceId("b"));
    java.util.Random random = new java.util.Random(30);
    List<Lease> leases = new ArrayList<>();
    for (int step = 0; step < 600; step++) {
      RedisQuotaStore s = random.nextBoolean() ? a : b;
      Instant now = clock.instant();
      switch (random.nextInt(8)) {
        case 0 -> get(s.observe(key, random.nextBoolean() ? ServerCount.of(random.nextInt(50),
            at(-random.nextInt(200))) : ServerCount.of(random.nextInt(50),
            at(-random.nextInt(200)), at(random.nextInt(3000)), 50, Duration.ofSeconds(3))));
        case 1, 2 -> leases.add(get(s.lease(key, 1, 1 + random.nextInt(4))));
        case 3 -> {
          if (!leases.isEmpty()) {
            Lease l = leases.remove(random.nextInt(leases.size()));
            get(s.spent(l, random.nextInt(5), at(-random.nextInt(300))));
          }
        }
        case 4 -> {
          if (!leases.isEmpty()) {
            get(s.release(leases.remove(random.nextInt(leases.size())), random.nextInt(5)));
          }
        }
        case 5 -> {
          if (!leases.isEmpty()) {
            Lease l = leases.get(random.nextInt(leases.size()));
            get(s.observe(key, ServerCount.of(random.nextInt(50), at(-random.nextInt(300))), l,
                1, at(-random.nextInt(300))));
          }
        }
        case 6 -> get(random.nextInt(10) == 0 ? s.hold(key, at(random.nextInt(2000)))
            : s.learnRate(key, new RefillRate(1 + random.nextInt(10), Duration.ofSeconds(1),
                now)));
        default -> get(s.read(key));
      }
      KeyExpiry.assertEveryKeyExpires(admin, "headway:");
      clock.advance(Duration.ofMillis(random.nextInt(400)));
    }
  }

  @Test
  void aHoldOrAResetAnotherClientWroteIsCappedAsAServersWouldBe() {
    // A co-tenant, an older version or garbage wrote the year 9999 (and no expiry): before, the
    // whole fleet refused calls until then. A server's Retry-After is capped at a day.
    RedisQuotaStore store = virtualStore();
    List<String> names = keyNames(key);
    long day = Duration.ofDays(1).toMillis();
    admin.set(names.get(2), "253402300799999");
    SharedQuota state = get(store.read(key));
    assertThat(state.holdUntil()).as("what the pacer is told").contains(at(day));
    Lease refused = get(store.lease(key, 1, 1));
    assertThat(refused.granted()).isZero();
    assertThat(refused.validUntil()).isEqualTo(at(day));
    assertThat(admin.pttl(names.get(2))).isPositive().isLessThanOrEqualTo(day);
    assertThat(admin.get(names.get(2))).isEqualTo(Long.toString(at(day).toEpochMilli()));

    admin.flushall();
    admin.hset(names.get(0), java.util.Map.of("v", "1", "remaining", "0", "observed",
        Long.toString(clock.instant().toEpochMilli()), "reset", "253402300799999", "quota", "100"));
    SharedQuota counted = get(store.read(key));
    assertThat(counted.count().orElseThrow().resetAt()).contains(at(day));
    assertThat(admin.pttl(names.get(0))).isPositive().isLessThanOrEqualTo(day + 1000);
  }

  @Test
  void aRateLearnedFarFromNowIsNotBelievedAndNoKeyOfOneStaysForEver() {
    // A learnedAt in the year 9999 made Duration.between(learnedAt, now).toNanos() throw in the
    // pacer on every admitted response.
    RedisQuotaStore store = virtualStore();
    String rate = keyNames(key).get(3);
    admin.set(rate, "10:1000:253402300799999");
    assertThat(get(store.read(key)).refillRate()).as("learned in the year 9999").isEmpty();
    assertThat(admin.exists(rate)).isZero();

    admin.set(rate, "10:1000:0"); // learned in 1970, no expiry
    assertThat(get(store.read(key)).refillRate()).as("over for 55 years").isEmpty();
    assertThat(admin.exists(rate)).isZero();

    Instant learned = at(-1000);
    admin.set(rate, "10:1000:" + learned.toEpochMilli()); // sane, but no expiry
    RefillRate read = get(store.read(key)).refillRate().orElseThrow();
    assertThat(read.learnedAt()).isEqualTo(learned);
    assertThat(Duration.between(read.learnedAt(), clock.instant()).toNanos())
        .isEqualTo(1_000_000_000L);
    assertThat(admin.pttl(rate)).isPositive()
        .isLessThanOrEqualTo(Duration.ofDays(1).minusSeconds(1).toMillis());
  }

  @Test
  void anInstanceWhoseHeartbeatEndsPastADayIsNotCounted() {
    RedisQuotaStore store = virtualStore();
    admin.zadd(keyNames(key).get(4), 253402300799999.0, "ghost");
    assertThat(get(store.read(key)).instances()).isOne();
    assertThat(admin.zcard(keyNames(key).get(4))).isOne();
  }

  @Test
  void fiftyThousandJunkFieldsInTheLeasesHashCostOneShortRunAndOneShortPrintableLine() {
    RedisQuotaStore store = virtualStore();
    get(store.read(new QuotaKey("https://other.example.com:443", "default"))); // script loaded
    String leases = keyNames(key).get(1);
    fill(leases, 50_000);
    CapturedLogs.clear();
    admin.configResetstat();
    get(store.read(key));
    long usec = usecPerCall(admin.info("commandstats"), "evalsha");
    // Redis's own measure of the script run (not wall time on this loaded machine): before, it
    // read, matched and deleted each field (hundreds of ms).
    assertThat(usec).as("microseconds Redis spent in the script run").isLessThan(50_000);
    assertThat(admin.exists(leases)).isZero();
    assertShortPrintableWarning();
  }

  @Test
  void junkFieldsInTheLeasesHashAreReportedInOneShortPrintableLine() {
    RedisQuotaStore store = virtualStore();
    String leases = keyNames(key).get(1);
    fill(leases, 1_000);
    CapturedLogs.clear();
    get(store.read(key));
    assertThat(admin.exists(leases)).isZero();
    assertShortPrintableWarning();
    assertThat(CapturedLogs.lines("dev.headway.redis").get(0).message())
        .contains("1000 fields were not leases");
  }

  /** Fields a lease hash of Headway never holds: long names with raw bytes, junk values. */
  private static void fill(String leases, int fields) {
    java.util.Map<String, String> batch = new java.util.HashMap<>();
    for (int i = 0; i < fields; i++) {
      batch.put("junk\u0000\u001b[2J\u00ff" + "x".repeat(60) + i, "not:a:lease\u0007");
      if (batch.size() == 5_000 || i == fields - 1) {
        admin.hset(leases, batch);
        batch.clear();
      }
    }
    assertThat(admin.hlen(leases)).isEqualTo(fields);
  }

  private static void assertShortPrintableWarning() {
    List<CapturedLogs.Line> lines = CapturedLogs.lines("dev.headway.redis");
    assertThat(lines).as("one line").hasSize(1);
    String message = lines.get(0).message();
    assertThat(lines.get(0).level()).isEqualTo(System.Logger.Level.WARNING);
    assertThat(message.length()).as("the logged line's length").isLessThan(600);
    assertThat(message.chars().allMatch(ch -> ch >= 0x20 && ch < 0x7f))
        .as("printable: %s", message).isTrue();
  }

  private static long usecPerCall(String commandStats, String command) {
    Matcher m = Pattern.compile("cmdstat_" + command + ":calls=(\\d+),usec=(\\d+)")
        .matcher(commandStats);
    assertThat(m.find()).as(commandStats).isTrue();
    return Long.parseLong(m.group(2)) / Long.parseLong(m.group(1));
  }

  @Test
  void everyKeyCarriesATtlBoundedByItsUseAndExpires() throws Exception {
    // Real time: Redis expires keys on its own clock. TTLs of 1-2 s: with 250-500 ms, a loaded
    // machine let the hold expire between the calls and the check that all five keys exist.
    RedisQuotaStore store = store(RedisQuotaStore.builder(server.uri())
        .heartbeat(Duration.ofMillis(1600)).maxLeaseDuration(Duration.ofMillis(400)));
    List<String> names = keyNames(key);
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
    List<String> names = keyNames(key);
    CapturedLogs.clear();
    {
      admin.hset(names.get(0), java.util.Map.of("v", "1", "remaining", "lots", "observed", "0"));
      admin.set(names.get(1), "not a hash");
      admin.hset(names.get(0) + "x", "v", "1"); // unrelated key: untouched (and no TTL)
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
    admin.configResetstat();
    get(store.observe(key, ServerCount.of(100, clock.instant())));
    Lease lease = get(store.lease(key, 1, 4));
    get(store.release(lease, 2));
    get(store.hold(key, at(1)));
    get(store.learnRate(key, new RefillRate(1, Duration.ofSeconds(1), clock.instant())));
    get(store.read(key));
    String stats = admin.info("commandstats");
    assertThat(calls(stats, "evalsha")).isEqualTo(6);
    assertThat(calls(stats, "eval")).isZero();
  }

  @Test
  void theScriptIsLoadedWhenTheStoreConnectsSoTheFirstCallIsOneRoundTrip() {
    admin.scriptFlush();
    admin.configResetstat();
    RedisQuotaStore store = virtualStore(); // connected
    get(store.read(key));
    String stats = admin.info("commandstats");
    assertThat(calls(stats, "eval")).as("no call sends the script whole").isZero();
    assertThat(calls(stats, "evalsha")).isEqualTo(1);
  }

  @Test
  void aScriptLostByRedisIsSentAgainOnce() {
    RedisQuotaStore store = virtualStore();
    get(store.read(key));
    admin.scriptFlush();
    admin.configResetstat();
    get(store.read(key));
    get(store.read(key));
    String stats = admin.info("commandstats");
    assertThat(calls(stats, "eval")).as("the script sent again once").isEqualTo(1);
    assertThat(calls(stats, "evalsha")).as("EVALSHA (NOSCRIPT), EVAL, then EVALSHA")
        .isEqualTo(2);
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
    assertThat(List.of(KeyNames.of("app1:", odd, true))).first()
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
