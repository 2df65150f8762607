package dev.headway.benchmarks.overhead;

import dev.headway.Pacer;
import dev.headway.Permit;
import dev.headway.RequestInfo;
import dev.headway.benchmarks.jmh.LimiterBenchmark;
import io.github.resilience4j.ratelimiter.RateLimiterConfig;
import io.github.resilience4j.ratelimiter.internal.AtomicRateLimiter;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.URI;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.CyclicBarrier;
import java.util.function.BooleanSupplier;

/**
 * A cross-check of the contended JMH figures ({@code LimiterBenchmark}'s {@code _2t} and
 * {@code _4t} on one partition) that can be run on a busy machine: N threads share one pacer
 * partition and do acquire + release, against N threads sharing one resilience4j
 * {@code AtomicRateLimiter} (the fastest peer there), in blocks that alternate between the two.
 * For each block it reports the CPU time of all N threads per operation (thread CPU time: a
 * thread parked on a monitor costs the system calls of parking and waking, not the wait) and
 * the wall time per operation, after a warm-up that lasts until each one's block is within 25%
 * of its best (10 to 200 rounds). Prints medians and the 10th and 90th percentiles over the blocks.
 *
 * <p>On a machine with fewer free cores than threads the threads seldom run at once, so the
 * contention is milder than on a quiet machine: JMH on a quiet machine remains the reference.
 *
 * <p>Usage: {@code ContendedCpu [--threads N] [--blocks B] [--ops OPS_PER_THREAD_PER_BLOCK]}
 * (defaults 2, 20, 100000). Not thread-safe; a program.
 */
public final class ContendedCpu {
  private static final int MIN_WARMUP = 10;
  private static final int MAX_WARMUP = 200;
  private static volatile Object sink;

  private ContendedCpu() {}

  /** Runs the comparison; see the class comment for the options. */
  public static void main(String[] args) throws Exception {
    int threads = 2;
    int blocks = 20;
    int ops = 100_000;
    for (int i = 0; i + 1 < args.length; i += 2) {
      switch (args[i]) {
        case "--threads" -> threads = Integer.parseInt(args[i + 1]);
        case "--blocks" -> blocks = Integer.parseInt(args[i + 1]);
        case "--ops" -> ops = Integer.parseInt(args[i + 1]);
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    Pacer pacer = Pacer.create();
    RequestInfo request = RequestInfo.get(URI.create("https://api.example.com/v1/items"));
    LimiterBenchmark.teach(pacer, request);
    AtomicRateLimiter peer = new AtomicRateLimiter("peer", RateLimiterConfig.custom()
        .limitForPeriod(Integer.MAX_VALUE).limitRefreshPeriod(Duration.ofSeconds(1))
        .timeoutDuration(Duration.ZERO).build());
    BooleanSupplier headway = () -> {
      try {
        Permit permit = pacer.acquire(request);
        permit.release();
        sink = permit;
        return true;
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    };
    BooleanSupplier resilience4j = peer::acquirePermission;
    // Warm-up: at least 10 rounds, then until each limiter's block is within 25% of its best
    // so far (at most 200 rounds): on a busy machine the JIT waits for a core, and blocks of
    // several times the compiled cost go on for seconds.
    int warmup = 0;
    double[] best = {Double.MAX_VALUE, Double.MAX_VALUE};
    double[][] cpu = new double[2][blocks];
    double[][] wall = new double[2][blocks];
    for (int b = 0; b < blocks; ) {
      double[][] r = new double[2][];
      for (int k = 0; k < 2; k++) {
        int which = ((b + warmup) & 1) == 0 ? k : 1 - k;
        r[which] = block(which == 0 ? headway : resilience4j, threads, ops);
      }
      boolean settled = r[0][0] <= 1.25 * best[0] && r[1][0] <= 1.25 * best[1];
      if (warmup < MAX_WARMUP && (warmup < MIN_WARMUP || !settled)) {
        warmup++;
        best[0] = Math.min(best[0], r[0][0]);
        best[1] = Math.min(best[1], r[1][0]);
        continue;
      }
      for (int k = 0; k < 2; k++) {
        cpu[k][b] = r[k][0];
        wall[k][b] = r[k][1];
      }
      b++;
    }
    System.out.printf(Locale.ROOT, "%d threads on one limiter, %d blocks of %d operations per "
        + "thread after %d warm-up blocks (median, p10-p90):%n", threads, blocks, ops, warmup);
    String[] names = {"Headway acquire + release", "resilience4j acquirePermission"};
    for (int k = 0; k < 2; k++) {
      Arrays.sort(cpu[k]);
      Arrays.sort(wall[k]);
      System.out.printf(Locale.ROOT, "  %-31s CPU %7.1f ns (%.1f-%.1f)  wall %7.1f ns "
          + "(%.1f-%.1f)%n", names[k], median(cpu[k]), cpu[k][blocks / 10],
          cpu[k][blocks * 9 / 10], median(wall[k]), wall[k][blocks / 10],
          wall[k][blocks * 9 / 10]);
    }
    System.out.printf(Locale.ROOT, "ratio Headway / resilience4j (medians): CPU %.2fx, wall "
        + "%.2fx%n", median(cpu[0]) / median(cpu[1]), median(wall[0]) / median(wall[1]));
  }

  /** Runs one block on {@code n} threads; returns CPU and wall nanoseconds per operation. */
  private static double[] block(BooleanSupplier op, int n, int ops) throws Exception {
    ThreadMXBean bean = ManagementFactory.getThreadMXBean();
    long[] cpu = new long[n];
    CyclicBarrier start = new CyclicBarrier(n + 1);
    CyclicBarrier end = new CyclicBarrier(n + 1);
    Thread[] workers = new Thread[n];
    for (int t = 0; t < n; t++) {
      int id = t;
      workers[t] = new Thread(() -> {
        try {
          start.await();
          long c0 = bean.getCurrentThreadCpuTime();
          boolean granted = true;
          for (int i = 0; i < ops; i++) {
            granted &= op.getAsBoolean();
          }
          cpu[id] = bean.getCurrentThreadCpuTime() - c0;
          if (!granted) {
            throw new IllegalStateException("a limiter denied a permit");
          }
          end.await();
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      });
      workers[t].start();
    }
    start.await();
    long w0 = System.nanoTime();
    end.await();
    long w1 = System.nanoTime();
    for (Thread worker : workers) {
      worker.join();
    }
    long total = 0;
    for (long c : cpu) {
      total += c;
    }
    return new double[] {(double) total / ((long) n * ops), (double) (w1 - w0) / ops};
  }

  private static double median(double[] sorted) {
    return sorted[sorted.length / 2];
  }
}
