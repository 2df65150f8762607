package dev.headway.interop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.redis.RedisQuotaStore;
import dev.headway.store.QuotaStore;
import dev.headway.testing.LocalRedisCluster;
import dev.headway.testing.LocalRedisServer;
import dev.headway.testing.store.QuotaStoreContractTest;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.net.URI;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * The Redis store's whole contract ({@link QuotaStoreContractTest}) against Valkey, Redis's
 * open-source fork, as companies run it: one node, and a cluster of three primaries. The same
 * scripts, keys and hash tags as against Redis; after every scenario every key the store left
 * on any node expires. Needs {@code valkey-server} (8 or later); fails, never skips, without it.
 */
@Execution(ExecutionMode.SAME_THREAD)
class ValkeyStoreTest {
  private static final AtomicInteger FLEETS = new AtomicInteger();

  /** What every instance of a fleet is built with; a fleet is a key prefix of its own. */
  private record Fleet(String keyPrefix, InstantSource clock, long maxLeaseUnits) {}

  /** The contract, on stores that {@code builder} makes for a fleet. */
  private abstract static class ValkeyContract extends QuotaStoreContractTest {
    private final Map<QuotaStore, Fleet> fleets = new IdentityHashMap<>();

    abstract RedisQuotaStore.Builder builder();

    abstract List<URI> nodes();

    abstract String prefix();

    @AfterEach
    void everyKeyLeftHasATtl() {
      for (URI node : nodes()) {
        assertThat(keysWithoutTtl(node, prefix())).as("keys without a TTL on %s", node).isEmpty();
      }
    }

    @Override
    protected QuotaStore newFleet(InstantSource clock, long maxLeaseUnits) {
      return build(new Fleet(prefix() + FLEETS.incrementAndGet() + ":", clock, maxLeaseUnits),
          "instance-1");
    }

    @Override
    protected QuotaStore newInstance(QuotaStore member, String name) {
      return build(fleets.get(member), name);
    }

    private QuotaStore build(Fleet fleet, String instanceId) {
      RedisQuotaStore store = builder().keyPrefix(fleet.keyPrefix()).clock(fleet.clock())
          .maxLeaseUnits(fleet.maxLeaseUnits()).instanceId(instanceId)
          .timeout(Duration.ofSeconds(5)).build();
      fleets.put(store, fleet);
      return store;
    }
  }

  private static LocalRedisServer node;
  private static LocalRedisCluster cluster;

  @BeforeAll
  static void startValkey() {
    node = LocalRedisServer.startValkey();
    cluster = LocalRedisCluster.startValkey();
    assertThat(node.command("INFO", "server")).as("the server under test is Valkey")
        .contains("valkey_version");
  }

  @AfterAll
  static void stopValkey() {
    if (node != null) {
      node.stop();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  @Nested
  class OneNode extends ValkeyContract {
    @Override
    RedisQuotaStore.Builder builder() {
      // The scheme Valkey's own clients use.
      return RedisQuotaStore.builder(URI.create("valkey://127.0.0.1:" + node.port()));
    }

    @Override
    List<URI> nodes() {
      return List.of(node.uri());
    }

    @Override
    String prefix() {
      return "valkey-";
    }
  }

  @Nested
  class Cluster extends ValkeyContract {
    @Override
    RedisQuotaStore.Builder builder() {
      return RedisQuotaStore.clusterBuilder(cluster.uris().toArray(URI[]::new));
    }

    @Override
    List<URI> nodes() {
      return cluster.uris();
    }

    @Override
    String prefix() {
      return "valkey-cluster-";
    }
  }

  /** Every key under {@code prefix} on the node at {@code uri} whose PTTL says it never expires. */
  private static List<String> keysWithoutTtl(URI uri, String prefix) {
    RedisClient client = RedisClient.create(uri.toString());
    try (StatefulRedisConnection<String, String> connection = client.connect()) {
      RedisCommands<String, String> admin = connection.sync();
      List<String> forever = new ArrayList<>();
      ScanCursor cursor = ScanCursor.INITIAL;
      do {
        KeyScanCursor<String> page = admin.scan(cursor, ScanArgs.Builder.matches(prefix + "*")
            .limit(1000));
        page.getKeys().stream().filter(key -> admin.pttl(key) == -1).forEach(forever::add);
        cursor = page;
      } while (!cursor.isFinished());
      return forever;
    } finally {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }
}
