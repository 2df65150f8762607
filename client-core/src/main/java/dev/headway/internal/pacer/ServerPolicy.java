package dev.headway.internal.pacer;

import dev.headway.PacingStrategy;
import dev.headway.PolicySnapshot;
import dev.headway.QuotaPolicy;
import dev.headway.QuotaUnit;
import dev.headway.SanityCaps;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A policy a server advertised: its quota and window ({@code RateLimit-Policy}), and what is
 * left and when it resets ({@code RateLimit}). See docs/pacer.md for how it is used.
 */
final class ServerPolicy extends PolicyState {
  long quota = UNKNOWN;
  long windowNanos;
  /** Units left in the current window, not counting requests in flight; UNKNOWN if never said. */
  long remaining = UNKNOWN;
  boolean hasReset;
  /** The reset: the tightest upper bound the responses of this window gave. */
  long resetAtNanos;
  /**
   * The earliest the window of {@link #remaining} may end: the server rounds {@code t} and
   * counted the request at some instant of its round trip, so up to a second before the send
   * time plus {@code t}. A count answered before it is of the same window; after it, a count
   * that went up may be the next window's.
   */
  long resetFloorNanos;
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
  /** Whether, and how, the server gives units back before its reset. */
  final RefillPacing refill = new RefillPacing();
  private static final long ONE_SECOND_NANOS = 1_000_000_000L;

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
    refill.reported = UNKNOWN;
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

  @Override
  long earliest(Settings settings, Evaluation evaluation, Partition partition, long cost,
      long nowNanos, long notBeforeNanos, long deadlineNanos) {
    InFlight inFlight = flight(partition.inFlight);
    if (unit == QuotaUnit.CONCURRENT_REQUESTS) {
      long cap = quota >= 0 ? Math.max(1, quota) : UNKNOWN; // the effective cap
      if (cap == UNKNOWN || inFlight.permits() < cap) {
        return notBeforeNanos;
      }
      return evaluation.lookAgainAt(Math.max(notBeforeNanos,
          Time.add(nowNanos, settings.recheckNanos)), "a free slot under policy " + name
          + " (a limit of concurrent requests)");
    }
    if (stale) {
      return probe(settings, evaluation, inFlight, nowNanos, notBeforeNanos);
    }
    if (remaining == UNKNOWN) {
      return notBeforeNanos;
    }
    if (quota == 0) {
      // Nothing may ever be sent, whatever the window: refused (a probe checks it now and then,
      // see Verifier), rather than waiting for resets that give nothing back.
      evaluation.zeroQuota = true;
      return evaluation.refuseUntil(hasReset ? Math.max(notBeforeNanos, resetAtNanos)
          : Long.MAX_VALUE);
    }
    if (refillPaced()) {
      return refillEarliest(settings, evaluation, inFlight, cost, nowNanos, notBeforeNanos);
    }
    if (unconfirmed && inFlight.permits() >= settings.probes) {
      return probe(settings, evaluation, inFlight, nowNanos, notBeforeNanos);
    }
    long units = quota > 0 ? Math.min(cost, quota) : cost;
    long available = Time.sub(remaining, inFlight.units(unit));
    if (available >= units) {
      return units == 0 ? notBeforeNanos : Math.max(notBeforeNanos, nextFreeNanos);
    }
    long overlap = Math.min(overlapUnits, inFlight.units(unit));
    if (overlap > 0 && available + overlap >= units && hasReset
        && Time.add(nowNanos, settings.recheckNanos) < resetAtNanos) {
      // What is missing is in flight since before the count arrived, and the server may have
      // counted it already: look again once it may have answered rather than wait for, or
      // fail until, the reset.
      return evaluation.lookAgainAt(Math.max(notBeforeNanos,
          Time.add(nowNanos, settings.recheckNanos)),
          "answers to requests in flight on policy " + name);
    }
    if (!hasReset) {
      // Spent, and the server never said when it comes back: learn from a few probes.
      return probe(settings, evaluation, inFlight, nowNanos, notBeforeNanos);
    }
    // Jitter goes on the server's own time, then the hold (already jittered) may push it later:
    // never jitter on jitter.
    if (quota < 0) {
      // Unknown quota after the reset: look again then (probing, never a stampede).
      return evaluation.waitInLineUntil(Math.max(notBeforeNanos,
          settings.jitter.serverTime(resetAtNanos, nowNanos, deadlineNanos, windowNanos, true)));
    }
    if (probeAtReset) {
      return evaluation.waitInLineUntil(Math.max(notBeforeNanos,
          settings.jitter.serverTime(resetAtNanos, nowNanos, deadlineNanos, 0, false)));
    }
    long nextAvailable = Time.sub(quota, inFlight.units(unit));
    if (nextAvailable < units || inFlight.permits() >= settings.probes) {
      // The next window is not assumed to give the whole quota back (draft section 4.1.2): a
      // few probes are committed to its start, the others look again then.
      if (windowNanos <= 0 || quota == 0 || nextAvailable >= units) {
        return evaluation.waitInLineUntil(Math.max(notBeforeNanos, settings.jitter.serverTime(
            resetAtNanos, nowNanos, deadlineNanos, windowNanos, true)));
      }
      long deficit = units - nextAvailable;
      long windows = (deficit + quota - 1) / quota;
      long base = Time.add(resetAtNanos, Time.mul(windows, windowNanos));
      return Math.max(Math.max(notBeforeNanos,
          settings.jitter.serverTime(base, nowNanos, deadlineNanos, windowNanos, true)),
          nextFreeNanos);
    }
    return Math.max(Math.max(notBeforeNanos,
        settings.jitter.serverTime(resetAtNanos, nowNanos, deadlineNanos, windowNanos, true)),
        nextFreeNanos);
  }

  /** Whether the policy is paced at its refill rate (see {@link RefillPacing}). */
  boolean refillPaced() {
    return refill.paced(quota, windowNanos);
  }

  /** In refill mode: a request goes once what came back covers it and what is in flight. */
  private long refillEarliest(Settings settings, Evaluation evaluation, InFlight inFlight,
      long cost, long nowNanos, long notBeforeNanos) {
    long units = Math.min(cost, quota);
    long wanted = Time.add(inFlight.units(unit), units);
    if (wanted > quota) {
      // More in flight than the server can ever hold: look again once some have answered.
      return evaluation.lookAgainAt(Math.max(notBeforeNanos,
          Time.add(nowNanos, settings.recheckNanos)));
    }
    long needed = wanted - remaining;
    if (needed <= 0) {
      return notBeforeNanos;
    }
    return Math.max(notBeforeNanos, refill.backAt(needed, quota, windowNanos));
  }

  private static long probe(Settings settings, Evaluation evaluation, InFlight inFlight,
      long nowNanos, long notBeforeNanos) {
    if (inFlight.permits() < settings.probes) {
      return notBeforeNanos;
    }
    evaluation.waitingFor = "answers to the requests probing a quota not known now (probes)";
    return evaluation.waitInLineUntil(Math.max(notBeforeNanos,
        Time.add(nowNanos, settings.recheckNanos)));
  }

  @Override
  long commit(PacingStrategy strategy, InFlight inFlight, long cost, long nowNanos,
      long sendAtNanos) {
    if (unit == QuotaUnit.CONCURRENT_REQUESTS || stale || remaining == UNKNOWN || cost == 0
        || refillPaced()) {
      return 0;
    }
    long units = inFlight.units(unit);
    long available;
    long timeToReset;
    if (hasReset && sendAtNanos >= resetAtNanos) {
      // A reservation in a later window.
      available = quota >= 0 ? Time.sub(quota, units) : 1;
      timeToReset = windowNanos > 0 ? Time.sub(Time.add(resetAtNanos, windowNanos), sendAtNanos)
          : 0;
    } else {
      available = Time.sub(remaining, units);
      timeToReset = hasReset ? resetAtNanos - sendAtNanos : 0;
    }
    available = Math.max(1, available);
    long limit = quota >= 0 ? quota : available;
    long spacing = strategy.spacingNanos(available, limit, Math.max(0, timeToReset));
    if (spacing > 0) {
      long gap = Time.mul(spacing, cost);
      nextFreeNanos = Time.add(sendAtNanos, gap);
      return gap;
    }
    return 0;
  }

  @Override
  void refund(long cost, long gapNanos) {
    // In-flight units are returned by the partition. The slot: the cursor moves back by the gap
    // the request took. The requests after it keep their times, and the next new one takes the
    // slot nobody will use: the schedule closes up, and no more requests go in any stretch of
    // time than the strategy spaced. (A cursor moved back into the past is harmless: a request
    // never goes before now.)
    if (gapNanos > 0) {
      nextFreeNanos = Time.sub(nextFreeNanos, gapNanos);
    }
  }

  @Override
  PolicySnapshot snapshot(InFlight all, long nowNanos) {
    long inFlight = unit == QuotaUnit.CONCURRENT_REQUESTS ? all.permits() : all.units(unit);
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

  // ------------------------------------------------------------- what responses say

  /**
   * Takes what a {@code RateLimit-Policy} item says: quota (capped), unit and window. A stale
   * policy is known again, its whole quota assumed left.
   */
  void declare(QuotaPolicy policy, SanityCaps caps, long stamp) {
    quota = Math.min(policy.quota(), caps.maxQuota());
    unit = policy.unit();
    windowNanos = policy.window().isPresent() ? Time.nanos(policy.window().get()) : 0;
    source = policy.dialect();
    touchedStamp = stamp;
    if (stale) {
      stale = false;
      remaining = quota;
    }
  }

  /**
   * A probe of a long block succeeded: if this policy is what blocked (spent, or a zero quota),
   * what it said is no longer believed. It is unknown (stale) until the response's own values
   * replace it, and dropped if the response does not mention it.
   */
  void forgetIfBlocking() {
    if (stale || remaining == UNKNOWN || (remaining > 0 && quota != 0)) {
      return;
    }
    if (quota == 0) {
      quota = UNKNOWN;
    }
    remaining = UNKNOWN;
    hasReset = false;
    probeAtReset = false;
    unconfirmed = false;
    stale = true;
  }

  /**
   * Records that the request of {@code permit} was answered: if it was in flight when the count
   * we hold arrived, it no longer overlaps that count.
   */
  void answered(PermitImpl permit) {
    if (overlapUnits > 0 && permit.sendAtNanos <= valueReceivedNanos) {
      overlapUnits = Math.max(0, overlapUnits - permit.cost(unit));
    }
  }

  /**
   * Takes a count from a {@code RateLimit} item of the response to {@code permit}'s request,
   * received at {@code now}: {@code count} units left (capped), reset at {@code resetAtNanos}
   * (Long.MIN_VALUE if not said), while {@code inFlight} was in flight. A count from an earlier
   * window or older than the one held never replaces it; see docs/pacer.md.
   */
  void accept(PermitImpl permit, long count, long resetAt, int status, InFlight inFlight,
      String dialect, long stamp, long now) {
    touchedStamp = stamp;
    roll(now);
    long sent = permit.sendAtNanos;
    if (sent < epochStartNanos) {
      return; // from an earlier window: a late response must not resurrect a value
    }
    boolean known = !stale && remaining != UNKNOWN;
    if (known && sent <= valueReceivedNanos && !newWindow(resetAt)) {
      // Concurrent with the request whose count we hold: the server may have counted them in
      // either order (callers committed at the same instant, unequal network delays). Taking
      // the larger count would forget the requests it counted after this one, whose responses
      // already left the in-flight count: within a window only the smaller count is safe.
      if (count >= remaining) {
        return;
      }
      if (olderThanValue(permit)) {
        remaining = count;
        updatedAtNanos = now;
        return;
      }
    } else if (olderThanValue(permit)) {
      return; // older than what we know: a late response must not resurrect a value
    }
    // Counted after the request whose count we hold (sent strictly after that count arrived:
    // at one instant the order is unknown), and yet the count did not drop by its cost: the
    // server gave units back. Answered before the window can have reset, it refills
    // continuously; after that, this is most likely the next window's count (at a 1-second
    // window a whole-second "t" cannot tell them apart), and the reset comes with it.
    boolean rose = refill.reported != UNKNOWN && sent > valueReceivedNanos
        && permit.seq > valueSeq && count > refill.reported - permit.cost(unit);
    boolean next = rose && hasReset && now >= resetFloorNanos;
    if (rose && !next && !refill.refilling && !newWindow(resetAt)) {
      refill.refilling = true;
    }
    if (resetAt != Long.MIN_VALUE) {
      // "t" is whole seconds, rounded by the server: every response gives an upper bound of
      // the true reset. Within one window (remaining not going up) a later bound less than a
      // second after ours is rounding; keep the tighter one. Larger moves are the server's. A
      // reset carried over from an earlier window (unconfirmed) is only a guess: replaced.
      boolean sameWindow = !next && !unconfirmed && hasReset && resetAtNanos > now
          && remaining != UNKNOWN && count <= remaining;
      if (!(sameWindow && resetAt >= resetAtNanos
          && resetAt - resetAtNanos < ONE_SECOND_NANOS)) {
        resetAtNanos = resetAt;
      }
      resetFloorNanos = Time.sub(resetAt, Time.add(now - sent, ONE_SECOND_NANOS));
      hasReset = true;
    } else {
      hasReset = false;
    }
    if (refillPaced() && status < 400) {
      refill.admitted();
    }
    remaining = count;
    refill.counted(count, sent, now);
    valueSeq = permit.seq;
    valueSentNanos = sent;
    valueReceivedNanos = now;
    overlapUnits = inFlight.units(unit);
    stale = false;
    unconfirmed = false;
    probeAtReset = false;
    source = dialect;
    updatedAtNanos = now;
  }

  /**
   * Records a response to {@code permit}'s request that did not mention this policy (servers
   * need not repeat themselves): it still spent a unit, unless the server had counted it in the
   * value we hold. Returns whether the policy is gone: probed, and the server no longer speaks
   * of it.
   */
  boolean unmentioned(PermitImpl permit, long now) {
    roll(now);
    if (stale) {
      return permit.sendAtNanos >= epochStartNanos;
    }
    if (remaining != UNKNOWN && unit != QuotaUnit.CONCURRENT_REQUESTS
        && permit.sendAtNanos >= valueSentNanos) {
      remaining = Math.max(0, remaining - permit.cost(unit));
      unconfirmed = false; // a response of the new window, silent about it
    }
    return false;
  }

  /**
   * Records a throttled response whose {@code Retry-After} ({@code retryNanos}, ending at
   * {@code untilNanos}) takes precedence over the reset (draft section 7): a spent policy whose
   * reset lies beyond it is looked at again when it ends, and then only probed (the server did
   * not say how much is back: section 4.1.2, a client MUST NOT assume all of it).
   */
  void retryAfter(long retryNanos, long untilNanos, long sentNanos, long now) {
    if (stale || remaining != 0 || !hasReset) {
      return;
    }
    long toReset = Time.sub(resetAtNanos, now);
    if (quota > 0 && windowNanos > 0) {
      // A unit back much sooner than the reset: the server refills continuously (a sliding
      // window's "t" is when the whole quota is back). One back about at the reset: it does
      // not, whatever we thought.
      if (Time.add(Time.mul(retryNanos, 2), 2 * ONE_SECOND_NANOS) < toReset) {
        if (refill.refilling) {
          refill.throttled(sentNanos, now);
        }
        refill.refilling = true;
        return;
      }
      refill.refilling = false;
    }
    if (resetAtNanos > untilNanos) {
      resetAtNanos = untilNanos;
      probeAtReset = true;
    }
  }

  /**
   * Whether a response's reset ({@code resetAt}, or Long.MIN_VALUE if none) starts a window
   * after the one the value belongs to: later by more than the second of rounding and by at
   * least half the window.
   */
  private boolean newWindow(long resetAt) {
    if (!hasReset || resetAt == Long.MIN_VALUE) {
      return false;
    }
    long moved = Time.sub(resetAt, resetAtNanos);
    return moved > ONE_SECOND_NANOS && moved >= windowNanos / 2;
  }

  /**
   * Whether the permit's request was sent before the one whose response set the value. Ordered
   * by send time, then by commit order: a reservation is committed early but sent late.
   */
  private boolean olderThanValue(PermitImpl permit) {
    return permit.sendAtNanos < valueSentNanos
        || (permit.sendAtNanos == valueSentNanos && permit.seq < valueSeq);
  }
}
