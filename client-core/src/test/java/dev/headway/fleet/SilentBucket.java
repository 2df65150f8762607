package dev.headway.fleet;

import dev.headway.RateLimitSignal;
import dev.headway.testing.VirtualClock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * A token bucket that says nothing of its limits: a bare 200 while it has a token, else a 429,
 * with {@code Retry-After} in whole seconds (rounded up to the next token) when told to send one.
 * Refills one token every {@code refillNanos} of the virtual clock, up to its capacity.
 */
final class SilentBucket {
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
}
