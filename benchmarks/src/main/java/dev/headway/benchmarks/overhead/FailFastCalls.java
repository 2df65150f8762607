package dev.headway.benchmarks.overhead;

import dev.headway.Pacer;
import dev.headway.RateLimitedException;
import dev.headway.okhttp.RateLimitInterceptor;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;

/**
 * More blocking callers than a quota lets through within {@code maxWait}, in real time: a
 * loopback server allows {@code R} requests per 1-second fixed window and says so
 * ({@code RateLimit-Policy: "s";q=R;w=1}, {@code RateLimit: "s";r=..;t=..}, a 429 past it), one
 * call tells the pacer the quota, then {@code N} OkHttp callers, a thread each, call at once
 * through a default {@code Pacer} (30 s {@code maxWait} unless given). Prints how many were
 * served (and the longest of their calls), how many were refused with
 * {@code RateLimitedException} and how long after their call (within 50 ms, and percentiles),
 * the 429s the server sent, what {@code quota(uri)} said a second in, the load average, and the
 * message of the slowest refusal.
 *
 * <p>Usage: {@code FailFastCalls [--callers N] [--rate R] [--max-wait-s S] [--runs K]}
 * (defaults 500; 10; 30; 1). Not thread-safe; a program.
 */
public final class FailFastCalls {
  private FailFastCalls() {}

  /** Runs the measurement; see the class comment for the options. */
  public static void main(String[] args) throws Exception {
    int callers = 500;
    int rate = 10;
    long maxWaitSeconds = 30;
    int runs = 1;
    for (int i = 0; i + 1 < args.length; i += 2) {
      switch (args[i]) {
        case "--callers" -> callers = Integer.parseInt(args[i + 1]);
        case "--rate" -> rate = Integer.parseInt(args[i + 1]);
        case "--max-wait-s" -> maxWaitSeconds = Long.parseLong(args[i + 1]);
        case "--runs" -> runs = Integer.parseInt(args[i + 1]);
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    System.out.println("run,callers,served,longest_served_ms,refused,refused_within_50ms,"
        + "refusal_p50_ms,refusal_p90_ms,refusal_max_ms,throttled_429,load_average");
    for (int run = 0; run < runs; run++) {
      measure(run, callers, rate, maxWaitSeconds);
    }
  }

  private static void measure(int run, int callers, int rate, long maxWaitSeconds)
      throws Exception {
    AtomicInteger throttled = new AtomicInteger();
    try (MockWebServer server = new MockWebServer()) {
      server.setDispatcher(new FixedWindow(rate, throttled));
      server.start(InetAddress.getLoopbackAddress(), 0);
      Pacer pacer = Pacer.builder().maxWait(Duration.ofSeconds(maxWaitSeconds)).build();
      OkHttpClient client = new OkHttpClient.Builder()
          .addInterceptor(RateLimitInterceptor.create(pacer)).build();
      String url = server.url("/items").toString();
      try (Response first = client.newCall(new Request.Builder().url(url).build()).execute()) {
        first.body().string();
      }
      List<Long> served = Collections.synchronizedList(new ArrayList<>());
      List<Long> refused = Collections.synchronizedList(new ArrayList<>());
      AtomicReference<String> slowest = new AtomicReference<>("");
      AtomicReference<Long> slowestMs = new AtomicReference<>(-1L);
      CountDownLatch done = new CountDownLatch(callers);
      for (int i = 0; i < callers; i++) {
        Thread thread = new Thread(() -> {
          long start = System.nanoTime();
          try (Response response = client.newCall(new Request.Builder().url(url).build())
              .execute()) {
            response.body().string();
            served.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
          } catch (RateLimitedException e) {
            long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            refused.add(ms);
            synchronized (slowestMs) {
              if (ms > slowestMs.get()) {
                slowestMs.set(ms);
                slowest.set(e.getMessage());
              }
            }
          } catch (Exception e) {
            refused.add(Long.MAX_VALUE);
          } finally {
            done.countDown();
          }
        }, "fail-fast-caller-" + i);
        thread.setDaemon(true);
        thread.start();
      }
      Thread.sleep(1_000);
      String snapshot = pacer.quota(URI.create(url)).toString();
      if (!done.await(maxWaitSeconds + 120, TimeUnit.SECONDS)) {
        throw new IllegalStateException("callers still running");
      }
      List<Long> r = new ArrayList<>(refused);
      Collections.sort(r);
      long within = r.stream().filter(ms -> ms <= 50).count();
      System.out.printf("%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%.1f%n", run, callers, served.size(),
          served.stream().mapToLong(Long::longValue).max().orElse(-1), r.size(), within,
          percentile(r, 0.5), percentile(r, 0.9), r.isEmpty() ? -1 : r.get(r.size() - 1),
          throttled.get(), ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
      System.out.println("  quota(uri) a second in: " + snapshot);
      System.out.println("  slowest refusal: " + slowest.get());
      client.dispatcher().executorService().shutdown();
      client.connectionPool().evictAll();
      pacer.close();
    }
  }

  private static long percentile(List<Long> sorted, double p) {
    return sorted.isEmpty() ? -1 : sorted.get((int) Math.min(sorted.size() - 1,
        Math.floor(p * sorted.size())));
  }

  /** A 1-second fixed window of {@code rate} requests that says its quota on every answer. */
  private static final class FixedWindow extends Dispatcher {
    private final int rate;
    private final AtomicInteger throttled;
    private final long origin = System.nanoTime();
    private long window = -1;
    private int used;

    FixedWindow(int rate, AtomicInteger throttled) {
      this.rate = rate;
      this.throttled = throttled;
    }

    @Override
    public synchronized MockResponse dispatch(RecordedRequest request) {
      long now = System.nanoTime() - origin;
      long w = now / 1_000_000_000L;
      if (w != window) {
        window = w;
        used = 0;
      }
      long untilReset = (w + 1) * 1_000_000_000L - now;
      long t = Math.max(1, (untilReset + 999_999_999L) / 1_000_000_000L);
      String policy = "\"s\";q=" + rate + ";w=1";
      if (used >= rate) {
        throttled.incrementAndGet();
        return new MockResponse.Builder().code(429).addHeader("Retry-After", t)
            .addHeader("RateLimit-Policy", policy).addHeader("RateLimit", "\"s\";r=0;t=" + t)
            .build();
      }
      used++;
      return new MockResponse.Builder().code(200).addHeader("RateLimit-Policy", policy)
          .addHeader("RateLimit", "\"s\";r=" + (rate - used) + ";t=" + t).body("ok").build();
    }
  }
}
