package dev.headway.pacer;

import dev.headway.RateLimitSignal;
import dev.headway.testing.VirtualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A simulated server with one fixed-window quota {@code q} per {@code w} seconds, windows
 * starting at clock time 0. Each request is answered with {@code RateLimit: r, t} (t rounded up
 * to whole seconds, as a server would) and {@code RateLimit-Policy: q, w}; past the quota with a
 * 429. Thread-safe.
 */
final class FakeServer {
  private final VirtualClock clock;
  private final long quota;
  private final long windowNanos;
  private final long windowSeconds;
  private long window = -1;
  private long used;
  private final List<Long> sendTimes = new ArrayList<>();
  private int throttled;

  FakeServer(VirtualClock clock, long quota, long windowSeconds) {
    this.clock = clock;
    this.quota = quota;
    this.windowSeconds = windowSeconds;
    this.windowNanos = Duration.ofSeconds(windowSeconds).toNanos();
  }

  /** Receives one request now and returns its response's signal. */
  synchronized RateLimitSignal handle() {
    long now = clock.read();
    sendTimes.add(now);
    long w = now / windowNanos;
    if (w != window) {
      window = w;
      used = 0;
    }
    long resetNanos = (w + 1) * windowNanos - now;
    long resetSeconds = (resetNanos + 999_999_999L) / 1_000_000_000L;
    if (used >= quota) {
      throttled++;
      return Signals.limit(429, quota, windowSeconds, 0, resetSeconds);
    }
    used++;
    return Signals.limit(200, quota, windowSeconds, quota - used, resetSeconds);
  }

  /** Returns how many requests arrived in window number {@code index}. */
  synchronized long sentInWindow(long index) {
    return sendTimes.stream().filter(t -> t / windowNanos == index).count();
  }

  synchronized int received() {
    return sendTimes.size();
  }

  synchronized int throttled() {
    return throttled;
  }

  synchronized List<Long> sendTimes() {
    return List.copyOf(sendTimes);
  }
}
