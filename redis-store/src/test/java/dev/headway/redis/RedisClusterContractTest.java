package dev.headway.redis;

import dev.headway.store.QuotaStore;
import dev.headway.testing.LocalRedisCluster;
import dev.headway.testing.LocalRedisServer;
import dev.headway.testing.store.QuotaStoreContractTest;
import java.net.URI;
import java.time.Duration;
import java.time.InstantSource;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;

/**
 * {@link QuotaStoreContractTest} against {@link RedisQuotaStore} on a real three-primary Redis
 * Cluster (see {@link LocalRedisCluster}), each store on a cluster client of its own. A fleet is a
 * key prefix of its own; its quotas land on whichever node serves their slot.
 */
class RedisClusterContractTest extends QuotaStoreContractTest {
  private static final AtomicInteger FLEETS = new AtomicInteger();
  private static LocalRedisCluster cluster;

  private record Fleet(String keyPrefix, InstantSource clock, long maxLeaseUnits) {}

  private final Map<QuotaStore, Fleet> fleets = new IdentityHashMap<>();

  @BeforeAll
  static void startCluster() {
    cluster = LocalRedisCluster.start();
  }

  @AfterAll
  static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  /** Every key a scenario left on any node expires. */
  @AfterEach
  void everyKeyLeftHasATtl() {
    for (LocalRedisServer node : cluster.nodes()) {
      KeyExpiry.assertEveryKeyExpires(node.uri(), "cluster-contract-");
    }
  }

  @Override
  protected QuotaStore newFleet(InstantSource clock, long maxLeaseUnits) {
    Fleet fleet = new Fleet("cluster-contract-" + FLEETS.incrementAndGet() + ":", clock,
        maxLeaseUnits);
    return build(fleet, "instance-1");
  }

  @Override
  protected QuotaStore newInstance(QuotaStore member, String name) {
    return build(fleets.get(member), name);
  }

  private QuotaStore build(Fleet fleet, String instanceId) {
    RedisQuotaStore store = RedisQuotaStore.clusterBuilder(cluster.uris().toArray(URI[]::new))
        .keyPrefix(fleet.keyPrefix()).clock(fleet.clock()).maxLeaseUnits(fleet.maxLeaseUnits())
        .instanceId(instanceId).timeout(Duration.ofSeconds(5)).build();
    fleets.put(store, fleet);
    return store;
  }
}
