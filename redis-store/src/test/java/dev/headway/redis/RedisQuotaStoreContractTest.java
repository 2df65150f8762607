package dev.headway.redis;

import dev.headway.store.QuotaStore;
import dev.headway.testing.LocalRedisServer;
import dev.headway.testing.store.QuotaStoreContractTest;
import java.time.Duration;
import java.time.InstantSource;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;

/**
 * {@link QuotaStoreContractTest} against {@link RedisQuotaStore} on a real redis-server (see
 * {@link LocalRedisServer}). A fleet is a key prefix of its own: fleets share the server, never a
 * key.
 */
class RedisQuotaStoreContractTest extends QuotaStoreContractTest {
  private static final AtomicInteger FLEETS = new AtomicInteger();
  private static LocalRedisServer server;

  /** What every instance of a fleet is built with. */
  private record Fleet(String keyPrefix, InstantSource clock, long maxLeaseUnits) {}

  private final Map<QuotaStore, Fleet> fleets = new IdentityHashMap<>();

  @BeforeAll
  static void startRedis() {
    server = LocalRedisServer.start();
  }

  @AfterAll
  static void stopRedis() {
    if (server != null) {
      server.stop();
    }
  }

  /** Every key a scenario left in Redis expires (the contract says nothing of keys). */
  @AfterEach
  void everyKeyLeftHasATtl() {
    KeyExpiry.assertEveryKeyExpires(server.uri(), "contract-");
  }

  @Override
  protected QuotaStore newFleet(InstantSource clock, long maxLeaseUnits) {
    Fleet fleet = new Fleet("contract-" + FLEETS.incrementAndGet() + ":", clock, maxLeaseUnits);
    return build(fleet, "instance-1");
  }

  @Override
  protected QuotaStore newInstance(QuotaStore member, String name) {
    return build(fleets.get(member), name);
  }

  private QuotaStore build(Fleet fleet, String instanceId) {
    // A timeout no loaded build machine reaches; build() returns connected.
    RedisQuotaStore store = RedisQuotaStore.builder(server.uri()).keyPrefix(fleet.keyPrefix())
        .clock(fleet.clock()).maxLeaseUnits(fleet.maxLeaseUnits()).instanceId(instanceId)
        .timeout(Duration.ofSeconds(5)).build();
    fleets.put(store, fleet);
    return store;
  }
}
