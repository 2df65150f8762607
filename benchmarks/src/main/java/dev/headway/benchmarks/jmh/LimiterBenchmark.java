package dev.headway.benchmarks.jmh;

import com.google.common.util.concurrent.RateLimiter;
import dev.headway.HttpFields;
import dev.headway.Pacer;
import dev.headway.Permit;
import dev.headway.RequestInfo;
import io.github.bucket4j.Bucket;
import io.github.resilience4j.ratelimiter.RateLimiterConfig;
import io.github.resilience4j.ratelimiter.internal.AtomicRateLimiter;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
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
 * already knows, against the nearest operation of each peer limiter, on 1, 2 and 4 threads
 * sharing one limiter (one partition), and on 2 and 4 threads each with its own (one pacer,
 * a partition per thread; a peer limiter per thread). Every limiter is configured with a quota
 * so large that it never denies, so each operation measures the bookkeeping of a permit that is
 * granted.
 *
 * <p>Method names end in {@code _1t}, {@code _2t} or {@code _4t}: the number of threads; those
 * with {@code Separate} in their name give each thread its own partition or limiter.
 *
 * <p>Two benchmarks are no limiter but a floor: {@code floorClock_1t} reads the clock, and
 * {@code floorClockTwoCas_1t} reads it, compares it with an expiry, and makes two
 * compare-and-sets on two words: the least an acquire + release can do when the acquire must
 * know the time (so that no request leaves at a reset instant on an old count) and the permit
 * must be given back exactly once (one atomic step to take it, one to give it back). A peer's
 * acquire reads the clock and takes one lock or makes one CAS, and has nothing to give back.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class LimiterBenchmark {
  /** Far more than any run consumes; at the parser's default caps (10^12). */
  public static final long HUGE = 1_000_000_000_000L;

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
    teach(pacer, request);
    bucket4j = bucket4j();
    resilience4j = resilience4j();
    guava = RateLimiter.create(1e12);
    failsafe = failsafe();
  }

  /** One thread's own partition and peer limiters (the {@code Separate} benchmarks). */
  @State(Scope.Thread)
  public static class PerThread {
    private static final java.util.concurrent.atomic.AtomicInteger THREADS =
        new java.util.concurrent.atomic.AtomicInteger();

    RequestInfo request;
    Bucket bucket4j;
    AtomicRateLimiter resilience4j;
    RateLimiter guava;
    dev.failsafe.RateLimiter<Object> failsafe;

    /** Builds this thread's limiters and teaches the shared pacer this thread's partition. */
    @Setup(Level.Trial)
    public void setUp(LimiterBenchmark shared) throws Exception {
      request = RequestInfo.get(URI.create("https://api-" + THREADS.incrementAndGet()
          + ".example.com/v1/items"));
      teach(shared.pacer, request);
      bucket4j = bucket4j();
      resilience4j = resilience4j();
      guava = RateLimiter.create(1e12);
      failsafe = failsafe();
    }
  }

  /**
   * Teaches {@code pacer} a quota of {@link #HUGE} per hour for {@code request}'s partition, as
   * one response with the structured pair: every later permit of the run finds quota left.
   *
   * @param pacer the pacer under test
   * @param request a request of the partition to teach
   * @throws Exception if the first acquire fails
   */
  public static void teach(Pacer pacer, RequestInfo request) throws Exception {
    Permit first = pacer.acquire(request);
    first.complete(200, HttpFields.of(
        "RateLimit-Policy", "\"default\";q=" + HUGE + ";w=3600",
        "RateLimit", "\"default\";r=" + HUGE + ";t=3600"), null);
  }

  static Bucket bucket4j() {
    return Bucket.builder()
        // Bucket4j refills at most one token per nanosecond.
        .addLimit(limit -> limit.capacity(HUGE).refillGreedy(1_000_000_000L, Duration.ofSeconds(1)))
        .build();
  }

  static AtomicRateLimiter resilience4j() {
    return new AtomicRateLimiter("peer", RateLimiterConfig.custom()
        .limitForPeriod(Integer.MAX_VALUE)
        .limitRefreshPeriod(Duration.ofSeconds(1))
        .timeoutDuration(Duration.ZERO)
        .build());
  }

  static dev.failsafe.RateLimiter<Object> failsafe() {
    return dev.failsafe.RateLimiter.burstyBuilder(HUGE, Duration.ofSeconds(1)).build();
  }

  /** Fails the run if a limiter started denying: its figures would be meaningless. */
  @TearDown(Level.Trial)
  public void checkNeverDenied() {
    if (!bucket4j.tryConsume(1) || !resilience4j.acquirePermission() || !guava.tryAcquire()
        || !failsafe.tryAcquirePermit() || pacer.tryAcquire(request).isEmpty()) {
      throw new IllegalStateException("a limiter denied a permit; raise its configured rate");
    }
  }

  /** The floor's clock: {@code System.nanoTime()}, as every limiter here reads it. */
  @Benchmark
  @Threads(1)
  public long floorClock_1t() {
    return System.nanoTime();
  }

  /**
   * The floor of an acquire + release with exact-once permits: one clock read checked against
   * an expiry, one CAS to take a unit, one CAS to give it back; no partition, no permit object.
   */
  @Benchmark
  @Threads(1)
  public boolean floorClockTwoCas_1t(Floor floor) {
    return floor.acquireRelease();
  }

  /** The two words of {@link #floorClockTwoCas_1t} (one thread: no sharing to keep apart). */
  @State(Scope.Thread)
  public static class Floor {
    private static final VarHandle TAKEN;
    private static final VarHandle GIVEN;

    static {
      try {
        MethodHandles.Lookup lookup = MethodHandles.lookup();
        TAKEN = lookup.findVarHandle(Floor.class, "taken", long.class);
        GIVEN = lookup.findVarHandle(Floor.class, "given", long.class);
      } catch (ReflectiveOperationException e) {
        throw new ExceptionInInitializerError(e);
      }
    }

    private long expiresAt = Long.MAX_VALUE;
    private volatile long taken;
    private volatile long given;

    boolean acquireRelease() {
      long now = System.nanoTime();
      long t = taken;
      if (now >= expiresAt || !TAKEN.compareAndSet(this, t, t + 1)) {
        return false;
      }
      long g = given;
      return GIVEN.compareAndSet(this, g, g + 1);
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

  /** As {@link #headwayAcquireRelease_1t()} on 4 threads. */
  @Benchmark
  @Threads(4)
  public Permit headwayAcquireRelease_4t() throws Exception {
    Permit permit = pacer.acquire(request);
    permit.release();
    return permit;
  }

  /** Acquire and release on 2 threads, each on its own partition of one pacer. */
  @Benchmark
  @Threads(2)
  public Permit headwayAcquireReleaseSeparate_2t(PerThread own) throws Exception {
    Permit permit = pacer.acquire(own.request);
    permit.release();
    return permit;
  }

  /** Acquire and release on 4 threads, each on its own partition of one pacer. */
  @Benchmark
  @Threads(4)
  public Permit headwayAcquireReleaseSeparate_4t(PerThread own) throws Exception {
    Permit permit = pacer.acquire(own.request);
    permit.release();
    return permit;
  }

  /** As {@link #bucket4jTryConsume_1t()} on 4 threads. */
  @Benchmark
  @Threads(4)
  public boolean bucket4jTryConsume_4t() {
    return bucket4j.tryConsume(1);
  }

  /** As {@link #bucket4jTryConsume_1t()} on 2 threads, each with its own limiter. */
  @Benchmark
  @Threads(2)
  public boolean bucket4jTryConsumeSeparate_2t(PerThread own) {
    return own.bucket4j.tryConsume(1);
  }

  /** As {@link #bucket4jTryConsume_1t()} on 4 threads, each with its own limiter. */
  @Benchmark
  @Threads(4)
  public boolean bucket4jTryConsumeSeparate_4t(PerThread own) {
    return own.bucket4j.tryConsume(1);
  }

  /** As {@link #resilience4jAcquirePermission_1t()} on 4 threads. */
  @Benchmark
  @Threads(4)
  public boolean resilience4jAcquirePermission_4t() {
    return resilience4j.acquirePermission();
  }

  /** As {@link #resilience4jAcquirePermission_1t()} on 2 threads, each with its own limiter. */
  @Benchmark
  @Threads(2)
  public boolean resilience4jAcquirePermissionSeparate_2t(PerThread own) {
    return own.resilience4j.acquirePermission();
  }

  /** As {@link #resilience4jAcquirePermission_1t()} on 4 threads, each with its own limiter. */
  @Benchmark
  @Threads(4)
  public boolean resilience4jAcquirePermissionSeparate_4t(PerThread own) {
    return own.resilience4j.acquirePermission();
  }

  /** As {@link #guavaTryAcquire_1t()} on 4 threads. */
  @Benchmark
  @Threads(4)
  public boolean guavaTryAcquire_4t() {
    return guava.tryAcquire();
  }

  /** As {@link #guavaTryAcquire_1t()} on 2 threads, each with its own limiter. */
  @Benchmark
  @Threads(2)
  public boolean guavaTryAcquireSeparate_2t(PerThread own) {
    return own.guava.tryAcquire();
  }

  /** As {@link #guavaTryAcquire_1t()} on 4 threads, each with its own limiter. */
  @Benchmark
  @Threads(4)
  public boolean guavaTryAcquireSeparate_4t(PerThread own) {
    return own.guava.tryAcquire();
  }

  /** As {@link #failsafeTryAcquirePermit_1t()} on 4 threads. */
  @Benchmark
  @Threads(4)
  public boolean failsafeTryAcquirePermit_4t() {
    return failsafe.tryAcquirePermit();
  }

  /** As {@link #failsafeTryAcquirePermit_1t()} on 2 threads, each with its own limiter. */
  @Benchmark
  @Threads(2)
  public boolean failsafeTryAcquirePermitSeparate_2t(PerThread own) {
    return own.failsafe.tryAcquirePermit();
  }

  /** As {@link #failsafeTryAcquirePermit_1t()} on 4 threads, each with its own limiter. */
  @Benchmark
  @Threads(4)
  public boolean failsafeTryAcquirePermitSeparate_4t(PerThread own) {
    return own.failsafe.tryAcquirePermit();
  }
}
