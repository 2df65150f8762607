package dev.headway.internal.pacer;

import dev.headway.Jitter;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;

/**
 * Owns the randomness of the engine: the {@link Jitter} added to server-given times and to
 * computed backoffs, and the random start of declared fixed windows. Takes no lock: a seeded
 * generator must be thread-safe itself ({@link java.util.Random} is), and one thread drawing
 * from it sees the same sequence as before; without a seed each thread draws from its own
 * {@link ThreadLocalRandom}.
 */
final class JitterSource {
  private static final long ONE_SECOND_NANOS = 1_000_000_000L;

  private final Jitter jitter;
  private final @Nullable RandomGenerator seeded;
  private final long maxJitterNanos;

  /**
   * Creates a source; {@code seeded} is a thread-safe generator, or null for a thread-local one
   * per thread.
   */
  JitterSource(Jitter jitter, @Nullable RandomGenerator seeded, long maxJitterNanos) {
    this.jitter = jitter;
    this.seeded = seeded;
    this.maxJitterNanos = maxJitterNanos;
  }

  private RandomGenerator random() {
    RandomGenerator r = seeded;
    return r != null ? r : ThreadLocalRandom.current();
  }

  /**
   * Returns a time the server gave ({@code base}) plus jitter: never earlier, at most
   * min(maxJitter, window / 50, wait / 5) later (the window when known), and not past
   * {@code deadline} if {@code base} is not. A reset read from a whole-second field
   * ({@code rounded}) is already up to a second late, a spread of its own: that second is taken
   * off the jitter rather than padding twice.
   */
  long serverTime(long base, long now, long deadline, long windowNanos, boolean rounded) {
    if (base <= now || maxJitterNanos == 0 || base == Long.MAX_VALUE) {
      return base;
    }
    long spread = Math.min(maxJitterNanos, (base - now) / 5);
    if (windowNanos > 0) {
      spread = Math.min(spread, windowNanos / 50);
    }
    if (rounded) {
      spread -= ONE_SECOND_NANOS;
    }
    if (spread <= 0) {
      return base;
    }
    long extra = Time.nanos(jitter.extra(Duration.ofNanos(spread), random()));
    extra = Math.min(extra, spread);
    if (base <= deadline) {
      extra = Math.min(extra, deadline - base);
    }
    return Time.add(base, extra);
  }

  /** Returns a computed backoff with jitter (the previous delay taken as half of it). */
  long backoff(long computedNanos) {
    return Time.nanos(jitter.backoff(Duration.ofNanos(computedNanos),
        Duration.ofNanos(computedNanos / 2), random()));
  }

  /** Returns a uniform draw in [0, bound); {@code bound} is positive. */
  long below(long bound) {
    return random().nextLong(bound);
  }
}
