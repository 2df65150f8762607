package dev.headway.fleet;

import dev.headway.Pacer;
import dev.headway.Permit;
import dev.headway.RateLimitSignal;
import dev.headway.RequestInfo;
import dev.headway.store.InMemoryQuotaStore;
import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * A token bucket that says nothing of its limits: a bare 200 while it has a token, else a 429,
 * with {@code Retry-After} in whole seconds (rounded up to the next token) when told to send one.
 * Refills one token every {@code refillNanos} of the virtual clock, up to its capacity.
 */
final class SilentBucket {
  static final RequestInfo GET = RequestInfo.get(URI.create("https://api.example.com/items"));
  private final VirtualClock clock;
  private final long capacity;
  private final long refillNanos;
  private final boolean retryAfter;
  private long tokens;
  private long lastNanos;
  private long firstThrottledNanos = -1;
  /** Requests admitted. */
  long ok;
  /** Requests answered 429. */
  long throttled;
  /** 429s drawn within 2 s of the first, when the bucket first ran dry. */
  long firstBurst;

  SilentBucket(VirtualClock clock, long capacity, Duration refill, boolean retryAfter) {
    this.clock = clock;
    this.capacity = capacity;
    this.refillNanos = refill.toNanos();
    this.retryAfter = retryAfter;
    this.tokens = capacity;
  }

  /** Counts one request now and returns the answer. */
  RateLimitSignal handle() {
    long now = clock.read();
    long back = (now - lastNanos) / refillNanos;
    if (back > 0) {
      tokens = Math.min(capacity, tokens + back);
      lastNanos = tokens == capacity ? now : lastNanos + back * refillNanos;
    }
    if (tokens > 0) {
      if (tokens == capacity) {
        lastNanos = now;
      }
      tokens--;
      ok++;
      return signal(200, Optional.empty());
    }
    throttled++;
    if (firstThrottledNanos < 0) {
      firstThrottledNanos = now;
    }
    if (now - firstThrottledNanos < 2_000_000_000L) {
      firstBurst++;
    }
    long next = lastNanos + refillNanos - now;
    long seconds = Math.max(1, (next + 999_999_999L) / 1_000_000_000L);
    return signal(429, retryAfter ? Optional.of(Duration.ofSeconds(seconds)) : Optional.empty());
  }

  private static RateLimitSignal signal(int status, Optional<Duration> retryAfter) {
    return new RateLimitSignal(status, List.of(), List.of(), retryAfter, Optional.empty(),
        Optional.empty(), List.of(), List.of(), List.of(), status == 429);
  }

  /**
   * Drives {@code callers} closed-loop callers per pacer against this server for
   * {@code seconds} of the virtual clock, a millisecond at a time: the server counts each
   * request half way there and the answer comes back a round trip after it went. Returns this.
   */
  SilentBucket drive(List<Pacer> pacers, int callers, long seconds, long roundTripMs) {
    drive(clock, this::handle, pacers, callers, seconds, roundTripMs);
    return this;
  }

  /**
   * Returns {@code instances} pacers on {@code clock}, each with its own jitter seed, sharing
   * {@code store} as instances {@code pod-0}, {@code pod-1}, ... when {@code shared}.
   */
  static List<Pacer> pacers(VirtualClock clock, InMemoryQuotaStore store, int instances,
      boolean shared) {
    List<Pacer> pacers = new ArrayList<>();
    for (int i = 0; i < instances; i++) {
      Pacer.Builder b = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
          .jitterSeed(i);
      if (shared) {
        b.store(store.instance("pod-" + i));
      }
      pacers.add(b.build());
    }
    return pacers;
  }

  /**
   * Drives {@code callers} closed-loop callers per pacer against {@code server} for
   * {@code seconds} of {@code clock}, as {@link #drive(List, int, long, long)} does.
   */
  static void drive(VirtualClock clock, Supplier<RateLimitSignal> server, List<Pacer> pacers,
      int callers, long seconds, long roundTripMs) {
    List<CompletableFuture<Permit>> calls = new ArrayList<>();
    long[] grantedAt = new long[pacers.size() * callers];
    RateLimitSignal[] answers = new RateLimitSignal[pacers.size() * callers];
    Arrays.fill(grantedAt, -1);
    for (Pacer p : pacers) {
      for (int c = 0; c < callers; c++) {
        calls.add(p.acquireAsync(GET, Duration.ofSeconds(30)));
      }
    }
    for (long ms = 1; ms <= seconds * 1000; ms++) {
      clock.advance(Duration.ofMillis(1));
      for (int c = 0; c < calls.size(); c++) {
        CompletableFuture<Permit> call = calls.get(c);
        if (!call.isDone()) {
          continue;
        }
        if (call.isCompletedExceptionally()) {
          calls.set(c, pacers.get(c / callers).acquireAsync(GET, Duration.ofSeconds(30)));
          continue;
        }
        if (grantedAt[c] < 0) {
          grantedAt[c] = ms;
        }
        if (ms == grantedAt[c] + roundTripMs / 2) {
          answers[c] = server.get();
        } else if (ms >= grantedAt[c] + roundTripMs) {
          call.join().complete(answers[c]);
          grantedAt[c] = -1;
          calls.set(c, pacers.get(c / callers).acquireAsync(GET, Duration.ofSeconds(30)));
        }
      }
    }
  }
}
