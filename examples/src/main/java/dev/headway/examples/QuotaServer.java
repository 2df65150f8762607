package dev.headway.examples;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A local HTTP server on 127.0.0.1 that really enforces a quota, for the demo and the examples'
 * {@code main} methods. One instance serves one client, so that clients never share a quota.
 *
 * <p>It enforces a fixed window ({@code windowQuota} requests per {@code window}, windows aligned
 * to {@code origin}) and, optionally, a token bucket ({@code bucketCapacity} tokens, refilled at
 * {@code bucketRefillPerSecond}). A request that fits both is answered 200 and spends one unit of
 * each; any other is answered 429 with {@code Retry-After} and spends nothing. Every response
 * carries the quota in one of two header styles:
 *
 * <ul>
 *   <li>{@link Style#IETF}: {@code RateLimit-Policy: "fixed";q=50;w=5, "burst";q=20;w=1} and
 *       {@code RateLimit: "fixed";r=12;t=3, "burst";r=19;t=1} (draft-ietf-httpapi-ratelimit-headers
 *       -08 and later; {@code t} rounded up to whole seconds, so never early);
 *   <li>{@link Style#LEGACY}: {@code X-RateLimit-Limit}, {@code X-RateLimit-Remaining} and
 *       {@code X-RateLimit-Reset} in epoch seconds, for the fixed window only.
 * </ul>
 *
 * <p>Thread-safe. Counters count what the server received and answered.
 */
public final class QuotaServer implements AutoCloseable {

  /** How the server reports its quota. */
  public enum Style {
    /** {@code RateLimit} and {@code RateLimit-Policy} structured fields. */
    IETF,
    /** {@code X-RateLimit-Limit}, {@code -Remaining}, {@code -Reset} (epoch seconds). */
    LEGACY
  }

  /**
   * What the server enforces and how it says so.
   *
   * @param style the header style
   * @param windowQuota requests allowed per fixed window; positive
   * @param window the fixed window's length, whole seconds; positive
   * @param bucketCapacity the token bucket's capacity; 0 for no bucket
   * @param bucketRefillPerSecond tokens added per second; positive when there is a bucket
   * @param origin the start of the first window (wall clock)
   */
  public record Config(Style style, long windowQuota, Duration window, long bucketCapacity,
      long bucketRefillPerSecond, Instant origin) {
    /** Validates the components. */
    public Config {
      Objects.requireNonNull(style, "style must not be null");
      Objects.requireNonNull(window, "window must not be null");
      Objects.requireNonNull(origin, "origin must not be null");
      if (windowQuota <= 0) {
        throw new IllegalArgumentException("windowQuota must be positive but was " + windowQuota);
      }
      if (window.isNegative() || window.isZero() || window.toNanos() % 1_000_000_000L != 0) {
        throw new IllegalArgumentException("window must be whole positive seconds but was "
            + window);
      }
      if (bucketCapacity < 0) {
        throw new IllegalArgumentException(
            "bucketCapacity must not be negative but was " + bucketCapacity);
      }
      if (bucketCapacity > 0 && bucketRefillPerSecond <= 0) {
        throw new IllegalArgumentException(
            "bucketRefillPerSecond must be positive but was " + bucketRefillPerSecond);
      }
    }

    /**
     * Returns how soon {@code requests} requests can all have been admitted to a client that
     * starts {@code late} after {@link #origin} (the first window's start), at the earliest: the
     * start of the window that admits the last of them, and the token bucket's refill for what
     * exceeds its capacity (full at the start), whichever is later.
     */
    public Duration earliestFinish(long requests, Duration late) {
      long lateNanos = Math.max(0, late.toNanos());
      long windowNanos = window.toNanos();
      long windowsPassed = lateNanos / windowNanos;
      long byWindow = windowNanos * (windowsPassed + (requests - 1) / windowQuota) - lateNanos;
      long byBucket = bucketCapacity == 0 || requests <= bucketCapacity ? 0
          : (requests - bucketCapacity) * 1_000_000_000L / bucketRefillPerSecond;
      return Duration.ofNanos(Math.max(0, Math.max(byWindow, byBucket)));
    }

    /** Returns the long-run rate the server allows, in requests per second. */
    public double allowedPerSecond() {
      double windowRate = (double) windowQuota / window.toSeconds();
      return bucketCapacity == 0 ? windowRate : Math.min(windowRate, bucketRefillPerSecond);
    }
  }

  private final Config config;
  private final InstantSource clock;
  private final HttpServer server;
  private final ExecutorService executor;
  private final AtomicLong received = new AtomicLong();
  private final AtomicLong succeeded = new AtomicLong();
  private final AtomicLong throttled = new AtomicLong();
  private final AtomicLong throttledByBucket = new AtomicLong();

  // Guarded by this.
  private long windowIndex = Long.MIN_VALUE;
  private long windowUsed;
  private double tokens;
  private Instant tokensAt;

  private QuotaServer(Config config, InstantSource clock) throws IOException {
    this.config = config;
    this.clock = clock;
    this.tokens = config.bucketCapacity();
    this.tokensAt = clock.instant();
    this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    this.executor = Executors.newFixedThreadPool(8, runnable -> {
      Thread thread = new Thread(runnable, "quota-server");
      thread.setDaemon(true);
      return thread;
    });
    server.setExecutor(executor);
    server.createContext("/", this::handle);
    server.start();
  }

  /** Starts a server on an ephemeral port of 127.0.0.1, on the system clock. */
  public static QuotaServer start(Config config) throws IOException {
    return new QuotaServer(config, InstantSource.system());
  }

  /** Starts a server on an ephemeral port of 127.0.0.1, on {@code clock}. */
  public static QuotaServer start(Config config, InstantSource clock) throws IOException {
    return new QuotaServer(config, clock);
  }

  /** Returns the server's base URI, e.g. {@code http://127.0.0.1:54321/}. */
  public URI uri() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/");
  }

  /** Returns what the server enforces. */
  public Config config() {
    return config;
  }

  /** Returns the number of requests received. */
  public long received() {
    return received.get();
  }

  /** Returns the number of requests answered 200. */
  public long succeeded() {
    return succeeded.get();
  }

  /** Returns the number of requests answered 429. */
  public long throttled() {
    return throttled.get();
  }

  /** Returns the number of requests answered 429 because the token bucket was empty. */
  public long throttledByBucket() {
    return throttledByBucket.get();
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
    try {
      executor.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      try (InputStream in = exchange.getRequestBody()) {
        in.readAllBytes();
      }
      received.incrementAndGet();
      Decision decision = decide();
      Headers headers = exchange.getResponseHeaders();
      headers.set("Content-Type", "application/json");
      writeQuotaHeaders(headers, decision);
      byte[] body;
      if (decision.allowed) {
        succeeded.incrementAndGet();
        body = "{\"ok\":true}".getBytes(StandardCharsets.UTF_8);
      } else {
        throttled.incrementAndGet();
        headers.set("Retry-After", Long.toString(decision.retryAfterSeconds));
        body = "{\"error\":\"rate limit exceeded\"}".getBytes(StandardCharsets.UTF_8);
      }
      exchange.sendResponseHeaders(decision.allowed ? 200 : 429, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    }
  }

  private record Decision(boolean allowed, long windowRemaining, Instant windowEnd,
      double tokens, long retryAfterSeconds, Instant now) {}

  private synchronized Decision decide() {
    Instant now = clock.instant();
    long windowMillis = config.window().toMillis();
    long sinceOrigin = Math.max(0, Duration.between(config.origin(), now).toMillis());
    long index = sinceOrigin / windowMillis;
    if (index != windowIndex) {
      windowIndex = index;
      windowUsed = 0;
    }
    Instant windowEnd = config.origin().plusMillis((index + 1) * windowMillis);
    if (config.bucketCapacity() > 0) {
      double elapsed = Duration.between(tokensAt, now).toNanos() / 1e9;
      tokens = Math.min(config.bucketCapacity(),
          tokens + Math.max(0, elapsed) * config.bucketRefillPerSecond());
      tokensAt = now;
    }
    boolean windowOk = windowUsed < config.windowQuota();
    boolean bucketOk = config.bucketCapacity() == 0 || tokens >= 1;
    boolean allowed = windowOk && bucketOk;
    long retryAfter = 0;
    if (allowed) {
      windowUsed++;
      if (config.bucketCapacity() > 0) {
        tokens -= 1;
      }
    } else {
      double waitSeconds = 0;
      if (!windowOk) {
        waitSeconds = Duration.between(now, windowEnd).toNanos() / 1e9;
      }
      if (!bucketOk) {
        throttledByBucket.incrementAndGet();
        waitSeconds = Math.max(waitSeconds, (1 - tokens) / config.bucketRefillPerSecond());
      }
      retryAfter = Math.max(1, (long) Math.ceil(waitSeconds));
    }
    return new Decision(allowed, config.windowQuota() - windowUsed, windowEnd, tokens,
        retryAfter, now);
  }

  private void writeQuotaHeaders(Headers headers, Decision decision) {
    long resetSeconds = ceilSeconds(Duration.between(decision.now, decision.windowEnd));
    switch (config.style()) {
      case IETF -> {
        String policy = "\"fixed\";q=" + config.windowQuota() + ";w=" + config.window().toSeconds();
        String limit = "\"fixed\";r=" + decision.windowRemaining + ";t=" + resetSeconds;
        if (config.bucketCapacity() > 0) {
          long capacity = config.bucketCapacity();
          long whole = (long) Math.floor(decision.tokens);
          double toFull = (capacity - decision.tokens) / config.bucketRefillPerSecond();
          long refill = config.bucketRefillPerSecond();
          long window = Math.max(1, (capacity + refill - 1) / refill);
          policy += ", \"burst\";q=" + capacity + ";w=" + window;
          limit += ", \"burst\";r=" + Math.max(0, whole) + ";t="
              + (long) Math.ceil(Math.max(0, toFull));
        }
        headers.set("RateLimit-Policy", policy);
        headers.set("RateLimit", limit);
      }
      case LEGACY -> {
        long resetEpoch = decision.windowEnd.getEpochSecond()
            + (decision.windowEnd.getNano() > 0 ? 1 : 0);
        headers.set("X-RateLimit-Limit", Long.toString(config.windowQuota()));
        headers.set("X-RateLimit-Remaining", Long.toString(decision.windowRemaining));
        headers.set("X-RateLimit-Reset", Long.toString(resetEpoch));
      }
    }
  }

  private static long ceilSeconds(Duration duration) {
    if (duration.isNegative()) {
      return 0;
    }
    long seconds = duration.getSeconds();
    return duration.getNano() > 0 ? seconds + 1 : seconds;
  }
}
