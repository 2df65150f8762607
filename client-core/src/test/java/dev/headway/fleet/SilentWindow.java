package dev.headway.fleet;

import dev.headway.Pacer;
import dev.headway.RateLimitSignal;
import dev.headway.testing.VirtualClock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * A fixed window that says nothing of its limits: a bare 200 while the window has room, else a
 * bare 429 (no {@code Retry-After}). Its windows start at multiples of {@code window} of the
 * virtual clock.
 */
final class SilentWindow {
  private final VirtualClock clock;
  private final long quota;
  private final long windowNanos;
  private long window = -1;
  private long used;
  /** Requests admitted. */
  long ok;
  /** Requests answered 429. */
  long throttled;

  SilentWindow(VirtualClock clock, long quota, Duration window) {
    this.clock = clock;
    this.quota = quota;
    this.windowNanos = window.toNanos();
  }

  /** Counts one request now and returns the answer. */
  RateLimitSignal handle() {
    long w = clock.read() / windowNanos;
    if (w != window) {
      window = w;
      used = 0;
    }
    if (used < quota) {
      used++;
      ok++;
      return signal(200);
    }
    throttled++;
    return signal(429);
  }

  private static RateLimitSignal signal(int status) {
    return new RateLimitSignal(status, List.of(), List.of(), Optional.empty(), Optional.empty(),
        Optional.empty(), List.of(), List.of(), List.of(), status == 429);
  }

  /**
   * Drives {@code callers} closed-loop callers per pacer for {@code seconds}, {@code roundTripMs}
   * away (see {@link SilentBucket#drive}); returns this.
   */
  SilentWindow drive(List<Pacer> pacers, int callers, long seconds, long roundTripMs) {
    SilentBucket.drive(clock, this::handle, pacers, callers, seconds, roundTripMs);
    return this;
  }
}
