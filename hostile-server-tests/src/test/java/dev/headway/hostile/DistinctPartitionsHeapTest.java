package dev.headway.hostile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.HttpFields;
import dev.headway.Pacer;
import dev.headway.Permit;
import dev.headway.RequestInfo;
import dev.headway.testing.Heap;
import java.lang.ref.Reference;
import java.net.URI;
import java.nio.ByteBuffer;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * A million distinct partition keys, each answered by a response naming a distinct server
 * {@code pk}, keep the heap bounded: the pacer never holds more than {@code maxPartitions}
 * partitions, and what it retains after a full GC stays within a few tens of megabytes.
 *
 * <p>Driven through {@link Pacer#acquire} and {@link Permit#complete} directly, the way the
 * adapters do, with a resolver that reads the key off the request: a million real HTTP calls would
 * take far too long. No wall-clock bound: the test asserts counts and bytes only.
 */
@Isolated("measures the heap: nothing else may allocate meanwhile")
class DistinctPartitionsHeapTest {
  static final int KEYS = 1_000_000;
  static final int MAX_PARTITIONS = 10_000;
  /** Generous: 10,000 partitions are documented as a few megabytes. */
  static final long RETAINED_BOUND = 64L * 1024 * 1024;

  @Test
  void aMillionDistinctPartitionKeysKeepTheHeapBounded() throws Exception {
    long before = Heap.retained();
    Pacer pacer = Pacer.builder().maxPartitions(MAX_PARTITIONS)
        .partitionKeyResolver(request -> request.uri().getHost())
        .build();
    int mostPartitions = 0;
    long completed = 0;
    for (int i = 0; i < KEYS; i++) {
      RequestInfo request = RequestInfo.get(URI.create("https://t" + i + ".example/"));
      Permit permit = pacer.acquire(request);
      String pk = Base64.getEncoder().encodeToString(
          ByteBuffer.allocate(Integer.BYTES).putInt(i).array());
      permit.complete(200, HttpFields.of(
          "RateLimit-Policy", "\"hour\";q=1000;w=3600;pk=:" + pk + ":",
          "RateLimit", "\"hour\";r=999;t=3600;pk=:" + pk + ":"), null);
      completed++;
      if (i % 10_000 == 9_999) {
        mostPartitions = Math.max(mostPartitions, pacer.partitionCount());
        assertThat(pacer.partitionCount()).as("partitions after %d keys", i + 1)
            .isLessThanOrEqualTo(MAX_PARTITIONS);
      }
    }
    long after = Heap.retained();
    long grown = after - before;
    System.out.printf("[DistinctPartitionsHeapTest] %d keys (each with its own server pk): "
            + "at most %d partitions held (maxPartitions %d), %d at the end; retained heap "
            + "%.1f MB before, %.1f MB after (grew %.1f MB)%n", completed, mostPartitions,
        MAX_PARTITIONS, pacer.partitionCount(), before / 1e6, after / 1e6, grown / 1e6);

    assertThat(completed).isEqualTo(KEYS);
    assertThat(mostPartitions).as("the pacer did learn partitions").isPositive();
    assertThat(pacer.partitionCount()).isLessThanOrEqualTo(MAX_PARTITIONS);
    assertThat(grown).as("heap retained by a pacer that saw %d partition keys", KEYS)
        .isLessThan(RETAINED_BOUND);
    Reference.reachabilityFence(pacer);
  }

}
