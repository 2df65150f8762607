package dev.headway.benchmarks.jmh;

import com.google.common.util.concurrent.RateLimiter;
import dev.headway.HttpFields;
import dev.headway.Pacer;
import dev.headway.Permit;
import dev.headway.RequestInfo;
import io.github.bucket4j.Bucket;
import io.github.resilience4j.ratelimiter.RateLimiterConfig;
import io.github.resilience4j.ratelimiter.internal.AtomicRateLimiter;
import java.net.URI;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;

/**
 * The per-request cost of the limiter itself: Headway's acquire + release on a partition it
 * already knows, against the nearest operation of each peer limiter, on 1 and 2 threads sharing
 * one limiter. Every limiter is configured with a quota so large that it never denies, so each
 * operation measures the bookkeeping of a permit that is granted.
 *
 * <p>Method names end in {@code _1t} or {@code _2t}: the number of threads hitting the limiter.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class LimiterBenchmark {
  /** Far more than any run consumes; at the parser's default caps (10^12). */
  static final long HUGE = 1_000_000_000_000L;

  private static final URI API = URI.create("https://api.example.com/v1/items");

  private final RequestInfo request = RequestInfo.get(API);
  private Pacer pacer;
  private Bucket bucket4j;
  private AtomicRateLimiter resilience4j;
  private RateLimiter guava;
  private dev.failsafe.RateLimiter<Object> failsafe;

  /** Builds every limiter and teaches the pacer the partition's (huge) quota. */
  @Setup(Level.Trial)
  public void setUp() throws Exception {
    pacer = Pacer.create();
    Permit first = pacer.acquire(request);
    first.complete(200, HttpFields.of(
        "RateLimit-Policy", "\"default\";q=" + HUGE + ";w=3600",
        "RateLimit", "\"default\";r=" + HUGE + ";t=3600"), null);

    bucket4j = Bucket.builder()
        // Bucket4j refills at most one token per nanosecond.
        .addLimit(limit -> limit.capacity(HUGE).refillGreedy(1_000_000_000L, Duration.ofSeconds(1)))
        .build();
    resilience4j = new AtomicRateLimiter("peer", RateLimiterConfig.custom()
        .limitForPeriod(Integer.MAX_VALUE)
        .limitRefreshPeriod(Duration.ofSeconds(1))
        .timeoutDuration(Duration.ZERO)
        .build());
    guava = RateLimiter.create(1e12);
    failsafe = dev.failsafe.RateLimiter.burstyBuilder(HUGE, Duration.ofSeconds(1)).build();
  }

  /** Fails the run if a limiter started denying: its figures would be meaningless. */
  @TearDown(Level.Trial)
  public void checkNeverDenied() {
    if (!bucket4j.tryConsume(1) || !resilience4j.acquirePermission() || !guava.tryAcquire()
        || !failsafe.tryAcquirePermit() || pacer.tryAcquire(request).isEmpty()) {
      throw new IllegalStateException("a limiter denied a permit; raise its configured rate");
    }
  }

  /** Headway: blocking acquire (no wait needed) and release. */
  @Benchmark
  @Threads(1)
  public Permit headwayAcquireRelease_1t() throws Exception {
    Permit permit = pacer.acquire(request);
    permit.release();
    return permit;
  }

  /** As {@link #headwayAcquireRelease_1t()} on 2 threads. */
  @Benchmark
  @Threads(2)
  public Permit headwayAcquireRelease_2t() throws Exception {
    Permit permit = pacer.acquire(request);
    permit.release();
    return permit;
  }

  /** Headway: non-blocking tryAcquire and release. */
  @Benchmark
  @Threads(1)
  public Optional<Permit> headwayTryAcquireRelease_1t() {
    Optional<Permit> permit = pacer.tryAcquire(request);
    permit.ifPresent(Permit::release);
    return permit;
  }

  /** Bucket4j 8 local bucket (lock-free): {@code tryConsume(1)}. */
  @Benchmark
  @Threads(1)
  public boolean bucket4jTryConsume_1t() {
    return bucket4j.tryConsume(1);
  }

  /** As {@link #bucket4jTryConsume_1t()} on 2 threads. */
  @Benchmark
  @Threads(2)
  public boolean bucket4jTryConsume_2t() {
    return bucket4j.tryConsume(1);
  }

  /** resilience4j {@code AtomicRateLimiter.acquirePermission()}. */
  @Benchmark
  @Threads(1)
  public boolean resilience4jAcquirePermission_1t() {
    return resilience4j.acquirePermission();
  }

  /** As {@link #resilience4jAcquirePermission_1t()} on 2 threads. */
  @Benchmark
  @Threads(2)
  public boolean resilience4jAcquirePermission_2t() {
    return resilience4j.acquirePermission();
  }

  /** Guava {@code RateLimiter.tryAcquire()} (synchronized SmoothBursty). */
  @Benchmark
  @Threads(1)
  public boolean guavaTryAcquire_1t() {
    return guava.tryAcquire();
  }

  /** As {@link #guavaTryAcquire_1t()} on 2 threads. */
  @Benchmark
  @Threads(2)
  public boolean guavaTryAcquire_2t() {
    return guava.tryAcquire();
  }

  /** Failsafe bursty {@code RateLimiter.tryAcquirePermit()}. */
  @Benchmark
  @Threads(1)
  public boolean failsafeTryAcquirePermit_1t() {
    return failsafe.tryAcquirePermit();
  }

  /** As {@link #failsafeTryAcquirePermit_1t()} on 2 threads. */
  @Benchmark
  @Threads(2)
  public boolean failsafeTryAcquirePermit_2t() {
    return failsafe.tryAcquirePermit();
  }
}
