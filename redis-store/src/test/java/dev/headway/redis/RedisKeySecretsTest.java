package dev.headway.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
import dev.headway.PartitionKeyResolver;
import dev.headway.Permit;
import dev.headway.QuotaLimit;
import dev.headway.QuotaPolicy;
import dev.headway.QuotaUnit;
import dev.headway.RateLimitSignal;
import dev.headway.RequestInfo;
import dev.headway.testing.LocalRedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What a reader of the shared Redis sees of partition keys that carry a secret (a bot token in a
 * path, a webhook secret in a custom key): the key names a real redis-server holds after a
 * pacer with a store sent one request of each.
 */
@Timeout(60)
class RedisKeySecretsTest {
  static final String TOKEN = "AAH7dXs3cr3tB0tT0k3n";
  static final RequestInfo BOT = RequestInfo.get(
      URI.create("https://api.telegram.org/bot123456:" + TOKEN + "/sendMessage"));
  static final RequestInfo HOOK = RequestInfo.get(
      URI.create("https://hooks.example.com/hooks/s3cr3tHook/fire"));
  static final RequestInfo PLAIN = RequestInfo.get(URI.create("https://api.github.com/user"));

  /** Path prefix for the bot API, a custom key (no origin) for hooks, the origin otherwise. */
  static final PartitionKeyResolver RESOLVER = request -> {
    String host = request.uri().getHost();
    if (host.startsWith("hooks.")) {
      return "tenant " + request.uri().getPath();
    }
    if (host.equals("api.telegram.org")) {
      return PartitionKeyResolver.originAndPathPrefix(1).resolve(request);
    }
    return PartitionKeyResolver.origin().resolve(request);
  };

  private LocalRedisServer redis;
  private RedisQuotaStore store;

  @BeforeEach
  void startRedis() {
    redis = LocalRedisServer.start();
  }

  @AfterEach
  void stop() {
    try {
      KeyExpiry.assertEveryKeyExpires(redis.uri(), "headway:");
    } finally {
      if (store != null) {
        store.close();
      }
      redis.stop();
    }
  }

  @Test
  void keysNameAPathOrCustomKeyOnlyByAHash() throws Exception {
    TreeSet<String> keys = keysAfterOneCallEach(RedisQuotaStore.builder(redis.uri()));

    assertThat(keys).isNotEmpty().allSatisfy(key -> assertThat(key)
        .doesNotContain(TOKEN).doesNotContain("s3cr3tHook").doesNotContain("/bot")
        .doesNotContain("hooks/"));
    assertThat(keys)
        .anyMatch(k -> k.matches("headway:\\{https://api\\.telegram\\.org:443#[0-9a-f]{32}"
            + "\\|requests}:count"))
        .anyMatch(k -> k.matches("headway:\\{#[0-9a-f]{32}\\|requests}:count"))
        // an origin is not a secret: the default resolver's keys stay readable
        .contains("headway:{https://api.github.com:443|requests}:count");
  }

  @Test
  void readableKeysShowPartitionsWholeWhenAskedFor() throws Exception {
    TreeSet<String> keys =
        keysAfterOneCallEach(RedisQuotaStore.builder(redis.uri()).readableKeys(true));

    assertThat(keys)
        .contains("headway:{https://api.telegram.org:443/bot123456:" + TOKEN + "|requests}:count")
        .contains("headway:{tenant%20/hooks/s3cr3tHook/fire|requests}:count")
        .contains("headway:{https://api.github.com:443|requests}:count");
  }

  @Test
  void twoStoresNameOnePartitionAlike() {
    // The hash is of the key alone: every instance of the fleet finds the same Redis keys.
    dev.headway.store.QuotaKey key = new dev.headway.store.QuotaKey(
        "https://api.telegram.org:443/bot123456:" + TOKEN, "requests");
    assertThat(KeyNames.of("headway:", key)).containsExactly(KeyNames.of("headway:", key));
    assertThat(KeyNames.of("headway:", key)[0])
        .isEqualTo("headway:{https://api.telegram.org:443#"
            + sha256(key.partition()).substring(0, 32) + "|requests}:count");
  }

  /** One call each to the three partitions through a pacer on {@code builder}'s store. */
  private TreeSet<String> keysAfterOneCallEach(RedisQuotaStore.Builder builder) throws Exception {
    // A generous timeout: on a loaded machine a slow first call would make the pacer pace
    // locally for a while, and write nothing.
    store = builder.timeout(Duration.ofSeconds(10)).build();
    try (Pacer pacer = Pacer.builder().partitionKeyResolver(RESOLVER).store(store).build()) {
      for (RequestInfo request : List.of(BOT, HOOK, PLAIN)) {
        Permit permit = pacer.acquire(request, Duration.ofSeconds(5));
        permit.complete(counted(41));
      }
      return awaitCountKeys(3);
    }
  }

  /** The Redis keys under {@code headway:} once {@code n} count keys are there (10 s at most). */
  private TreeSet<String> awaitCountKeys(int n) throws Exception {
    RedisClient client = RedisClient.create(redis.uri().toString());
    try (StatefulRedisConnection<String, String> c = client.connect()) {
      long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      while (true) {
        TreeSet<String> keys = new TreeSet<>(c.sync().keys("headway:*"));
        if (keys.stream().filter(k -> k.endsWith(":count")).count() >= n
            || System.nanoTime() > end) {
          return keys;
        }
        Thread.sleep(20); // waiting for Redis, not for time to pass
      }
    } finally {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }

  private static String sha256(String text) {
    try {
      return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
          .digest(text.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
  }

  private static RateLimitSignal counted(long remaining) {
    return new RateLimitSignal(200,
        List.of(new QuotaPolicy("default", 100, QuotaUnit.REQUESTS,
            Optional.of(Duration.ofSeconds(60)), Optional.empty(), "ietf")),
        List.of(new QuotaLimit("default", remaining, Optional.of(Duration.ofSeconds(60)),
            Optional.empty(), "ietf")),
        Optional.empty(), Optional.empty(), Optional.empty(), List.of(), List.of("ietf"),
        List.of(), false);
  }
}
