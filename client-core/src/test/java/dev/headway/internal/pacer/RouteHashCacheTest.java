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
    long sum = 0;
    long before = allocatedBytes();
    for (int i = 7; i < fresh.length; i++) {
      sum += Routes.cachedHash("GET", fresh[i], null);
    }
    long bytes = allocatedBytes() - before;
    assertThat(sum).isNotZero();
    // An entry is made on a URI's second sighting only; a few bytes of slack for the JIT.
    assertThat(bytes).as("bytes allocated for %d URIs seen once", fresh.length - 7)
        .isLessThan(1_000);
  }

  @Test
  void twoUrisUsedInTurnOnOneSlotMakeNoGarbage() throws Exception {
    // Two URIs a caller keeps and uses in turn, whose identity hashes fall on the same slot:
    // the first to settle there keeps it, the other is hashed on every call, and neither makes
    // an entry per call (they used to take the slot from each other, one entry every 3 calls).
    URI first = URI.create("https://api.example.com/repos/o0/r0/issues/100");
    URI second = null;
    for (int i = 0; second == null; i++) {
      URI candidate = URI.create("https://api.example.com/repos/o" + i + "/r/issues/" + i);
      if (slot(candidate) == slot(first)) {
        second = candidate;
      }
    }
    Routes.cachedHash("GET", first, null);
    Routes.cachedHash("GET", first, null); // its second sighting: the slot is the first's
    for (int i = 0; i < 20_000; i++) { // compiled before measuring
      Routes.cachedHash("GET", (i & 1) == 0 ? second : first, null);
    }
    int calls = 30_000;
    long sum = 0;
    long before = allocatedBytes();
    for (int i = 0; i < calls; i++) {
      sum += Routes.cachedHash("GET", (i & 1) == 0 ? second : first, null);
    }
    long bytes = allocatedBytes() - before;
    assertThat(sum).isNotZero();
    assertThat(Routes.cachedHash("GET", first, null)).isEqualTo(Routes.hash("GET", first, null));
    assertThat(Routes.cachedHash("GET", second, null))
        .isEqualTo(Routes.hash("GET", second, null));
    assertThat(bytes).as("bytes allocated for %d calls on two URIs sharing a slot", calls)
        .isLessThan(1_000);
  }

  /**
   * The bytes the calling thread allocated so far. Reflection: the test sources are compiled
   * into the module, which does not read java.management; at run time the tests are on the
   * class path.
   */
  @SuppressWarnings("deprecation") // Thread.threadId() is not in Java 17
  private static long allocatedBytes() throws Exception {
    if (threads == null) { // looked up once: a lookup between two readings would count
      threads = Class.forName("java.lang.management.ManagementFactory")
          .getMethod("getThreadMXBean").invoke(null);
      allocated = Class.forName("com.sun.management.ThreadMXBean")
          .getMethod("getThreadAllocatedBytes", long.class);
    }
    return (long) allocated.invoke(threads, Thread.currentThread().getId());
  }

  private static Object threads;
  private static Method allocated;

  /** The cache slot of {@code uri} (as {@link Routes#cachedHash} computes it). */
  private static int slot(URI uri) {
    int id = System.identityHashCode(uri);
    return (id ^ (id >>> 16)) & 255;
  }
}
