package dev.headway.pacer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
import dev.headway.Permit;
import dev.headway.QuotaLimit;
import dev.headway.RateLimitSignal;
import dev.headway.RequestInfo;
import dev.headway.testing.VirtualClock;
import java.lang.reflect.Method;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What finding a request's route costs on a partition whose policies are scoped: acquire and
 * complete allocate no more than on a partition with one policy for every request (the permit).
 * Allocation is measured with the thread's allocation counter; speed is for the JMH benchmarks.
 */
@Timeout(60)
class ScopedAcquireCostTest {
  @Test
  void acquireAndCompleteOnScopedRoutesAllocateOnlyThePermit() throws Exception {
    VirtualClock clock = VirtualClock.create();
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock).build();
    RequestInfo search = RequestInfo.get(URI.create("https://api.example.com/search/issues?q=x"));
    RequestInfo[] core = new RequestInfo[8];
    for (int i = 0; i < core.length; i++) {
      core[i] = RequestInfo.get(URI.create("https://api.example.com/repos/o" + i + "/r" + i
          + "/issues/" + (100 + i)));
    }
    RateLimitSignal coreSignal = signal("core", 1_000_000_000L);
    pacer.acquire(search).complete(signal("search", 1_000_000_000L));
    pacer.acquire(core[0]).complete(coreSignal);
    for (int i = 0; i < 200_000; i++) {
      pacer.acquire(core[i & 7]).complete(coreSignal);
    }
    Object threads = Class.forName("java.lang.management.ManagementFactory")
        .getMethod("getThreadMXBean").invoke(null);
    Method allocated = Class.forName("com.sun.management.ThreadMXBean")
        .getMethod("getThreadAllocatedBytes", long.class);
    long thread = Thread.currentThread().getId();
    int runs = 200_000;
    Permit last = null;
    // The steady state is the claim: on a busy machine the JIT may still be compiling during a
    // round (a method running before its escape analysis allocates what it later does not: 130
    // bytes a call in two fresh-clone builds next to other JVMs), so the lowest of up to twenty
    // rounds counts. An allocation on every call shows in every round.
    long bytes = Long.MAX_VALUE;
    for (int round = 0; round < 20 && bytes > 128; round++) {
      long before = (long) allocated.invoke(threads, thread);
      for (int i = 0; i < runs; i++) {
        last = pacer.acquire(core[i & 7]);
        last.complete(coreSignal);
      }
      bytes = Math.min(bytes, ((long) allocated.invoke(threads, thread) - before) / runs);
    }
    System.out.printf("acquire + complete, scoped routes: %d bytes%n", bytes);
    assertThat(clock.elapsed()).isEqualTo(Duration.ZERO);
    assertThat(pacer.quota(URI.create("https://api.example.com/repos/a/b/issues/1")).policies())
        .extracting(p -> p.name()).containsExactly("core");
    assertThat(last).isNotNull();
    assertThat(bytes).isLessThanOrEqualTo(128);
  }

  private static RateLimitSignal signal(String policy, long remaining) {
    return new RateLimitSignal(200, List.of(),
        List.of(new QuotaLimit(policy, remaining, Optional.of(Duration.ofSeconds(3600)),
            Optional.empty(), "github")),
        Optional.empty(), Optional.empty(), Optional.empty(), List.of(), List.of(), List.of(),
        false);
  }
}
