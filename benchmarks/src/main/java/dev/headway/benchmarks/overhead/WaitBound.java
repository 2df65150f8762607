package dev.headway.benchmarks.overhead;

import dev.headway.HttpFields;
import dev.headway.Pacer;
import dev.headway.Permit;
import dev.headway.RequestInfo;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.URI;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * How far past {@code maxWait} the longest asynchronous wait goes when many callers wait on one
 * spent partition: {@code N} callers call {@code acquireAsync} at once (real time, the pacer's
 * own scheduler and callback executor) against a partition whose server said "0 of Q left,
 * resets in R"; each chained {@code thenApply} records when its future completed, granted or
 * refused. A granted permit is completed at once with "Q-1 left". Prints, per run, the longest
 * wait, how far it went past {@code maxWait}, the longest wait of a granted and of a refused
 * caller, how many were left waiting when {@code acquireAsync} returned (the rest were granted
 * or refused on the caller's thread), how late a bare JDK timer on a thread of its own fired
 * when it was due at {@code maxWait} (the control: what the machine's load alone costs a
 * timer), how many were granted and refused, the CPU time of the pacer's scheduler and callback
 * threads (what the waits cost, whatever the load) and the load average (on a shared machine the
 * longest wait depends on it).
 *
 * <p>Usage: {@code WaitBound [--waiters N,N...] [--max-wait-ms MS] [--quota Q] [--reset-s R]
 * [--runs K]} (defaults 8000,32000; 3000; 1000; 2; 3). Not thread-safe; a program.
 */
public final class WaitBound {
  private static final URI API = URI.create("https://api.example.com/items");

  private WaitBound() {}

  /** Runs the measurement; see the class comment for the options. */
  public static void main(String[] args) throws Exception {
    int[] waiters = {8_000, 32_000};
    long maxWaitMs = 3_000;
    long quota = 1_000;
    long resetSeconds = 2;
    int runs = 3;
    for (int i = 0; i + 1 < args.length; i += 2) {
      switch (args[i]) {
        case "--waiters" -> waiters = Arrays.stream(args[i + 1].split(","))
            .mapToInt(Integer::parseInt).toArray();
        case "--max-wait-ms" -> maxWaitMs = Long.parseLong(args[i + 1]);
        case "--quota" -> quota = Long.parseLong(args[i + 1]);
        case "--reset-s" -> resetSeconds = Long.parseLong(args[i + 1]);
        case "--runs" -> runs = Integer.parseInt(args[i + 1]);
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    System.out.println("waiters,run,longest_wait_ms,past_max_wait_ms,longest_granted_ms,"
        + "longest_refused_ms,queued,control_timer_late_ms,granted,refused,"
        + "scheduler_cpu_ms,callbacks_cpu_ms,load_average");
    for (int n : waiters) {
      for (int run = 0; run < runs; run++) {
        measure(n, run, maxWaitMs, quota, resetSeconds);
      }
    }
  }

  /**
   * Returns the CPU time used so far by the live threads whose name starts with {@code prefix}
   * (the pacer's own: one pacer at a time): what the waits cost, whatever the machine's load.
   */
  private static double cpuMillis(String prefix) {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    long nanos = 0;
    for (Thread thread : Thread.getAllStackTraces().keySet()) {
      if (thread.getName().startsWith(prefix)) {
        nanos += Math.max(0, threads.getThreadCpuTime(thread.getId()));
      }
    }
    return nanos / 1e6;
  }

  private static HttpFields fields(long quota, long left, long resetNanos) {
    long seconds = Math.max(1, (resetNanos + 999_999_999L) / 1_000_000_000L);
    if (Boolean.getBoolean("waitbound.countOnly")) { // no quota told: nothing to estimate from
      return HttpFields.of("RateLimit", "\"q\";r=" + left + ";t=" + seconds);
    }
    return HttpFields.of("RateLimit-Policy", "\"q\";q=" + quota + ";w=10",
        "RateLimit", "\"q\";r=" + left + ";t=" + seconds);
  }

  private static void measure(int n, int run, long maxWaitMs, long quota, long resetSeconds)
      throws Exception {
    try (Pacer pacer = Pacer.builder().maxWait(Duration.ofMillis(maxWaitMs)).build()) {
      RequestInfo get = RequestInfo.get(API);
      // A fixed window of Q per 10 s whose current window ends R from now, spent.
      long windowEnd = System.nanoTime() + resetSeconds * 1_000_000_000L;
      AtomicInteger used = new AtomicInteger();
      pacer.acquire(get).complete(200, fields(quota, 0, resetSeconds * 1_000_000_000L), null);
      long[] waited = new long[n];
      boolean[] wasGranted = new boolean[n];
      // The control: a bare JDK timer due when the first caller's maxWait ends, on a thread of
      // its own doing nothing else; how late it fires is what the machine's load alone costs.
      java.util.concurrent.ScheduledExecutorService control =
          java.util.concurrent.Executors.newSingleThreadScheduledExecutor();
      long controlDue = System.nanoTime() + maxWaitMs * 1_000_000L;
      CompletableFuture<Long> controlLate = new CompletableFuture<>();
      control.schedule(() -> controlLate.complete(System.nanoTime() - controlDue), maxWaitMs,
          java.util.concurrent.TimeUnit.MILLISECONDS);
      int queued = 0;
      AtomicInteger granted = new AtomicInteger();
      AtomicInteger refused = new AtomicInteger();
      CountDownLatch done = new CountDownLatch(n);
      for (int i = 0; i < n; i++) {
        int index = i;
        long start = System.nanoTime();
        CompletableFuture<Permit> future = pacer.acquireAsync(get);
        future.whenComplete((permit, e) -> {
          waited[index] = System.nanoTime() - start;
          if (e == null) {
            wasGranted[index] = true;
            granted.incrementAndGet();
            long now = System.nanoTime();
            long left = now < windowEnd ? 0 : quota - used.incrementAndGet();
            long reset = now < windowEnd ? windowEnd - now : windowEnd + 10_000_000_000L - now;
            permit.complete(left < 0 ? 429 : 200, fields(quota, Math.max(0, left), reset), null);
          } else {
            refused.incrementAndGet();
          }
          done.countDown();
        });
        if (!future.isDone()) {
          queued++;
        }
      }
      done.await();
      long lateControl = controlLate.get();
      control.shutdown();
      long longestGranted = 0;
      long longestRefused = 0;
      for (int i = 0; i < n; i++) {
        if (wasGranted[i]) {
          longestGranted = Math.max(longestGranted, waited[i]);
        } else {
          longestRefused = Math.max(longestRefused, waited[i]);
        }
      }
      long longest = Arrays.stream(waited).max().orElse(0);
      if (System.getProperty("waitbound.detail") != null) {
        long[] sorted = waited.clone();
        Arrays.sort(sorted);
        System.out.printf(Locale.ROOT,
            "  p50 %.0f p90 %.0f p99 %.0f p999 %.0f max %.0f ms; over maxWait: %d%n",
            sorted[n / 2] / 1e6, sorted[n * 9 / 10] / 1e6, sorted[n * 99 / 100] / 1e6,
            sorted[Math.min(n - 1, n * 999 / 1000)] / 1e6, longest / 1e6,
            Arrays.stream(waited).filter(w -> w > maxWaitMs * 1_000_000L).count());
      }
      System.out.printf(Locale.ROOT, "%d,%d,%.1f,%.1f,%.1f,%.1f,%d,%.1f,%d,%d,%.0f,%.0f,%.1f%n",
          n, run, longest / 1e6, longest / 1e6 - maxWaitMs, longestGranted / 1e6,
          longestRefused / 1e6, queued, lateControl / 1e6, granted.get(), refused.get(),
          cpuMillis("headway-scheduler"), cpuMillis("headway-callbacks"),
          ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    }
  }
}
