package dev.headway.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.store.QuotaKey;
import dev.headway.store.QuotaStoreException;
import dev.headway.testing.LocalRedisCluster;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A Redis Cluster given to the one-node entry point ({@code RedisQuotaStore.create(URI)} with a
 * managed Redis in cluster mode): the node answers {@code MOVED} for every quota on another
 * node's slots, and the store fails those calls and backs off. Before, the failure said only
 * {@code MOVED 5798 127.0.0.1:7001}; now it says to build the store with {@code clusterBuilder}.
 * Real cluster of three primaries.
 */
@Timeout(120)
class ClusterGivenAsOneNodeTest {
  @Test
  void aMovedAnswerSaysToBuildTheStoreForACluster() throws Exception {
    try (LocalRedisCluster cluster = LocalRedisCluster.start();
        RedisQuotaStore store = RedisQuotaStore.builder(cluster.uris().get(0))
            .timeout(Duration.ofSeconds(5)).build()) {
      Throwable failure = null;
      for (int i = 0; i < 30 && failure == null; i++) { // a third of the quotas are on node 0
        try {
          store.read(new QuotaKey("https://api" + i + ".example.com:443", "d"))
              .toCompletableFuture().get(10, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
          failure = e.getCause();
        }
      }
      assertThat(failure).isInstanceOf(QuotaStoreException.class)
          .hasMessageContaining("MOVED")
          .hasMessageContaining("this Redis is a Redis Cluster: build the store with "
              + "RedisQuotaStore.clusterBuilder(...)");
    }
  }
}
