package dev.headway.internal.pacer;

import java.time.Duration;

/** Saturating nanosecond arithmetic; server-supplied numbers never overflow. */
public final class Time {
  /** The longest duration representable in nanoseconds. */
  public static final Duration MAX_DURATION = Duration.ofNanos(Long.MAX_VALUE);

  private Time() {}

  /** Returns {@code a + b}, saturated to the long range. */
  public static long add(long a, long b) {
    long r = a + b;
    if (((a ^ r) & (b ^ r)) < 0) {
      return a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
    return r;
  }

  /** Returns {@code a - b}, saturated to the long range. */
  public static long sub(long a, long b) {
    long r = a - b;
    if (((a ^ b) & (a ^ r)) < 0) {
      return a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
    return r;
  }

  /** Returns {@code a * b}, saturated to the long range; both not negative. */
  public static long mul(long a, long b) {
    long hi = Math.multiplyHigh(a, b);
    long lo = a * b;
    if (hi != 0 || lo < 0) {
      return Long.MAX_VALUE;
    }
    return lo;
  }

  /** Returns the duration in nanoseconds, saturated; negative durations give 0. */
  public static long nanos(Duration d) {
    if (d.isNegative()) {
      return 0;
    }
    return d.compareTo(MAX_DURATION) >= 0 ? Long.MAX_VALUE : d.toNanos();
  }
}
