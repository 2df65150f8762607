package dev.headway.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.HttpFields;
import dev.headway.Jitter;
import dev.headway.Pacer;
import dev.headway.Permit;
import dev.headway.RequestInfo;
import dev.headway.store.InMemoryQuotaStore;
import dev.headway.store.QuotaKey;
import dev.headway.store.SharedQuota;
import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Partition names longer than {@link QuotaKey#MAX_LENGTH} (custom keys) name their fleet key by
 * a prefix and a hash of the whole name. Before, they were cut at 512 characters: two tenants'
 * keys with a common prefix shared one fleet quota, and a 429 to one held the other.
 */
@Timeout(30)
class LongPartitionNamesTest {
  /** 595 characters in common; the names differ only in their last characters. */
  static final String PREFIX = "tenant-keys/" + "x".repeat(583);
  static final RequestInfo TENANT_A = RequestInfo.get(URI.create("https://api.example.com/a1"));
  static final RequestInfo TENANT_B = RequestInfo.get(URI.create("https://api.example.com/b2"));

  private final VirtualClock clock = VirtualClock.create();
  private final InMemoryQuotaStore store = InMemoryQuotaStore.builder().clock(clock)
      .roundTrip(Duration.ofMillis(1), clock).build();

  private Pacer pacer(String instance) {
    return Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock).jitter(Jitter.none())
        .store(store.instance(instance)).partitionKeyResolver(r -> PREFIX + r.uri().getPath())
        .build();
  }

  /** Runs virtual time until {@code call} is done, at most {@code ms} milliseconds. */
  private void runUntilDone(CompletableFuture<?> call, int ms) {
    for (int i = 0; i < ms && !call.isDone(); i++) {
      clock.advance(Duration.ofMillis(1));
    }
  }

  /** Reads a key from the store, whose answers come after a round trip of virtual time. */
  private SharedQuota read(QuotaKey key) {
    CompletableFuture<SharedQuota> read = store.read(key).toCompletableFuture();
    runUntilDone(read, 100);
    return read.getNow(null);
  }

  static String expectedFleetName(String name) throws Exception {
    byte[] sha = MessageDigest.getInstance("SHA-256").digest(name.getBytes(StandardCharsets.UTF_8));
    return name.substring(0, QuotaKey.MAX_LENGTH - 34) + "#h"
        + HexFormat.of().formatHex(sha).substring(0, 32);
  }

  @Test
  void aRetryAfterForOneLongKeyDoesNotHoldAnotherWithTheSamePrefix() throws Exception {
    String nameA = PREFIX + "/a1";
    String nameB = PREFIX + "/b2";
    assertThat(nameA).hasSize(598);
    Pacer podA = pacer("pod-a");
    Pacer podB = pacer("pod-b");

    CompletableFuture<Permit> first = podB.acquireAsync(TENANT_B, Duration.ofSeconds(5));
    runUntilDone(first, 1_000);
    first.join().complete(200, HttpFields.empty(), null);

    CompletableFuture<Permit> throttled = podA.acquireAsync(TENANT_A, Duration.ofSeconds(5));
    runUntilDone(throttled, 1_000);
    throttled.join().complete(429, HttpFields.of("Retry-After", "600"), null);
    clock.advance(Duration.ofMillis(20));

    CompletableFuture<Permit> second = podB.acquireAsync(TENANT_B, Duration.ofSeconds(5));
    runUntilDone(second, 1_000);
    assertThat(second).as("tenant B's next call goes out").isCompleted();
    second.join().complete(200, HttpFields.empty(), null);

    QuotaKey keyA = new QuotaKey(expectedFleetName(nameA), "requests");
    QuotaKey keyB = new QuotaKey(expectedFleetName(nameB), "requests");
    assertThat(keyA.partition()).hasSize(QuotaKey.MAX_LENGTH).isNotEqualTo(keyB.partition());
    assertThat(read(keyA).holdUntil()).as("the fleet holds tenant A").isPresent();
    assertThat(read(keyB).holdUntil()).as("the fleet does not hold tenant B").isEmpty();

  }
}
