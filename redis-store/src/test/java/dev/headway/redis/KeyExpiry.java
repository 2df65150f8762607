package dev.headway.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The check every Redis test runs after each scenario: every key of Headway in the real Redis
 * (SCAN on the key prefix, then PTTL) has an expiry. A key without one stays for ever: every
 * partition that goes idle would leave it behind.
 */
final class KeyExpiry {
  private KeyExpiry() {}

  /**
   * Fails if a key of Headway whose name starts with {@code prefix} ({@code <key prefix>{...}:
   * <part>}, found by SCAN MATCH {@code <prefix>*}) has no expiry.
   */
  static void assertEveryKeyExpires(RedisCommands<String, String> admin, String prefix) {
    List<String> forever = new ArrayList<>();
    int seen = 0;
    String pattern = prefix + "*";
    ScanCursor cursor = ScanCursor.INITIAL;
    do {
      KeyScanCursor<String> page = admin.scan(cursor, ScanArgs.Builder.matches(pattern)
          .limit(1000));
      for (String key : page.getKeys()) {
        if (!isHeadways(key, prefix)) {
          continue;
        }
        seen++;
        Long pttl = admin.pttl(key);
        if (pttl != null && pttl == -1) {
          forever.add(key + " (" + admin.type(key) + ")");
        }
      }
      cursor = page;
    } while (!cursor.isFinished());
    assertThat(forever).as("Headway keys without a TTL, of %d under %s", seen, prefix)
        .isEmpty();
  }

  /** Whether {@code key} is one of the five keys of a quota, its name starting with {@code prefix}. */
  static boolean isHeadways(String key, String prefix) {
    if (!key.startsWith(prefix) || key.indexOf('{') < 0) {
      return false;
    }
    for (String part : KeyNames.PARTS) {
      if (key.endsWith("}:" + part)) {
        return true;
      }
    }
    return false;
  }

  /** The same, on a connection of its own to the Redis at {@code uri}. */
  static void assertEveryKeyExpires(URI uri, String prefix) {
    RedisClient client = RedisClient.create(uri.toString());
    try (StatefulRedisConnection<String, String> c = client.connect()) {
      assertEveryKeyExpires(c.sync(), prefix);
    } finally {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }
}
