package dev.headway.benchmarks.sim;

import java.util.function.Predicate;

/**
 * One quota of a server with several ({@link ScopedServer}): which requests it governs, how it
 * counts (a fixed window, or a token bucket refilled continuously) and what it has counted.
 * Requests may cost more than one unit (tokens). Not thread-safe.
 */
final class Meter {
  /** How a meter counts. */
  enum Kind {
    /** At most {@code limit} units in each window {@code [origin + kW, origin + (k+1)W)}. */
    FIXED_WINDOW,
    /** A bucket of {@code limit} units, full at the start, refilled at {@code limit} per window. */
    TOKEN_BUCKET
  }

  final String name;
  final Kind kind;
  final long limit;
  final long windowNanos;
  final boolean countsTokens;
  private final long originNanos;
  private final Predicate<SimRequest> governs;

  private long index = Long.MIN_VALUE;
  private long used;
  private double level;
  private long lastNanos = Long.MIN_VALUE;

  long admitted;
  long units;
  long throttled;

  /**
   * Creates a meter.
   *
   * @param name the quota's name
   * @param kind how it counts
   * @param limit units per window
   * @param windowNanos the window
   * @param originNanos a time at which a fixed window starts
   * @param countsTokens whether a request costs its {@link SimRequest#tokens()} (else one)
   * @param governs which requests it counts
   */
  Meter(String name, Kind kind, long limit, long windowNanos, long originNanos,
      boolean countsTokens, Predicate<SimRequest> governs) {
    this.name = name;
    this.kind = kind;
    this.limit = limit;
    this.windowNanos = windowNanos;
    this.originNanos = originNanos;
    this.countsTokens = countsTokens;
    this.governs = governs;
    this.level = limit;
  }

  boolean governs(SimRequest request) {
    return governs.test(request);
  }

  long cost(SimRequest request) {
    return countsTokens ? Math.min(limit, Math.max(1, request.tokens())) : 1;
  }

  private long windowIndex(long nowNanos) {
    return Math.floorDiv(nowNanos - originNanos, windowNanos);
  }

  private long usedAt(long nowNanos) {
    return windowIndex(nowNanos) == index ? used : 0;
  }

  private double levelAt(long nowNanos) {
    if (lastNanos == Long.MIN_VALUE || nowNanos <= lastNanos) {
      return level;
    }
    return Math.min(limit, level + (double) (nowNanos - lastNanos) * limit / windowNanos);
  }

  /** Returns whether {@code cost} units are available at {@code nowNanos}; no side effect. */
  boolean fits(long nowNanos, long cost) {
    return kind == Kind.FIXED_WINDOW ? usedAt(nowNanos) + cost <= limit
        : levelAt(nowNanos) >= cost - 1e-9;
  }

  /** Takes {@code cost} units at {@code nowNanos} (after {@link #fits} said yes). */
  void take(long nowNanos, long cost) {
    if (kind == Kind.FIXED_WINDOW) {
      used = usedAt(nowNanos) + cost;
      index = windowIndex(nowNanos);
    } else {
      level = Math.max(0, levelAt(nowNanos) - cost);
      lastNanos = Math.max(lastNanos, nowNanos);
    }
    admitted++;
    units += cost;
  }

  /** Returns the whole units left at {@code nowNanos}. */
  long remaining(long nowNanos) {
    return kind == Kind.FIXED_WINDOW ? Math.max(0, limit - usedAt(nowNanos))
        : (long) Math.floor(levelAt(nowNanos) + 1e-9);
  }

  /**
   * Returns the time until the quota is entirely back: the window's end for a fixed window, until
   * the bucket is full for a token bucket.
   */
  long resetNanos(long nowNanos) {
    if (kind == Kind.FIXED_WINDOW) {
      return originNanos + (windowIndex(nowNanos) + 1) * windowNanos - nowNanos;
    }
    return (long) Math.ceil((limit - levelAt(nowNanos)) * windowNanos / limit);
  }

  /** Returns the earliest time, not before {@code nowNanos}, at which {@code cost} units fit. */
  long nextFit(long nowNanos, long cost) {
    if (fits(nowNanos, cost)) {
      return nowNanos;
    }
    if (kind == Kind.FIXED_WINDOW) {
      return originNanos + (windowIndex(nowNanos) + 1) * windowNanos;
    }
    return nowNanos + (long) Math.ceil((cost - levelAt(nowNanos)) * windowNanos / limit) + 1;
  }

  /** Returns the units this quota can grant over {@code [0, durationNanos)}. */
  long capacity(long durationNanos) {
    if (kind == Kind.TOKEN_BUCKET) {
      return limit + (long) Math.floor((double) durationNanos * limit / windowNanos);
    }
    long first = windowIndex(0);
    long last = windowIndex(Math.max(0, durationNanos - 1));
    return limit * (last - first + 1);
  }

  SimServer.QuotaUse use(long durationNanos) {
    return new SimServer.QuotaUse(name, admitted, units, throttled, limit,
        capacity(durationNanos), 0);
  }
}
