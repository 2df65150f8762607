package dev.headway.internal.pacer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.testing.Heap;
import java.lang.ref.Reference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * What a server policy keeps of our admitted requests to tell whether we spent its window: the
 * count within two windows, by when the requests were sent, in a few dozen bytes per policy.
 */
@Isolated("measures the heap: nothing else may allocate meanwhile")
class OwnAdmissionsTest {
  static final long SECOND = 1_000_000_000L;
  static final long SPAN = 2 * 20 * SECOND; // two windows of 20 s

  @Test
  void theLastQuotaSentWithinTheSpanIsSpentByUs() {
    OwnAdmissions own = new OwnAdmissions();
    for (int i = 0; i < 10; i++) {
      own.admitted(100 * SECOND + i * 100_000_000L, SPAN);
    }
    assertThat(own.spentQuotaWithin(10, SPAN, 101 * SECOND)).isTrue();
    assertThat(own.spentQuotaWithin(11, SPAN, 101 * SECOND)).as("one more than we sent").isFalse();
  }

  @Test
  void sendsOlderThanTheSpanAreNotCounted() {
    OwnAdmissions own = new OwnAdmissions();
    for (int i = 0; i < 10; i++) {
      own.admitted(100 * SECOND + i * SECOND, SPAN);
    }
    // At 140 s the sends of 100-104 s are more than 40 s old (or in the slot that straddles it).
    assertThat(own.spentQuotaWithin(10, SPAN, 140 * SECOND)).isFalse();
    assertThat(own.spentQuotaWithin(5, SPAN, 140 * SECOND)).isTrue();
    assertThat(own.spentQuotaWithin(1, SPAN, 200 * SECOND)).as("all long gone").isFalse();
  }

  @Test
  void answersOutOfOrderCountWhereTheirRequestsWereSent() {
    OwnAdmissions own = new OwnAdmissions();
    own.admitted(130 * SECOND, SPAN);
    own.admitted(100 * SECOND, SPAN); // answered late
    own.admitted(60 * SECOND, SPAN); // older than the span when it came: not counted
    assertThat(own.spentQuotaWithin(2, SPAN, 131 * SECOND)).isTrue();
    assertThat(own.spentQuotaWithin(3, SPAN, 131 * SECOND)).isFalse();
  }

  @Test
  void aNewWindowStartsTheCountAnewAndAnUnknownOneCountsNothing() {
    OwnAdmissions own = new OwnAdmissions();
    own.admitted(100 * SECOND, 0);
    assertThat(own.spentQuotaWithin(1, SPAN, 100 * SECOND)).as("window not known").isFalse();
    own.admitted(100 * SECOND, SPAN);
    assertThat(own.spentQuotaWithin(1, SPAN, 100 * SECOND)).isTrue();
    own.admitted(101 * SECOND, 2 * SPAN);
    assertThat(own.spentQuotaWithin(2, 2 * SPAN, 101 * SECOND)).as("counted anew").isFalse();
    assertThat(own.spentQuotaWithin(1, SPAN, 101 * SECOND)).as("another span").isFalse();
  }

  /**
   * 10,000 partitions of 16 policies each (the most a partition keeps), each policy having
   * admitted 300 requests: what the policies keep must not grow with their traffic. A ring of
   * the last 256 send times took 2 KB a policy, 330 MB here; "10,000 partitions are a few
   * megabytes" (configuration.md).
   */
  @Test
  void whatAPolicyKeepsDoesNotGrowWithItsRequests() {
    long before = Heap.retained();
    OwnAdmissions[] policies = new OwnAdmissions[10_000 * 16];
    for (int p = 0; p < policies.length; p++) {
      policies[p] = new OwnAdmissions();
      for (int i = 0; i < 300; i++) {
        policies[p].admitted(i * 10_000_000L, SPAN);
      }
    }
    long grown = Heap.retained() - before;
    System.out.printf("[OwnAdmissionsTest] %d policies of 300 admitted requests each: %.1f MB%n",
        policies.length, grown / 1e6);
    assertThat(grown).as("heap retained by %d policies", policies.length)
        .isLessThan(32L * 1024 * 1024);
    Reference.reachabilityFence(policies);
  }

}
