package dev.headway.internal.pacer;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;
import java.net.URI;
import org.junit.jupiter.api.Test;

/** The cache of route hashes by URI identity on the acquire path ({@link Routes#cachedHash}). */
class RouteHashCacheTest {
  @Test
  void aCachedHashIsTheHashOfItsMethodUriAndAttribute() {
    URI items = URI.create("https://api.example.com/v1/items/123");
    for (int i = 0; i < 3; i++) { // the first sighting, the second (cached), the third (hit)
      assertThat(Routes.cachedHash("GET", items, null))
          .isEqualTo(Routes.hash("GET", items, null));
      assertThat(Routes.cachedHash("POST", items, null))
          .as("the same URI with another method is another route")
          .isEqualTo(Routes.hash("POST", items, null))
          .isNotEqualTo(Routes.hash("GET", items, null));
      assertThat(Routes.cachedHash("GET", items, "gpt-4o"))
          .isEqualTo(Routes.hash("GET", items, "gpt-4o"))
          .isNotEqualTo(Routes.hash("GET", items, "o3"));
      assertThat(Routes.cachedHash("GET", items, "o3")).isEqualTo(Routes.hash("GET", items, "o3"));
    }
    URI same = URI.create("https://api.example.com/v1/items/123");
    assertThat(Routes.cachedHash("GET", same, null)).isEqualTo(Routes.hash("GET", items, null));
  }

  @Test
  void uriSeenOnceMakeNoGarbage() throws Exception {
    URI[] fresh = new URI[2_000];
    for (int i = 0; i < fresh.length; i++) {
      fresh[i] = URI.create("https://api.example.com/v1/items/" + i + "/comments");
    }
    for (int i = 0; i < 20_000; i++) { // compiled before measuring
      Routes.cachedHash("GET", fresh[i % 7], null);
    }
    // Reflection: the test sources are compiled into the module, which does not read
    // java.management; at run time the tests are on the class path.
    Object threads = Class.forName("java.lang.management.ManagementFactory")
        .getMethod("getThreadMXBean").invoke(null);
    Method allocated = Class.forName("com.sun.management.ThreadMXBean")
        .getMethod("getThreadAllocatedBytes", long.class);
    long thread = Thread.currentThread().getId();
    long sum = 0;
    long before = (long) allocated.invoke(threads, thread);
    for (int i = 7; i < fresh.length; i++) {
      sum += Routes.cachedHash("GET", fresh[i], null);
    }
    long bytes = (long) allocated.invoke(threads, thread) - before;
    assertThat(sum).isNotZero();
    // An entry is made on a URI's second sighting only; a few bytes of slack for the JIT.
    assertThat(bytes).as("bytes allocated for %d URIs seen once", fresh.length - 7)
        .isLessThan(1_000);
  }
}
