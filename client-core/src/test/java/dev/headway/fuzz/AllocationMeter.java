package dev.headway.fuzz;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * Bytes allocated by the current thread (HotSpot's {@code ThreadMXBean}), the fuzz tests' measure
 * of work: unlike wall time it does not depend on how busy the machine is, and any step that
 * revisits input (re-copying a buffer, re-scanning a list) allocates in proportion to what it
 * revisits. Thread-safe.
 */
final class AllocationMeter {
  /**
   * Whether Jazzer is fuzzing ({@code JAZZER_FUZZ} set). Its comparison hooks then run inside the
   * parser on every {@code String.equals}, {@code startsWith} and the like, and allocate on the
   * parsing thread (measured: about 2 KB per input character for a small response); in the
   * regression run they are off.
   */
  static final boolean FUZZING = System.getenv("JAZZER_FUZZ") != null
      && !System.getenv("JAZZER_FUZZ").isEmpty();
  /** Fixed allowance per parse: class initialisation, caches, first-use tables. */
  static final long FIXED_BYTES = FUZZING ? 4L << 20 : 256 * 1024;
  /**
   * Allowance per input character. Generous on purpose: a linear parser allocates a few dozen
   * bytes per character at worst (one small object per two-character list member). While
   * fuzzing, the bound only catches gross blow-ups (a buffer sized by a number in the input, an
   * exponential step); {@link ParseCostLinearityTest} checks linearity itself, at sizes where a
   * quadratic step shows.
   */
  static final long BYTES_PER_CHAR = FUZZING ? 16 * 1024 : 1024;

  private static final Object THREADS;
  private static final MethodHandle ALLOCATED;

  static {
    try {
      // Reflection: the tests compile inside the module, which does not read java.management.
      THREADS = Class.forName("java.lang.management.ManagementFactory")
          .getMethod("getThreadMXBean").invoke(null);
      Class<?> bean = Class.forName("com.sun.management.ThreadMXBean");
      MethodHandle current = MethodHandles.publicLookup().findVirtual(bean,
          "getCurrentThreadAllocatedBytes", MethodType.methodType(long.class));
      ALLOCATED = current.asType(MethodType.methodType(long.class, Object.class));
      if ((long) ALLOCATED.invokeExact(THREADS) < 0) {
        throw new IllegalStateException("this JVM does not measure allocated bytes per thread"
            + " (com.sun.management.ThreadMXBean#isThreadAllocatedMemoryEnabled is false)");
      }
    } catch (Throwable e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private AllocationMeter() {}

  /** Returns the bytes the current thread has allocated so far. */
  static long allocated() {
    try {
      return (long) ALLOCATED.invokeExact(THREADS);
    } catch (Throwable e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Runs {@code work} (parsing one input {@code parses} times) and fails if it allocated more than
   * {@code parses} times the linear allowance for {@code inputChars} characters. Over the bound, it
   * runs {@code work} once more and fails only if that run is over the bound too: the first run
   * of a code path loads and initialises classes (Jackson's, the JDK's), which allocates
   * megabytes once; a cost that grows faster than the input is there on every run.
   */
  static void runLinear(Runnable work, long inputChars, int parses,
      java.util.function.Supplier<String> what) {
    long bound = parses * (FIXED_BYTES + BYTES_PER_CHAR * inputChars);
    long bytes = measure(work);
    if (bytes > bound) {
      bytes = measure(work);
      if (bytes > bound) {
        throw new AssertionError(what.get() + " allocated " + bytes + " bytes (twice), more"
            + " than the linear bound " + bound + " = " + parses + " x (" + FIXED_BYTES + " + "
            + BYTES_PER_CHAR + " x " + inputChars + " characters)");
      }
    }
  }

  private static long measure(Runnable work) {
    long before = allocated();
    work.run();
    return allocated() - before;
  }
}
