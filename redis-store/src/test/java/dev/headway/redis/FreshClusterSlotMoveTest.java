package dev.headway.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.testing.LocalRedisCluster;
import dev.headway.testing.LocalRedisServer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A slot moved as soon as a fresh {@link LocalRedisCluster} is up keeps its keys on the node it
 * moved to, however slowly the nodes are told of the new owner one after the other (as on a loaded
 * machine): the cluster the Redis Cluster tests start must not hand a moved slot back to its old
 * owner and delete its keys from the new one.
 */
@Timeout(600)
class FreshClusterSlotMoveTest {
  private static final int CLUSTERS = Integer.getInteger("fresh.clusters", 5);

  @Test
  void aSlotMovedRightAfterTheClusterFormedKeepsItsKeys() throws Exception {
    for (int round = 0; round < CLUSTERS; round++) {
      try (LocalRedisCluster cluster = LocalRedisCluster.start()) {
        String key = "fresh:{moving}:count";
        String slot = cluster.nodes().get(0).command("CLUSTER", "KEYSLOT", key);
        LocalRedisServer source = null;
        for (LocalRedisServer node : cluster.nodes()) {
          try {
            node.command("SET", key, "10", "EX", "60");
            source = node;
          } catch (IllegalStateException moved) {
            // MOVED: another node serves the slot
          }
        }
        LocalRedisServer from = source;
        LocalRedisServer target = cluster.nodes().stream().filter(n -> n != from).findFirst()
            .orElseThrow();
        String targetId = target.command("CLUSTER", "MYID");
        target.command("CLUSTER", "SETSLOT", slot, "IMPORTING", source.command("CLUSTER", "MYID"));
        source.command("CLUSTER", "SETSLOT", slot, "MIGRATING", targetId);
        assertThat(source.command("MIGRATE", "127.0.0.1", Integer.toString(target.port()), key,
            "0", "5000")).isEqualTo("OK");
        for (LocalRedisServer node : cluster.nodes()) {
          node.command("CLUSTER", "SETSLOT", slot, "NODE", targetId);
          TimeUnit.MILLISECONDS.sleep(100); // the nodes gossip between two commands
        }
        assertThat(target.command("CLUSTER", "COUNTKEYSINSLOT", slot))
            .as("keys on the new owner, cluster %s", round).isEqualTo("1");
      }
    }
  }
}
