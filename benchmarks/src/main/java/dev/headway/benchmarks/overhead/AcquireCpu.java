package dev.headway.benchmarks.overhead;

import dev.headway.Pacer;
import dev.headway.Permit;
import dev.headway.RequestInfo;
import dev.headway.benchmarks.jmh.LimiterBenchmark;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.URI;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;

/**
 * A cross-check of the one-thread JMH figure that holds on a busy machine: Headway's acquire +
 * release of a known partition against Failsafe's {@code tryAcquirePermit} (the fastest peer in
 * {@code LimiterBenchmark}) and a bare {@code System.nanoTime()}, in thread CPU time rather than
 * wall time, in interleaved blocks (Headway, Failsafe, nanoTime, again and again) so that a
 * change of machine load hits all three alike, after a warm-up that lasts until the JIT has
 * compiled nothing during two blocks in a row and Headway's time is within 25% of its best
 * (10 to 200 blocks). Prints the median and the 10th and 90th
 * percentiles of the per-operation time over the blocks, and the ratio of the medians.
 *
 * <p>JMH remains the reference (it guards against dead-code elimination and reports errors);
 * this only answers "how far apart are they" when wall time is mostly waiting for a core.
 *
 * <p>Usage: {@code AcquireCpu [--blocks N] [--ops OPS_PER_BLOCK]} (defaults 40, 200000).
 * Not thread-safe; a program.
 */
public final class AcquireCpu {
  private static final int MIN_WARMUP = 10;
  private static final int MAX_WARMUP = 200;
  private static volatile Object sink;

  private AcquireCpu() {}

  /** Runs the comparison; see the class comment for the options. */
  public static void main(String[] args) throws Exception {
    int blocks = 40;
    int ops = 200_000;
    for (int i = 0; i + 1 < args.length; i += 2) {
      switch (args[i]) {
        case "--blocks" -> blocks = Integer.parseInt(args[i + 1]);
        case "--ops" -> ops = Integer.parseInt(args[i + 1]);
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    long huge = LimiterBenchmark.HUGE;
    Pacer pacer = Pacer.create();
    RequestInfo request = RequestInfo.get(URI.create("https://api.example.com/v1/items"));
    LimiterBenchmark.teach(pacer, request);
    dev.failsafe.RateLimiter<Object> failsafe =
        dev.failsafe.RateLimiter.burstyBuilder(huge, Duration.ofSeconds(1)).build();
    ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
    double[] headway = new double[blocks];
    double[] peer = new double[blocks];
    double[] clock = new double[blocks];
    CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
    if (jit == null || !jit.isCompilationTimeMonitoringSupported()) {
      throw new IllegalStateException("this JVM does not report its JIT compilation time "
          + "(CompilationMXBean); run it on HotSpot without -Xint");
    }
    // Warm-up: at least MIN_WARMUP blocks, then until the JIT compiled nothing during two blocks
    // in a row and Headway's block is within 25% of its best so far (at most MAX_WARMUP). On a
    // busy machine the compiler waits for a core: blocks of several seconds at about eight times
    // the compiled cost were seen after the first compilation, with no compile time reported.
    int warmup = 0;
    int quiet = 0;
    double best = Double.MAX_VALUE;
    for (int b = 0; b < blocks; ) {
      long compiled = jit.getTotalCompilationTime();
      long t0 = cpu.getCurrentThreadCpuTime();
      for (int i = 0; i < ops; i++) {
        Permit permit = pacer.acquire(request);
        permit.release();
        sink = permit;
      }
      long t1 = cpu.getCurrentThreadCpuTime();
      boolean granted = true;
      for (int i = 0; i < ops; i++) {
        granted &= failsafe.tryAcquirePermit();
      }
      long t2 = cpu.getCurrentThreadCpuTime();
      long sum = 0;
      for (int i = 0; i < ops; i++) {
        sum += System.nanoTime();
      }
      long t3 = cpu.getCurrentThreadCpuTime();
      if (!granted) {
        throw new IllegalStateException("Failsafe denied a permit; raise its rate");
      }
      sink = sum;
      double perOp = (double) (t1 - t0) / ops;
      if (warmup < MAX_WARMUP && (warmup < MIN_WARMUP || quiet < 2 || perOp > 1.25 * best)) {
        warmup++;
        quiet = jit.getTotalCompilationTime() == compiled ? quiet + 1 : 0;
        best = Math.min(best, perOp);
        continue;
      }
      headway[b] = perOp;
      peer[b] = (double) (t2 - t1) / ops;
      clock[b] = (double) (t3 - t2) / ops;
      b++;
    }
    Arrays.sort(headway);
    Arrays.sort(peer);
    Arrays.sort(clock);
    System.out.printf(Locale.ROOT, "thread CPU per operation over %d blocks of %d after %d "
        + "warm-up blocks (median, p10-p90):%n", blocks, ops, warmup);
    print("Headway acquire + release", headway);
    print("Failsafe tryAcquirePermit", peer);
    print("System.nanoTime()", clock);
    System.out.printf(Locale.ROOT, "ratio Headway / Failsafe (medians): %.2fx%n",
        median(headway) / median(peer));
  }

  private static void print(String what, double[] sorted) {
    System.out.printf(Locale.ROOT, "  %-26s %6.1f ns  (%.1f-%.1f)%n", what, median(sorted),
        sorted[sorted.length / 10], sorted[sorted.length * 9 / 10]);
  }

  private static double median(double[] sorted) {
    return sorted[sorted.length / 2];
  }
}
