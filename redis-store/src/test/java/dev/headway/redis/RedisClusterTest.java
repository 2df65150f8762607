package dev.headway.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.headway.store.Lease;
import dev.headway.store.QuotaKey;
import dev.headway.store.ServerCount;
import dev.headway.store.SharedQuota;
import dev.headway.testing.LocalRedisCluster;
import dev.headway.testing.LocalRedisServer;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The store on a real three-primary Redis Cluster: one quota's keys on one slot, quotas spread
 * over every node and shared by two instances, the script loaded node by node after NOSCRIPT, a
 * slot moved to another node followed, and a store on your own cluster client.
 */
@Timeout(120)
class RedisClusterTest {
  private static final String PREFIX = "cluster-test:";
  private static LocalRedisCluster cluster;
  private final List<RedisQuotaStore> stores = new ArrayList<>();

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

  @AfterEach
  void closeAndCheckExpiries() {
    stores.forEach(RedisQuotaStore::close);
    for (LocalRedisServer node : cluster.nodes()) {
      KeyExpiry.assertEveryKeyExpires(node.uri(), PREFIX);
    }
  }

  private RedisQuotaStore store(String instanceId) {
    RedisQuotaStore store = RedisQuotaStore.clusterBuilder(cluster.uris().toArray(URI[]::new))
        .keyPrefix(PREFIX).instanceId(instanceId).timeout(Duration.ofSeconds(5)).build();
    stores.add(store);
    return store;
  }

  private static <T> T get(CompletionStage<T> stage) throws Exception {
    return stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  private static QuotaKey key(String name) {
    return new QuotaKey("https://" + name + ".example.com:443", "requests");
  }

  /** The node that serves {@code slot} (the one that can count its keys without MOVED). */
  private static LocalRedisServer owner(int slot) {
    for (LocalRedisServer node : cluster.nodes()) {
      String slots = node.command("CLUSTER", "SLOTS");
      // Ranges, one per line: start, end, then the serving node's address.
      String[] lines = slots.split("\n");
      for (int i = 0; i + 3 < lines.length; i++) {
        if (lines[i].matches("\\d+") && lines[i + 1].matches("\\d+")
            && lines[i + 2].equals("127.0.0.1")) {
          int start = Integer.parseInt(lines[i]);
          int end = Integer.parseInt(lines[i + 1]);
          if (start <= slot && slot <= end) {
            int port = Integer.parseInt(lines[i + 3]);
            return cluster.nodes().stream().filter(n -> n.port() == port).findFirst()
                .orElseThrow();
          }
        }
      }
    }
    throw new AssertionError("no node serves slot " + slot);
  }

  @Test
  void everyKeyOfOneQuotaIsOnOneSlotWhateverItsName() {
    List<QuotaKey> keys = List.of(key("api"), new QuotaKey("https://api.example.com:443/v1/{id}",
        "requests"), new QuotaKey("}{|%", "{tokens}"), new QuotaKey("t\u00e9l\u00e9phone {x}",
        "a}b"), new QuotaKey("https://api.example.com:443", "}"));
    Set<Integer> slots = new HashSet<>();
    for (QuotaKey key : keys) {
      for (boolean readable : new boolean[] {false, true}) {
        String[] names = KeyNames.of("headway:", key, readable);
        int slot = SlotHash.getSlot(names[0]);
        for (String name : names) {
          assertThat(SlotHash.getSlot(name)).as("slot of %s", name).isEqualTo(slot);
        }
        slots.add(slot);
      }
    }
    assertThat(slots).as("different quotas, different slots").hasSizeGreaterThan(3);
  }

  @Test
  void quotasOnEveryNodeAreSharedAndEachNodeLoadsTheScriptItLacks() throws Exception {
    RedisQuotaStore a = store("a");
    RedisQuotaStore b = store("b");
    Set<Integer> nodes = new HashSet<>();
    List<QuotaKey> keys = new ArrayList<>();
    for (int i = 0; nodes.size() < 3 || keys.size() < 6; i++) {
      QuotaKey key = key("api" + i);
      keys.add(key);
      nodes.add(owner(SlotHash.getSlot(KeyNames.of(PREFIX, key)[0])).port());
    }
    for (QuotaKey key : keys) {
      get(a.observe(key, ServerCount.of(10, Instant.now())));
      Lease lease = get(b.lease(key, 1, 1));
      assertThat(lease.granted()).as("b leases what a's count left").isEqualTo(1);
      SharedQuota seen = get(a.read(key));
      assertThat(seen.available()).as("a sees b's lease on %s", key).hasValue(9);
      get(b.release(lease, 1));
    }
    for (LocalRedisServer node : cluster.nodes()) {
      assertThat(node.command("SCRIPT", "EXISTS", ScriptConnection.SCRIPT_SHA))
          .as("node %s loaded the script", node.port()).isEqualTo("1");
      node.command("SCRIPT", "FLUSH");
    }
    for (QuotaKey key : keys) {
      assertThat(get(b.read(key)).available()).as("after SCRIPT FLUSH").hasValue(10);
    }
    for (LocalRedisServer node : cluster.nodes()) {
      assertThat(node.command("SCRIPT", "EXISTS", ScriptConnection.SCRIPT_SHA))
          .as("node %s loaded the script again", node.port()).isEqualTo("1");
    }
  }

  /** A resharding: the quota's slot and keys move to another node; the store follows MOVED. */
  @Test
  void aQuotaWhoseSlotMovedToAnotherNodeIsFollowed() throws Exception {
    RedisQuotaStore a = store("a");
    QuotaKey key = key("moving");
    get(a.observe(key, ServerCount.of(10, Instant.now())));
    get(a.lease(key, 3, 3));
    int slot = SlotHash.getSlot(KeyNames.of(PREFIX, key)[0]);
    LocalRedisServer source = owner(slot);
    LocalRedisServer target = cluster.nodes().stream().filter(n -> n != source).findFirst()
        .orElseThrow();
    String sourceId = source.command("CLUSTER", "MYID");
    String targetId = target.command("CLUSTER", "MYID");
    String s = Integer.toString(slot);
    target.command("CLUSTER", "SETSLOT", s, "IMPORTING", sourceId);
    source.command("CLUSTER", "SETSLOT", s, "MIGRATING", targetId);
    List<String> migrate = new ArrayList<>(List.of("MIGRATE", "127.0.0.1",
        Integer.toString(target.port()), "", "0", "5000", "KEYS"));
    migrate.addAll(List.of(source.command("CLUSTER", "GETKEYSINSLOT", s, "100").split("\n")));
    source.command(migrate.toArray(String[]::new));
    // Mid-migration the source answers ASK (the keys are gone from it), and the target, asked
    // with ASKING, runs a script only if every one of its keys is there: this quota has no hold
    // and no rate, so TRYAGAIN. The call fails (its pacer paces locally), but the store does not
    // back off: a quota on another slot is shared meanwhile.
    String midMigration = a.read(key).toCompletableFuture()
        .handle((q, e) -> e == null ? "available " + q.available() : e.getMessage())
        .get(10, TimeUnit.SECONDS);
    assertThat(midMigration).contains("TRYAGAIN");
    QuotaKey other = key("elsewhere");
    assertThat(SlotHash.getSlot(KeyNames.of(PREFIX, other)[0])).isNotEqualTo(slot);
    get(a.observe(other, ServerCount.of(4, Instant.now())));
    for (LocalRedisServer node : cluster.nodes()) {
      node.command("CLUSTER", "SETSLOT", s, "NODE", targetId);
    }
    assertThat(target.command("CLUSTER", "COUNTKEYSINSLOT", s)).isNotEqualTo("0");

    SharedQuota after = get(a.read(key));
    assertThat(after.available()).as("read on the new node").hasValue(7);
    RedisQuotaStore b = store("b");
    assertThat(get(b.lease(key, 1, 1)).granted()).isEqualTo(1);
    assertThat(get(a.read(key)).available()).hasValue(6);
    assertThat(source.command("CLUSTER", "COUNTKEYSINSLOT", s)).isEqualTo("0");
  }

  @Test
  void aStoreOnYourClusterClientLeavesItOpen() throws Exception {
    List<RedisURI> seeds = cluster.uris().stream().map(u -> RedisURI.create(u)).toList();
    RedisClusterClient client = RedisClusterClient.create(seeds);
    try {
      RedisQuotaStore store = RedisQuotaStore.builder(client).keyPrefix(PREFIX)
          .timeout(Duration.ofSeconds(5)).build();
      stores.add(store);
      QuotaKey key = key("yours");
      get(store.observe(key, ServerCount.of(5, Instant.now())));
      assertThat(get(store.read(key)).available()).hasValue(5);
      store.close();
      try (StatefulRedisClusterConnection<String, String> c = client.connect()) {
        assertThat(c.sync().ping()).isEqualTo("PONG");
      }
    } finally {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }

  @Test
  void aClusterIsNamedByItsNodesNotBySentinels() {
    assertThatThrownBy(() -> RedisQuotaStore.clusterBuilder())
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> RedisQuotaStore.clusterBuilder(
        URI.create("redis-sentinel://127.0.0.1:26379#mymaster")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("Sentinel");
    assertThatThrownBy(() -> RedisQuotaStore.clusterBuilder(URI.create("http://127.0.0.1:6379")))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
