package dev.headway.testing;

/** What a test measures of the heap: the bytes still reachable after garbage collection. */
public final class Heap {
  private Heap() {}

  /**
   * The heap in use after full collections, repeated until it stops shrinking (at most 10
   * rounds): the bytes the live objects retain, as closely as a test can read it. Run such a test
   * alone ({@code @Isolated}), since other threads' garbage counts too.
   */
  public static long retained() {
    Runtime runtime = Runtime.getRuntime();
    long used = Long.MAX_VALUE;
    for (int round = 0; round < 10; round++) {
      System.gc();
      long now = runtime.totalMemory() - runtime.freeMemory();
      if (now >= used) {
        return Math.min(now, used);
      }
      used = now;
    }
    return used;
  }
}
