package dev.headway.internal.pacer;

import dev.headway.PolicySnapshot;
import dev.headway.QuotaUnit;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A policy a server advertised: its quota and window ({@code RateLimit-Policy}), and what is
 * left and when it resets ({@code RateLimit}). See {@link Engine} for how it is used.
 */
final class ServerPolicy extends PolicyState {
  long quota = UNKNOWN;
  long windowNanos;
  /** Units left in the current window, not counting requests in flight; UNKNOWN if never said. */
  long remaining = UNKNOWN;
  boolean hasReset;
  long resetAtNanos;
  /** Requests sent before this belong to an earlier window: their responses are ignored. */
  long epochStartNanos = Long.MIN_VALUE;
  /** The commit sequence of the request whose response set {@link #remaining} (tie-breaker). */
  long valueSeq = -1;
  /** When that request was sent. */
  long valueSentNanos = Long.MIN_VALUE;
  /**
   * When the response that set {@link #remaining} arrived: a request sent after it reached the
   * server after that request did, so its count is newer; one sent before it is concurrent, and
   * the server may have counted it in either order.
   */
  long valueReceivedNanos = Long.MIN_VALUE;
  /**
   * Units in flight when that response arrived, less those answered since: sent before the
   * count was known, the server may already have counted them in {@link #remaining}.
   */
  long overlapUnits;
  /** The pacing cursor: the next request is not sent before this. */
  long nextFreeNanos = Long.MIN_VALUE;
  /** The reset passed and the quota is unknown: only probes go until a response says more. */
  boolean stale;
  /**
   * A reset passed and no response from the new window has come back: only probes go (the
   * server may not have given the whole quota back, draft section 4.1.2).
   */
  boolean unconfirmed;
  /** The reset is a Retry-After: when it passes, nothing is assumed back (stale). */
  boolean probeAtReset;
  /** The update stamp of the last response that mentioned this policy. */
  long touchedStamp;
  /**
   * The server returns units continuously (token bucket, sliding window), not all at the reset:
   * paced at quota / window from {@link #refillFromNanos} instead of waiting for the reset.
   */
  boolean refilling;
  /** The count the server itself reported in the response that set {@link #remaining}. */
  long valueRemaining = UNKNOWN;
  /**
   * When the server counted that response's request, as estimated: halfway between its send and
   * its response. In refill mode {@link #remaining} holds at this instant.
   */
  long refillFromNanos;
  /**
   * How much slower than quota / window to pace in refill mode, in 1/1024ths: each 429 while
   * paced adds 1/64, up to 1/8. A sliding window refills at the rate of the previous window,
   * which a client that lost a few units to a hold left below the quota: exactly quota / window
   * is the edge, and the server's 429s say by how much to stay below it.
   */
  int refillSlowdown;
  /** When the refill interval was last made longer: one doubling per overshoot. */
  long slowedAtNanos = Long.MIN_VALUE;
  /** The slowest refill pacing: 16 times quota / window (several instances sharing the key). */
  static final int MAX_SLOWDOWN = 15 * 1024;

  ServerPolicy(String name, QuotaUnit unit, String source, long nowNanos) {
    super(name, unit, source, nowNanos);
  }

  @Override
  boolean declared() {
    return false;
  }

  @Override
  void roll(long nowNanos) {
    if (!hasReset || nowNanos < resetAtNanos || refillPaced()) {
      return;
    }
    valueSeq = -1;
    valueRemaining = UNKNOWN;
    if (quota >= 0 && !probeAtReset) {
      remaining = quota;
      unconfirmed = true;
      if (windowNanos > 0) {
        long windows = (nowNanos - resetAtNanos) / windowNanos + 1;
        resetAtNanos = Time.add(resetAtNanos, Time.mul(windows, windowNanos));
        epochStartNanos = resetAtNanos - windowNanos;
      } else {
        epochStartNanos = resetAtNanos;
        hasReset = false;
      }
    } else {
      epochStartNanos = resetAtNanos;
      remaining = UNKNOWN;
      hasReset = false;
      stale = true;
      probeAtReset = false;
    }
    valueSentNanos = epochStartNanos;
    valueReceivedNanos = epochStartNanos;
    overlapUnits = 0;
  }

  /** The effective concurrency cap, or UNKNOWN. */
  private long concurrencyCap() {
    if (quota >= 0) {
      return Math.max(1, quota);
    }
    return UNKNOWN;
  }

  @Override
  long earliest(Engine engine, Partition partition, PermitImpl permit, long cost, long nowNanos,
      long notBeforeNanos, long deadlineNanos) {
    if (unit == QuotaUnit.CONCURRENT_REQUESTS) {
      long cap = concurrencyCap();
      if (cap == UNKNOWN || partition.permitsInFlight < cap) {
        return notBeforeNanos;
      }
      permit.recheck = true;
      return Math.max(notBeforeNanos, Time.add(nowNanos, engine.recheckNanos));
    }
    if (stale) {
      return probe(engine, partition, permit, nowNanos, notBeforeNanos);
    }
    if (remaining == UNKNOWN) {
      return notBeforeNanos;
    }
    if (refillPaced()) {
      return refillEarliest(engine, partition, permit, cost, nowNanos, notBeforeNanos);
    }
    if (unconfirmed && partition.permitsInFlight >= engine.probes) {
      return probe(engine, partition, permit, nowNanos, notBeforeNanos);
    }
    long units = quota > 0 ? Math.min(cost, quota) : cost;
    long available = Time.sub(remaining, partition.inFlight[unit.ordinal()]);
    if (available >= units) {
      return units == 0 ? notBeforeNanos : Math.max(notBeforeNanos, nextFreeNanos);
    }
    long overlap = Math.min(overlapUnits, partition.inFlight[unit.ordinal()]);
    if (overlap > 0 && available + overlap >= units && hasReset
        && Time.add(nowNanos, engine.recheckNanos) < resetAtNanos) {
      // What is missing is in flight since before the count arrived, and the server may have
      // counted it already: look again once it may have answered rather than wait for, or
      // fail until, the reset.
      permit.recheck = true;
      return Math.max(notBeforeNanos, Time.add(nowNanos, engine.recheckNanos));
    }
    if (!hasReset) {
      // Spent, and the server never said when it comes back: learn from a few probes.
      return probe(engine, partition, permit, nowNanos, notBeforeNanos);
    }
    // Jitter goes on the server's own time, then the hold (already jittered) may push it later:
    // never jitter on jitter.
    if (quota < 0) {
      // Unknown quota after the reset: look again then (probing, never a stampede).
      permit.recheck = true;
      permit.queue = true;
      return Math.max(notBeforeNanos,
          engine.serverTime(resetAtNanos, nowNanos, deadlineNanos, windowNanos, true));
    }
    if (probeAtReset) {
      permit.recheck = true;
      permit.queue = true;
      return Math.max(notBeforeNanos,
          engine.serverTime(resetAtNanos, nowNanos, deadlineNanos, 0, false));
    }
    long nextAvailable = Time.sub(quota, partition.inFlight[unit.ordinal()]);
    if (nextAvailable < units || partition.permitsInFlight >= engine.probes) {
      // The next window is not assumed to give the whole quota back (draft section 4.1.2): a
      // few probes are committed to its start, the others look again then.
      if (windowNanos <= 0 || quota == 0 || nextAvailable >= units) {
        permit.recheck = true;
        permit.queue = true;
        return Math.max(notBeforeNanos,
            engine.serverTime(resetAtNanos, nowNanos, deadlineNanos, windowNanos, true));
      }
      long deficit = units - nextAvailable;
      long windows = (deficit + quota - 1) / quota;
      long base = Time.add(resetAtNanos, Time.mul(windows, windowNanos));
      return Math.max(Math.max(notBeforeNanos,
          engine.serverTime(base, nowNanos, deadlineNanos, windowNanos, true)), nextFreeNanos);
    }
    return Math.max(Math.max(notBeforeNanos,
        engine.serverTime(resetAtNanos, nowNanos, deadlineNanos, windowNanos, true)),
        nextFreeNanos);
  }

  /** Whether the policy is paced at its refill rate (see {@link #refilling}). */
  boolean refillPaced() {
    return refilling && quota > 0 && windowNanos > 0;
  }

  /**
   * In refill mode the server's count grows by one every window / quota from the instant it was
   * counted, up to the quota: a request may go once the count, less what is in flight, covers
   * it. Requests committed for later are in flight, so a queue of callers is spaced one refill
   * interval apart, and nothing waits for a reset that, for these servers, only says when the
   * quota is entirely back (draft section 4.1.2).
   */
  private long refillEarliest(Engine engine, Partition partition, PermitImpl permit, long cost,
      long nowNanos, long notBeforeNanos) {
    long units = Math.min(cost, quota);
    long inFlight = partition.inFlight[unit.ordinal()];
    long wanted = Time.add(inFlight, units);
    if (wanted > quota) {
      // More in flight than the server can ever hold: look again once some have answered.
      permit.recheck = true;
      return Math.max(notBeforeNanos, Time.add(nowNanos, engine.recheckNanos));
    }
    long needed = wanted - remaining;
    if (needed <= 0) {
      return notBeforeNanos;
    }
    long perUnitNanos = Math.max(1, (windowNanos + quota - 1) / quota);
    perUnitNanos = Time.add(perUnitNanos, Time.mul(perUnitNanos / 1024, refillSlowdown));
    return Math.max(notBeforeNanos, Time.add(refillFromNanos, Time.mul(needed, perUnitNanos)));
  }

  /** Records a successful response while paced at the refill rate: speed up again slowly. */
  void admittedWhileRefilling() {
    refillSlowdown -= refillSlowdown >> 8;
  }

  /** Records a 429 while paced at the refill rate: pace slower from now on. */
  void throttledWhileRefilling(long sentNanos, long nowNanos) {
    if (sentNanos < slowedAtNanos) {
      return; // sent before the last slowdown: the same overshoot, already answered
    }
    slowedAtNanos = nowNanos;
    refillSlowdown = Math.min(MAX_SLOWDOWN, Math.max(16, refillSlowdown * 2));
  }

  private long probe(Engine engine, Partition partition, PermitImpl permit, long nowNanos,
      long notBeforeNanos) {
    if (partition.permitsInFlight < engine.probes) {
      return notBeforeNanos;
    }
    permit.recheck = true;
    permit.queue = true;
    return Math.max(notBeforeNanos, Time.add(nowNanos, engine.recheckNanos));
  }

  @Override
  void commit(Engine engine, Partition partition, long cost, long nowNanos, long sendAtNanos) {
    if (unit == QuotaUnit.CONCURRENT_REQUESTS || stale || remaining == UNKNOWN || cost == 0
        || refillPaced()) {
      return;
    }
    long inFlight = partition.inFlight[unit.ordinal()];
    long available;
    long timeToReset;
    if (hasReset && sendAtNanos >= resetAtNanos) {
      // A reservation in a later window.
      available = quota >= 0 ? Time.sub(quota, inFlight) : 1;
      timeToReset = windowNanos > 0 ? Time.sub(Time.add(resetAtNanos, windowNanos), sendAtNanos)
          : 0;
    } else {
      available = Time.sub(remaining, inFlight);
      timeToReset = hasReset ? resetAtNanos - sendAtNanos : 0;
    }
    available = Math.max(1, available);
    long limit = quota >= 0 ? quota : available;
    long spacing = engine.strategy.spacingNanos(available, limit, Math.max(0, timeToReset));
    if (spacing > 0) {
      nextFreeNanos = Time.add(sendAtNanos, Time.mul(spacing, cost));
    }
  }

  @Override
  void refund(long cost, long sendAtNanos) {
    // Nothing: in-flight units are returned by the partition; the cursor stays (harmless).
  }

  @Override
  PolicySnapshot snapshot(Partition partition, long nowNanos) {
    long inFlight = unit == QuotaUnit.CONCURRENT_REQUESTS ? partition.permitsInFlight
        : partition.inFlight[unit.ordinal()];
    OptionalLong left = remaining == UNKNOWN ? OptionalLong.empty()
        : OptionalLong.of(Math.max(0, Time.sub(remaining, inFlight)));
    if (unit == QuotaUnit.CONCURRENT_REQUESTS && quota >= 0) {
      left = OptionalLong.of(Math.max(0, quota - inFlight));
    }
    return new PolicySnapshot(name,
        quota >= 0 ? OptionalLong.of(quota) : OptionalLong.empty(),
        left,
        inFlight,
        hasReset ? Optional.of(Duration.ofNanos(Math.max(0, resetAtNanos - nowNanos)))
            : Optional.empty(),
        windowNanos > 0 ? Optional.of(Duration.ofNanos(windowNanos)) : Optional.empty(),
        unit,
        source,
        Duration.ofNanos(Math.max(0, nowNanos - updatedAtNanos)));
  }
}
