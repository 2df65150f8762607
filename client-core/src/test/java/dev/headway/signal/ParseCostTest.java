package dev.headway.signal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.HttpFields;
import dev.headway.RateLimitSignal;
import dev.headway.SignalParser;
import java.lang.reflect.Method;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * A rough figure (the JMH benchmarks give the real one) for the common case: {@code RateLimit},
 * {@code RateLimit-Policy} and {@code Date}, through every built-in dialect. Prints time and
 * allocation per parse; asserts only a generous allocation bound, which is deterministic.
 */
class ParseCostTest {
  @Test
  void commonResponseIsCheap() throws ReflectiveOperationException {
    SignalParser parser = SignalParser.create();
    HttpFields headers = HttpFields.of(
        "date", "Mon, 05 Aug 2019 09:27:00 GMT",
        "ratelimit-policy", "\"default\";q=100;w=60",
        "ratelimit", "\"default\";r=50;t=30");
    Instant now = Instant.parse("2019-08-05T09:27:00Z");
    RateLimitSignal signal = null;
    for (int i = 0; i < 200_000; i++) {
      signal = parser.parse(200, headers, now);
    }
    // Reflection: the test sources are compiled into the module, which does not read
    // java.management; at run time the tests are on the class path.
    Object threads = Class.forName("java.lang.management.ManagementFactory")
        .getMethod("getThreadMXBean").invoke(null);
    Method allocated = Class.forName("com.sun.management.ThreadMXBean")
        .getMethod("getThreadAllocatedBytes", long.class);
    long thread = Thread.currentThread().getId();
    int runs = 200_000;
    long bytesBefore = (long) allocated.invoke(threads, thread);
    long start = System.nanoTime();
    for (int i = 0; i < runs; i++) {
      signal = parser.parse(200, headers, now);
    }
    long nanos = (System.nanoTime() - start) / runs;
    long bytes = ((long) allocated.invoke(threads, thread) - bytesBefore) / runs;
    System.out.printf("RateLimit + RateLimit-Policy + Date: %d ns, %d bytes per parse%n",
        nanos, bytes);
    assertThat(signal.limits()).hasSize(1);
    assertThat(bytes).isLessThan(4096);
  }
}
