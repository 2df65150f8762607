package dev.headway.internal.pacer;

import dev.headway.Jitter;
import java.time.Duration;
import java.util.random.RandomGenerator;

/** The provided {@link Jitter} implementations. */
public enum Jitters implements Jitter {
  /** No jitter. */
  NONE {
    @Override
    public Duration backoff(Duration computed, Duration previous, RandomGenerator random) {
      return computed;
    }

    @Override
    public Duration extra(Duration spread, RandomGenerator random) {
      return Duration.ZERO;
    }
  },
  /** Uniform in [0, d]. */
  FULL {
    @Override
    public Duration backoff(Duration computed, Duration previous, RandomGenerator random) {
      return Duration.ofNanos(uniform(random, 0, nanos(computed)));
    }

    @Override
    public Duration extra(Duration spread, RandomGenerator random) {
      return Duration.ofNanos(uniform(random, 0, nanos(spread)));
    }
  },
  /** Uniform in [d/2, d]. */
  EQUAL {
    @Override
    public Duration backoff(Duration computed, Duration previous, RandomGenerator random) {
      long d = nanos(computed);
      return Duration.ofNanos(d / 2 + uniform(random, 0, d - d / 2));
    }

    @Override
    public Duration extra(Duration spread, RandomGenerator random) {
      return Duration.ofNanos(uniform(random, 0, nanos(spread) / 2));
    }
  },
  /** Uniform between computed/2 and three times the previous, at most 3 * computed. */
  DECORRELATED {
    @Override
    public Duration backoff(Duration computed, Duration previous, RandomGenerator random) {
      long d = nanos(computed);
      long low = d / 2;
      long high = Math.min(satMul3(nanos(previous)), satMul3(d));
      return Duration.ofNanos(high <= low ? low : uniform(random, low, high));
    }

    @Override
    public Duration extra(Duration spread, RandomGenerator random) {
      return Duration.ofNanos(uniform(random, 0, nanos(spread)));
    }
  };

  private static long nanos(Duration d) {
    if (d.isNegative()) {
      return 0;
    }
    return d.compareTo(Time.MAX_DURATION) >= 0 ? Long.MAX_VALUE : d.toNanos();
  }

  private static long satMul3(long v) {
    return v > Long.MAX_VALUE / 3 ? Long.MAX_VALUE : v * 3;
  }

  private static long uniform(RandomGenerator random, long low, long high) {
    if (high <= low) {
      return low;
    }
    if (high == Long.MAX_VALUE) {
      return random.nextLong(low, high);
    }
    return random.nextLong(low, high + 1);
  }

  @Override
  public String toString() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
