package dev.headway.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.headway.store.QuotaKey;
import dev.headway.store.QuotaStoreException;
import io.lettuce.core.RedisURI;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The URI a user gives for Redis. {@code java.net.URI} reads a host name with an underscore
 * ({@code redis_1}, a Docker Compose service name) as no host, and the store took {@code
 * redis_1:6380} whole for the host and 6379 for the port: it never reached Redis, and every
 * call failed while the pacer paced alone. A port that is not a number or a database that is not
 * one built a store that could never connect, or threw Lettuce's bare {@code
 * NumberFormatException}. Now the host and port are the user's, and a URI no store can use fails
 * the builder with a message naming it, never its password.
 */
@Timeout(60)
class RedisUriTest {
  @Test
  void aHostNameWithAnUnderscoreKeepsItsPortPasswordAndDatabase() {
    RedisURI read = RedisUris.of(URI.create("redis://app:Pa55secret@redis_1:6380/2"));
    assertThat(read.getHost()).isEqualTo("redis_1");
    assertThat(read.getPort()).isEqualTo(6380);
    assertThat(read.getDatabase()).isEqualTo(2);
    assertThat(read.getUsername()).isEqualTo("app");
    assertThat(new String(read.getPassword())).isEqualTo("Pa55secret");
    RedisURI noPort = RedisUris.of(URI.create("rediss://cache_primary"));
    assertThat(noPort.getHost()).isEqualTo("cache_primary");
    assertThat(noPort.getPort()).isEqualTo(RedisURI.DEFAULT_REDIS_PORT);
    assertThat(noPort.isSsl()).isTrue();
  }

  @Test
  void aStoreOnAnUnderscoreHostConnectsToThePortGiven() throws Exception {
    // No such host resolves here; what the store tried to reach shows in its failure.
    try (RedisQuotaStore store = RedisQuotaStore.builder(URI.create("redis://no_such_host:6390"))
        .timeout(Duration.ofSeconds(2)).build()) {
      assertThatThrownBy(() -> store.read(new QuotaKey("https://api.example.com:443", "d"))
          .toCompletableFuture().get(10, TimeUnit.SECONDS))
          .cause().isInstanceOf(QuotaStoreException.class)
          .hasMessageEndingWith("Unable to connect to no_such_host/<unresolved>:6390");
    }
  }

  @Test
  void aPortOrDatabaseThatIsNotANumberFailsTheBuilderWithoutThePassword() {
    assertThatThrownBy(() -> RedisQuotaStore.builder(
        URI.create("redis://:Pa55secret@127.0.0.1:notaport")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("uri's port must be a number from 1 to 65535 but was \"notaport\" in "
            + "redis://127.0.0.1:notaport");
    assertThatThrownBy(() -> RedisQuotaStore.create(
        URI.create("valkey://:Pa55secret@127.0.0.1:6379/notadb")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("uri is not a Redis URI Lettuce can use")
        .hasMessageEndingWith("redis://127.0.0.1:6379/notadb")
        .hasMessageNotContaining("Pa55secret");
    assertThatThrownBy(() -> RedisQuotaStore.clusterBuilder(URI.create("redis://a:b:c")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("uri must name a host, as redis://host:6379, but was redis://a:b:c");
  }
}
