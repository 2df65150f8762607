package dev.headway.internal.pacer;

import dev.headway.RateLimitSignal;
import dev.headway.store.Lease;
import dev.headway.store.QuotaKey;
import dev.headway.store.RefillRate;
import dev.headway.store.ServerCount;
import dev.headway.store.SharedQuota;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * One partition's share of a fleet's quota, through the engine's {@link Fleet}: the units this
 * instance leased and has not spent yet, the one lease request in flight, and what the store
 * said last (a refusal, a hold). Admission spends leased units with no round trip and asks for
 * more in the background when few are left; a request finding none waits for the lease in
 * flight, never past its deadline; a refusal waits for the reset or the hold's end. When the
 * store does not answer, the partition is paced locally, as without a store; so it is while the
 * store's answers have shown no other instance for a second (alone, the fleet is this
 * instance), except that a server count saying the window is spent still holds it. Responses
 * feed the store: every count ({@code observe}), every throttled response ({@code hold}).
 *
 * <p>State is guarded by the partition's monitor; store answers take it when they arrive.
 */
final class SharedBudget {
  /**
   * Whether this instance paces {@code partition}'s counts alone: no store is configured, its key
   * cannot be shared, or the store has shown no other instance using it, yet ({@link
   * FleetReport#noOtherYet}) or for a while ({@link FleetReport#alone}).
   * A sub-partition, whose share is its base's, is taken as shared when a store is configured.
   */
  static boolean pacesAlone(Settings settings, Partition partition) {
    SharedBudget shared = partition.shared;
    return !settings.fleet || (shared != null
        && (shared == NONE || shared.report == null || shared.report.noOtherYet()
        || shared.report.alone()));
  }

  /** Marks a partition whose key cannot be shared (paced locally). */
  static final SharedBudget NONE = new SharedBudget(null, null, null);
  /** Leased units are given back this long before the lease ends. */
  private static final long RELEASE_MARGIN_NANOS = 20_000_000L;
  /** A caller waiting for a lease in flight looks again this often. */
  private static final long POLL_NANOS = 1_000_000L;
  /** Without a reset, a refused instance asks again after this. */
  private static final long REFUSED_RETRY_NANOS = 250_000_000L;
  /** At first contact, a refused instance asks again at most this long after (probe's count). */
  private static final long PROBE_POLL_NANOS = 50_000_000L;
  /** ... and at least this long after. */
  private static final long PROBE_POLL_MIN_NANOS = 5_000_000L;
  private static final long SECOND = 1_000_000_000L;
  /** A hold read back within this of the one a check disproved is that one (clocks, rounding). */
  private static final Duration LIFT_SLACK = Duration.ofSeconds(1);
  private static final long LIFT_SLACK_NANOS = LIFT_SLACK.toNanos();
  private static final long MAX_WANTED = 1_000;
  /** The longest a lease read from a store is kept (stores lend for about a second). */
  private static final long MAX_LEASE_NANOS = 60 * SECOND;

  private final @Nullable Fleet fleet;
  private final @Nullable Partition partition;
  private final @Nullable QuotaKey key;
  /** Leases with units left, oldest first (at most a few). */
  private final List<HeldLease> held = new ArrayList<>(2);
  private boolean requesting;
  private long requestedAtNanos;
  /**
   * Whether the store's last lease answer lent this instance the fleet's last units of the
   * server's count (nothing left for another request then).
   */
  private boolean lentTheLast;
  /**
   * Units sent without a lease while the lease in flight was on its way (callers that could wait
   * for it no longer), and the latest time one is sent at (a permit committed to go later may be
   * reported before one going now): the lease, when it comes, lent them.
   */
  private long sentAhead;
  private long sentAheadAt;
  /** Units let go on their own, their callers' waits ended, since the lease was asked for. */
  private long letAhead;
  /** A lease came back empty: no units until this, unless a fresher lease says otherwise. */
  private long refusedUntilNanos = Long.MIN_VALUE;
  /** Units spent in the current and the previous second, to size leases. */
  private long bucketStartNanos = Long.MIN_VALUE;
  private long spentNow;
  private long spentBefore;
  /** The round trip of the last answer read, to close leases before their answers are late. */
  private long roundTripNanos;
  /** What responses tell the fleet. */
  private final @Nullable FleetReport report;
  /** The units the lease in flight was asked for at least; refusals so far (to spread asks). */
  private long requestedUnits;
  private long refusals;
  /** A hold read from the store past the cap, and when this instance ends it. */
  private @Nullable Instant overCapHold;
  private long overCapEndNanos;
  /**
   * The end of the hold this instance took from the store's answers (engine time), and the end
   * of the latest one its own throttled responses set; Long.MIN_VALUE if none.
   */
  private long adoptedHoldNanos = Long.MIN_VALUE;
  private long ownHoldNanos = Long.MIN_VALUE;
  /** When this instance last read the store's hold while held past maxWait (engine time). */
  private long holdReadNanos = Long.MIN_VALUE;
  /** The end of the fleet's hold a successful check disproved (the store's), or null. */
  private @Nullable Instant liftedHold;
  /** The last lease was refused by a server's count (its window spent), not by a guess. */
  private boolean spentByCount;
  /** The last lease was refused at first contact: another instance's probe is out. */
  private boolean probing;
  /** When this instance last read a store answer (engine time). */
  private long answeredNanos = Long.MIN_VALUE;
  /**
   * When the fleet's first bound last let this instance's next request go (engine time), or
   * {@code Long.MIN_VALUE} once it went: it goes on a store answer read since (see
   * {@link #earliest}).
   */
  private long rampLetGoNanos = Long.MIN_VALUE;
  /**
   * The instances the store's answers showed while the fleet coordinated (the most since, while
   * it does not), and when an answer last showed that many: an outage's shares are of this many,
   * whatever a store that came back says (see {@link #fleetSize}).
   */
  private int sharers = 1;
  private long sharersSeenNanos = Long.MIN_VALUE;
  /**
   * Send times of this instance's requests lent from a lease and not answered yet (how many per
   * time): the server may not have counted them yet, whatever count comes back first.
   */
  private final java.util.TreeMap<Long, Integer> unanswered = new java.util.TreeMap<>();
  /** A request unanswered this long is forgotten (it failed without a word). */
  private static final long UNANSWERED_NANOS = Fleet.STUCK_NANOS;

  SharedBudget(@Nullable Fleet fleet, @Nullable Partition partition, @Nullable QuotaKey key) {
    this.fleet = fleet;
    this.partition = partition;
    this.key = key;
    this.report = fleet == null ? null : new FleetReport(fleet, partition, key, this);
  }

  /**
   * Returns the earliest time, not before {@code notBefore}, at which this instance holds
   * {@code cost} units of the fleet's budget: {@code notBefore} when it holds them (or the store
   * does not answer), a time to look again while a lease is on its way or after a refusal.
   * Under the partition's monitor.
   */
  long earliest(Evaluation ev, long cost, long now, long notBefore, long deadline) {
    Fleet f = fleet;
    if (f == null || cost <= 0) {
      return notBefore;
    }
    if (requesting && Time.sub(now, requestedAtNanos) > Fleet.STUCK_NANOS) {
      requesting = false;
      f.failed(new java.util.concurrent.TimeoutException("no answer in 2 s"), now);
    }
    dropEnding(now);
    if (report.ramp.active() && f.coordinating(now) && report.instances() > 1) {
      // A server that has said nothing of its limits: the fleet keeps one instance's bound on
      // requests in flight, each instance its share (FleetRamp).
      long rampAt = report.ramp.earliest(partition.inFlight.permits(), report.instances(),
          f.settings.probes, roundTripNanos, f.settings.jitter, now);
      if (rampAt > notBefore) {
        return ev.lookAgainAt(rampAt,
            "its share of the fleet's requests in flight to a server that said nothing yet");
      }
      // The request goes on what the store says once the bound let it go, not on a unit the
      // store lent before: another instance's 429 meanwhile holds the fleet (the hold is in the
      // store, and a lease lent earlier does not carry it). Waiting its turn under the bound, an
      // instance may hold a unit lent a second before; 50 instances sent 37 requests into a
      // bucket the first 429 had shown spent, each refused.
      if (rampLetGoNanos == Long.MIN_VALUE) {
        rampLetGoNanos = now;
      }
      if (answeredNanos < rampLetGoNanos && f.healthy() && now < deadline) {
        request(cost, now);
        if (answeredNanos < rampLetGoNanos && f.healthy()) {
          return ev.lookAgainAt(Math.max(notBefore, Math.min(Time.add(now, POLL_NANOS),
              deadline)), "the store's word before a request to a server that said nothing yet");
        }
        if (partition.hold.untilNanos() > notBefore) {
          return ev.lookAgainAt(partition.hold.untilNanos(), "the fleet's hold");
        }
      }
    }
    long at = leased(ev, cost, now, notBefore, deadline);
    int n = fleetSize(now);
    if (at == notBefore && !f.coordinating(now) && n > 1) {
      // The store is down (or just back): this instance spends only its share of the server's
      // counts, which every instance reads as its own.
      long shareAt = report.share.earliest(cost, notBefore, n);
      if (shareAt > notBefore && shareAt != Long.MAX_VALUE) {
        return ev.lookAgainAt(shareAt, "its share of the fleet's quota (store unavailable)");
      }
    }
    return at;
  }

  /** As {@link #earliest}, by the leases alone. */
  private long leased(Evaluation ev, long cost, long now, long notBefore, long deadline) {
    Fleet f = fleet;
    long left = left(notBefore);
    if (left >= cost) {
      if (left - cost < wanted(now) / 2 && wanted(now) > 1) {
        request(cost, now);
      }
      return notBefore;
    }
    if (aloneGoes()) {
      // The fleet is this instance: it paces locally (as without a store), leasing in the
      // background.
      if (!requesting && now >= refusedUntilNanos) {
        request(cost, now);
      }
      return notBefore;
    }
    if (!f.healthy()) {
      // Pace locally; ask the store again in the background now and then.
      if (f.mayRetry(now)) {
        request(cost, now);
      }
      return notBefore;
    }
    if (notBefore > Time.add(now, POLL_NANOS)) {
      if (Time.sub(partition.hold.untilNanos(), now) > f.settings.maxWaitNanos) {
        // Held past maxWait: the hold is checked by each instance that holds it, wherever it
        // learned it (LongBlocks), as without a store; the store refuses every lease until the
        // hold ends, so a unit of the fleet's budget for the check would never come. Reading
        // the store's hold now and then, this instance is released by another's check.
        if (f.healthy()) {
          readHold(now);
        }
        return notBefore;
      }
      if (Time.sub(notBefore, now) > f.settings.maxWaitNanos) {
        // Blocked past maxWait here: the check of the block is the fleet's to send, with a unit
        // of its budget (one instance's answer holds them all), never from every instance.
        if (left(now) < cost && !report.alone()) {
          ev.declaredBlocks = true;
          if (!requesting && now >= refusedUntilNanos) {
            request(cost, now);
          }
        }
        return notBefore;
      }
      if (report.noOtherYet()) {
        // No other instance seen yet: the request is committed now to go later, as without a
        // store (looking again then would change the local pacing: its rate learned by then).
        return notBefore;
      }
      // The request goes later: take the units then, from a lease still open when it is sent.
      return ev.lookAgainAt(notBefore);
    }
    if (!requesting) {
      if (now < refusedUntilNanos) {
        if (aloneGoes() || (probing && Math.max(notBefore, refusedUntilNanos) >= deadline)) {
          // Alone; or another instance's probe is out at first contact and this caller can wait
          // no longer: it goes on its own, paced locally, rather than fail for a courtesy.
          return notBefore;
        }
        return ev.lookAgainAt(Math.max(notBefore, refusedUntilNanos));
      }
      request(cost, now);
      if (left(notBefore) >= cost || !f.healthy() || aloneGoes()) {
        return notBefore; // answered at once
      }
      if (!requesting) {
        return ev.lookAgainAt(Math.max(notBefore, Math.max(refusedUntilNanos,
            Time.add(now, POLL_NANOS))));
      }
    }
    if (aloneGoes()) {
      return notBefore; // alone, no lease answer is waited for: it paces locally meanwhile
    }
    if (now >= deadline && refusedUntilNanos == Long.MIN_VALUE && !lentTheLast) {
      // The store is too slow for this caller: it goes, paced locally (but not if the store
      // last said the fleet has nothing left, refusing a lease or lending its last units to
      // another caller here: then it is refused as a local policy would; its own count, older,
      // may say the window has units left. A caller that waited its whole maxWait for the fleet
      // reaches its end as another caller's lease request goes out, and went into a spent
      // GCRA: FleetDeadlineTest).
      // Its units are the first of the lease on its way, if it is of the server's count (the
      // fleet's own budget paces such callers apart).
      if (requesting && report.leaseKey().equals(key)) {
        letAhead = Time.add(letAhead, cost);
      }
      return notBefore;
    }
    long poll = Time.add(now, POLL_NANOS);
    return ev.lookAgainAt(Math.max(notBefore, now < deadline ? Math.min(poll, deadline) : poll));
  }

  /**
   * Whether a refusal lets this instance go anyway: the store sees no other instance using the
   * key, so the fleet is this instance, which paces as it would without a store; only a server
   * count saying the window is spent holds it (another instance, idle since it spent the window,
   * may have left the store's heartbeat). Its leases go on in the background, so that the first
   * other instance finds the quota shared.
   */
  private boolean aloneGoes() {
    return report.alone() && !spentByCount
        && (sharers <= 1 || fleet.coordinating(fleet.settings.ticker.read()));
  }

  /**
   * The instances this instance's shares are of: those the store's last answer showed, or while
   * the fleet does not coordinate (an outage, the time after it), at least as many as it showed
   * before. A store that comes back after a failover may be a replica that had none of the
   * fleet's last writes: its first answers show only the instances that called it since, and
   * an instance that took them for the whole fleet took the whole quota while the others kept
   * to their shares of it.
   */
  private int fleetSize(long now) {
    int n = report.instances();
    return fleet.coordinating(now) ? n : Math.max(n, sharers);
  }

  /**
   * Reads the instances a store answer at {@code now} showed. Fewer than an answer showed less
   * than {@link Fleet#FORGOTTEN_NANOS} before, and no count, while the fleet coordinates, means
   * the store forgot the fleet (a failover to a replica that lagged, a restart): this instance
   * may not have called the store while it was down (it was waiting out a window), and the
   * others, who did, keep to their shares of the server's counts for a while. So does this one,
   * as after an outage as long as the time since it last saw them all ({@link Fleet#forgot}).
   * Under the monitor.
   */
  private void seen(SharedQuota state, long now) {
    Fleet f = fleet;
    if (!state.key().equals(key)) {
      return; // the fleet's own budget's key: its instances are counted apart
    }
    int n = Math.max(1, state.instances());
    boolean coordinating = f.coordinating(now);
    if (coordinating && n < sharers && state.count().isEmpty()
        && sharersSeenNanos != Long.MIN_VALUE
        && Time.sub(now, sharersSeenNanos) < Fleet.FORGOTTEN_NANOS) {
      f.forgot(Time.sub(now, sharersSeenNanos), now);
      return;
    }
    if (coordinating || n >= sharers) {
      sharers = n;
      sharersSeenNanos = now;
    }
  }

  /**
   * Spends the units of a committed permit; returns the lease they came from, if any. Under the
   * partition's monitor.
   */
  @Nullable Lease spend(long cost, long now, long sendAt) {
    if (fleet == null || cost <= 0) {
      return null;
    }
    if (bucketStartNanos == Long.MIN_VALUE || Time.sub(now, bucketStartNanos) >= SECOND) {
      spentBefore = Time.sub(now, bucketStartNanos) >= 2 * SECOND ? 0 : spentNow;
      spentNow = 0;
      bucketStartNanos = now;
    }
    spentNow = Time.add(spentNow, cost);
    report.share.sent(cost, sendAt);
    report.ramp.sent(sendAt);
    rampLetGoNanos = Long.MIN_VALUE;
    long need = cost;
    Lease from = null;
    for (int i = 0; i < held.size() && need > 0; i++) {
      HeldLease h = held.get(i);
      long take = h.closeNanos > sendAt ? Math.min(need, h.left) : 0;
      if (take > 0 && from == null) {
        from = h.lease;
      }
      h.sent(take, sendAt);
      need -= take;
      if (take > 0 && h.lease.key().equals(report.guessKey())) {
        // The fleet's own budget is a bucket of a unit or two that no server count ever
        // settles: units sent leave its leases at once (the store counts them against the
        // bucket from their send), or one instance's lease would hold the whole bucket until
        // it ends.
        fleet.spent(h.lease, h.untold(), fleet.instant(h.lastSent(), now), now);
        h.told();
      }
    }
    if (from != null) {
      unanswered.merge(sendAt, 1, Integer::sum);
    } else if (need > 0 && letAhead > 0 && requesting) {
      // A caller that could wait for the lease on its way no longer went on its own: that
      // lease, when it comes, lent its units (else the fleet would send them twice).
      long ahead = Math.min(need, letAhead);
      letAhead -= ahead;
      sentAheadAt = sentAhead == 0 || sendAt - sentAheadAt > 0 ? sendAt : sentAheadAt;
      sentAhead = Time.add(sentAhead, ahead);
    }
    // Spent leases stay held until they end: their units sent are told to the store then, or
    // with a count that holds them (observed).
    return from;
  }

  /**
   * Gives back the units of a committed permit that was never sent to the lease they came from,
   * if this instance still holds it, else to the store (a rare round trip: cancellations).
   * Under the monitor.
   */
  void refund(Lease lease, long cost, long now) {
    if (fleet == null || cost <= 0) {
      return;
    }
    for (int i = 0; i < held.size(); i++) {
      HeldLease h = held.get(i);
      if (h.lease == lease) {
        if (h.untilNanos > now) {
          h.unsent(cost);
        }
        return;
      }
    }
    if (valid(lease, now)) {
      fleet.release(lease, cost, now);
    }
  }

  /** A request lent from {@code lease}, to be sent at {@code sendAt}, ends without an answer. */
  void unanswered(Lease lease, long sendAt, long now) {
    if (fleet != null) {
      answered(lease, sendAt, now);
    }
  }

  /** Whether units may still go back to {@code lease} at {@code now}. */
  private boolean valid(Lease lease, long now) {
    return fleet.nanos(lease.validUntil(), now) > now;
  }

  /** Units this instance holds in leases still open at {@code sendAt}. */
  long left(long sendAt) {
    long sum = 0;
    for (int i = 0; i < held.size(); i++) {
      HeldLease h = held.get(i);
      if (h.closeNanos > sendAt) {
        sum = Time.add(sum, h.left);
      }
    }
    return sum;
  }

  /** Units wanted per lease: about what this instance spent in a second. */
  private long wanted(long now) {
    if (bucketStartNanos == Long.MIN_VALUE || Time.sub(now, bucketStartNanos) >= 2 * SECOND) {
      return 1;
    }
    return Math.max(1, Math.min(MAX_WANTED, Math.max(spentNow, spentBefore)));
  }

  /** Gives back the units of leases about to close, and tells and forgets ended ones. */
  private void dropEnding(long now) {
    QuotaKey current = report.leaseKey();
    for (int i = held.size() - 1; i >= 0; i--) {
      HeldLease h = held.get(i);
      if (!h.lease.key().equals(current)) {
        // Leased from the other budget (the server started or stopped giving counts).
        held.remove(i);
        h.cancelTimers();
        if (h.untilNanos > now) {
          giveBack(h, now);
        }
      } else if (h.left == 0 && h.untold() == 0) {
        // Spent, and every unit told (a count holds them): nothing left to give back or tell.
        // Dropped now rather than at its end, so that the leases held (scanned on every
        // admission) and their timers grow with the units in flight, not with throughput
        // times the lease's duration.
        held.remove(i);
        h.cancelTimers();
      } else {
        settle(h, now);
      }
    }
  }

  /**
   * Gives back the units {@code h} has left once it closes, and tells the store its units sent
   * once it is about to end (then forgets it). Under the monitor.
   */
  private void settle(HeldLease h, long now) {
    if (Time.add(now, RELEASE_MARGIN_NANOS) >= h.untilNanos) {
      if (held.remove(h)) {
        h.cancelTimers();
        if (h.untilNanos > now) {
          giveBack(h, now);
        }
      }
    } else if (now >= h.closeNanos && h.left > 0) {
      fleet.release(h.lease, h.left, now);
      h.left = 0;
    }
  }

  /**
   * Returns when {@code h} stops lending units: two round trips (and the margin) before it ends,
   * so that the answers to its last units, which say the server counted them, come back while
   * the store still keeps the lease; at most half way through it.
   */
  private long closeAt(long untilNanos, long now) {
    long margin = Time.add(RELEASE_MARGIN_NANOS, Time.add(roundTripNanos, roundTripNanos));
    return Time.sub(untilNanos, Math.min(margin, Math.max(0, Time.sub(untilNanos, now)) / 2));
  }

  /**
   * Gives the unspent units of {@code h} back when it closes, and tells the units it sent
   * shortly before it ends, even when no request asks meanwhile: units a lease took stay
   * subtracted from the fleet's count until they come back (or a newer count arrives), so a
   * lease left to lapse would hold the fleet back. The timers are cancelled when the lease is
   * dropped ({@link HeldLease#cancelTimers}).
   */
  private void returnBeforeEnd(HeldLease h, long now) {
    Fleet f = fleet;
    Runnable settle = () -> {
      long at = f.settings.ticker.read();
      synchronized (partition) {
        settle(h, at);
      }
    };
    try {
      h.timers(f.settings.scheduler.schedule(settle,
              java.time.Duration.ofNanos(Math.max(0, Time.sub(h.closeNanos, now)))),
          f.settings.scheduler.schedule(settle, java.time.Duration.ofNanos(
              Math.max(0, Time.sub(Time.sub(h.untilNanos, RELEASE_MARGIN_NANOS), now)))));
    } catch (RuntimeException e) {
      // A scheduler that refuses (closed): the units come back when the lease is next looked at.
    }
  }

  /** Tells the store the units of {@code h} sent, and gives back those left. */
  private void giveBack(HeldLease h, long now) {
    long untold = h.untold();
    if (untold > 0) {
      fleet.spent(h.lease, untold, fleet.instant(countableFrom(h, now), now), now);
      h.told();
    }
    if (h.left > 0) {
      fleet.release(h.lease, h.left, now);
    }
  }

  /**
   * Returns the engine time from which every count holds the units of {@code h} not told yet: a
   * unit is surely counted only once the server received it, which a later send of another
   * request does not show (a request on a new connection, from a JVM just started, reaches the
   * server after requests sent after it). So it is the latest answer to them, or {@code now}
   * while one of them is unanswered, and never before the last was sent.
   */
  private long countableFrom(HeldLease h, long now) {
    long last = h.lastSent();
    Long oldest = oldestUnanswered(now);
    if (oldest != null && oldest <= last) {
      return now;
    }
    return h.answeredNanos == Long.MIN_VALUE ? last : Math.max(last, h.answeredNanos);
  }

  /**
   * Returns the engine time up to which a count carried by a response to a request sent at
   * {@code sentNanos} holds this instance's units: the count's own instant, but before the
   * oldest request of this instance not answered yet (the server may receive it after the one
   * that carried the count). Under the monitor.
   */
  long countedUpTo(long countedUpTo, long now) {
    Long oldest = oldestUnanswered(now);
    return oldest == null ? countedUpTo : Math.min(countedUpTo, Time.sub(oldest, 1));
  }

  private @Nullable Long oldestUnanswered(long now) {
    while (!unanswered.isEmpty()
        && Time.sub(now, unanswered.firstKey()) > UNANSWERED_NANOS) {
      unanswered.pollFirstEntry();
    }
    return unanswered.isEmpty() ? null : unanswered.firstKey();
  }

  /** A request lent from {@code lease} sent at {@code sentNanos} was answered (or dropped). */
  private void answered(@Nullable Lease lease, long sentNanos, long now) {
    if (lease == null) {
      return;
    }
    if (sentNanos != Long.MIN_VALUE) {
      unanswered.computeIfPresent(sentNanos, (k, n) -> n > 1 ? n - 1 : null);
    }
    for (int i = 0; i < held.size(); i++) {
      HeldLease h = held.get(i);
      if (h.lease == lease) {
        h.answeredNanos = Math.max(h.answeredNanos, now);
      }
    }
  }

  /** Starts a lease request in the background unless one is in flight. Under the monitor. */
  private void request(long cost, long now) {
    Fleet f = fleet;
    if (requesting) {
      return;
    }
    requesting = true;
    requestedAtNanos = now;
    requestedUnits = cost;
    long max = Math.max(cost, wanted(now));
    try {
      f.store.lease(report.leaseKey(), cost, max).whenComplete((lease, e) -> leased(lease, e));
    } catch (RuntimeException e) {
      leased(null, e);
    }
  }

  /** A lease answer arrived (or failed). */
  private void leased(@Nullable Lease lease, @Nullable Throwable error) {
    Fleet f = fleet;
    Partition p = partition;
    long now = f.settings.ticker.read();
    synchronized (p) {
      requesting = false;
      lentTheLast = false;
      long ahead = sentAhead;
      sentAhead = 0;
      letAhead = 0;
      if (error != null || lease == null) {
        f.failed(error != null ? error : new IllegalStateException("no lease"), now);
        return;
      }
      f.answered();
      report.leased(lease, now);
      if (lease.key().equals(key)) {
        report.share.read(lease.state(), Time.add(left(now), lease.granted()), now, f);
      }
      if (lease.granted() > 0) {
        // Leases last about a second; one a store says lasts longer ends at the cap.
        long until = Math.min(f.nanos(lease.validUntil(), now), Time.add(now, MAX_LEASE_NANOS));
        HeldLease h = new HeldLease(lease, lease.granted(), until, closeAt(until, now));
        held.add(h);
        if (ahead > 0 && lease.key().equals(key)) {
          // Units sent while this lease was on its way are its first: the store lent them.
          h.sent(Math.min(ahead, h.left), sentAheadAt);
        }
        refusedUntilNanos = Long.MIN_VALUE;
        spentByCount = false;
        lentTheLast = lease.key().equals(key) && lease.state().available(
            f.settings.wallClock.instant()).orElse(Long.MAX_VALUE) < requestedUnits;
        if (probing && lease.state().count().isEmpty() && lease.state().holdUntil().isEmpty()
            && lease.state().refillRate().isEmpty()) {
          // Refused while another instance's probe of first contact was out, lent now with no
          // count, hold or rate in the store: the probe was admitted without a number. The
          // fleet's bound starts here, not after this instance's own probes (FleetRamp).
          report.ramp.fleetProbed(now);
        }
        probing = false;
        returnBeforeEnd(h, now);
      } else {
        refusedUntilNanos = Time.add(now, REFUSED_RETRY_NANOS);
        Optional<ServerCount> count = lease.state().count();
        Optional<RefillRate> rate = lease.state().refillRate();
        Instant refilled = rate.isPresent() && !f.plausibleLearnedAt(rate.get().learnedAt())
            ? null : FleetRate.retryAt(lease.state(), requestedUnits, refusals++);
        // The server's own count, not less the units leased since (this instance's own, when
        // it is alone), and not one this instance's own responses carried (or older): its local
        // pacing knows that count and what the server does after it (a sliding window gives
        // units back before the reset it announced).
        spentByCount = refilled == null && !lease.key().equals(report.guessKey())
            && count.isPresent() && count.get().remaining() < requestedUnits
            && !report.ownOrOlder(count.get());
        probing = count.isEmpty() && !lease.state().heldAt(f.settings.wallClock.instant());
        if (refilled != null) {
          // A refilling server: ask again once the rate has given the units back (at most the
          // Retry-After cap away, whatever rate the store holds). The store counts the refill
          // from the count's instant, which is before the request was sent by the allowance for
          // requests overtaking each other (and rounded down to the millisecond), while the
          // server counted it after: asked that much later, a unit the store gives back is back
          // at the server too (else, each count a little early, the fleet drifted ahead of a
          // server at its limit by that allowance a unit, and drew a 429 every few hundred).
          long lag = Time.add(Math.min(FleetCount.MAX_OVERTAKE_NANOS, roundTripNanos / 4),
              1_000_000L);
          if (lease.key().equals(report.guessKey())) {
            // The fleet's own budget holds two units: a lag longer than they take to come back
            // left every refused instance asking together, late, for two units (a budget of
            // 1,000 a second lent 55, 300 ms from the server).
            lag = Math.min(lag, FleetRate.refillNanos(rate.get(), FleetGuess.BURST));
          }
          long back = f.nanos(refilled, now);
          long told = told(lease, now);
          if (told != Long.MIN_VALUE && !lease.key().equals(report.guessKey())
              && !lease.state().heldAt(f.settings.wallClock.instant())) {
            // The store said this instance's turn: when the units are back for it, after the
            // instances it refused before (one refill each), rather than every refused instance
            // at once for each unit. Not for the fleet's own budget: a guess that its 429s and
            // refusals tune (told turns there drew more 429s and lost goodput).
            back = told;
          }
          refusedUntilNanos = Math.max(Time.add(now, POLL_NANOS),
              Math.min(Time.add(back, lag), f.capped(now)));
        } else if (!lease.state().heldAt(f.settings.wallClock.instant())
            && lease.state().available().orElse(0) >= requestedUnits) {
          // A new window the store assumed: its probes are out, the first count is on its way
          // (within a round trip; never later than a refusal without a reset looks again). Or
          // the store holds the probes back until the quota per window has given them back,
          // and says when.
          long told = lease.key().equals(report.guessKey()) ? Long.MIN_VALUE : told(lease, now);
          refusedUntilNanos = told != Long.MIN_VALUE ? told : Time.add(now,
              Math.min(REFUSED_RETRY_NANOS, Math.max(POLL_NANOS, roundTripNanos)));
        } else if (probing) {
          // First contact: another instance's probe is out, its count on its way (a round trip
          // to the server away, unknown yet): asked again soon (a few store round trips, at
          // most 50 ms), at the latest when the probe ends.
          long storeTrip = Math.max(0, Time.sub(now, requestedAtNanos));
          long poll = Math.min(PROBE_POLL_NANOS, Math.max(PROBE_POLL_MIN_NANOS, 4 * storeTrip));
          refusedUntilNanos = Math.max(Time.add(now, POLL_NANOS),
              Math.min(Time.add(now, poll), f.nanos(lease.validUntil(), now)));
        } else if (count.isPresent() && count.get().resetAt().isPresent()) {
          refusedUntilNanos = Math.min(refusedUntilNanos,
              Math.max(Time.add(now, POLL_NANOS), f.nanos(count.get().resetAt().get(), now)));
          long said = Math.min(f.nanos(lease.validUntil(), now), f.capped(now));
          if (count.get().remaining() < requestedUnits && said > refusedUntilNanos
              && lease.state().holdUntil().isEmpty()) {
            // The store says only the reset lends a unit (a spent count of a window the server
            // gives back whole, no rate): asked again then, at a random moment in the 250 ms
            // before it as the fleet's polls came, not every 250 ms meanwhile (50 instances
            // made about 100 store round trips per admitted request against a fixed window of
            // 100 a minute).
            refusedUntilNanos = Time.sub(said, now) > REFUSED_RETRY_NANOS
                ? Time.sub(said, f.settings.jitter.below(REFUSED_RETRY_NANOS)) : said;
          }
        }
      }
      adoptHold(lease.state(), now);
    }
  }

  /**
   * Returns when a refusal {@code lease} says to ask again (engine time): its {@code validUntil},
   * if after {@code now}, at most {@code maxWait} away (a turn told by a store this instance no
   * longer hears from, or one that comes back early, does not stall it longer); else
   * {@code Long.MIN_VALUE} (the store cannot tell).
   */
  private long told(Lease lease, long now) {
    long at = fleet.nanos(lease.validUntil(), now);
    return at > now ? Math.min(at, Time.add(now, fleet.settings.maxWaitNanos)) : Long.MIN_VALUE;
  }

  /**
   * Holds the partition locally while the fleet is held, for at most the {@code Retry-After} cap
   * ({@link dev.headway.SanityCaps#maxRetryAfter()}, a day by default): a hold read back from a
   * store passes the cap a server's own gets, whatever store wrote it. Under the monitor.
   */
  void adoptHold(SharedQuota state, long now) {
    Fleet f = fleet;
    answeredNanos = now;
    seen(state, now);
    if (state.holdUntil().isPresent() || state.count().isPresent()
        || state.refillRate().isPresent()) {
      // The fleet was held, or knows a count or a rate: the server said it limits.
      report.ramp.held();
    }
    Instant wall = f.settings.wallClock.instant();
    boolean held = state.heldAt(wall) && !lifted(state.holdUntil().get());
    long until = held ? cappedHold(state.holdUntil().get(), now) : Long.MIN_VALUE;
    long local = partition.hold.untilNanos();
    if (state.key().equals(key) && adoptedHoldNanos == local
        && Time.sub(local, now) > f.settings.maxWaitNanos
        && Time.sub(local, ownHoldNanos) > LIFT_SLACK_NANOS
        && Time.sub(local, until) > LIFT_SLACK_NANOS) {
      // The hold past maxWait this instance holds is the one it took from the store, and the
      // store no longer holds it (another instance's check lifted it, or it ends sooner now):
      // nor does this instance, as an instance started now would not. Its own 429's hold stays
      // its own; a shorter hold ends by itself.
      partition.hold.lift(now, now, f.settings.maxWaitNanos);
      partition.longBlocks.ended();
      refusedUntilNanos = Long.MIN_VALUE;
      adoptedHoldNanos = Long.MIN_VALUE;
    }
    if (held) {
      if (until > partition.hold.untilNanos()) {
        partition.hold.holdFor(now, Time.sub(until, now), false, f.settings.probes);
        adoptedHoldNanos = partition.hold.untilNanos();
      }
      refusedUntilNanos = Math.max(refusedUntilNanos, until);
    }
  }

  /** Reads the store's hold, at most every {@link #REFUSED_RETRY_NANOS}. Under the monitor. */
  private void readHold(long now) {
    if (holdReadNanos != Long.MIN_VALUE && Time.sub(now, holdReadNanos) < REFUSED_RETRY_NANOS) {
      return;
    }
    holdReadNanos = now;
    report.readHold(now);
  }

  /**
   * The server admitted this instance's check of a hold ending at {@code untilNanos}: the
   * fleet's hold is over. The store is told, and an answer still carrying that hold (sent
   * before the store heard) does not hold this instance again. Under the monitor.
   */
  void lifted(long untilNanos, long now) {
    Fleet f = fleet;
    if (f == null) {
      return;
    }
    // The hold as the store wrote it: past the cap, the one this instance capped.
    Instant until = overCapHold != null ? overCapHold : f.instant(untilNanos, now);
    liftedHold = until;
    overCapHold = null;
    refusedUntilNanos = Long.MIN_VALUE;
    report.lifted(until, now);
  }

  /** Whether a hold ending at {@code holdUntil} is the one a successful check disproved. */
  private boolean lifted(Instant holdUntil) {
    Instant l = liftedHold;
    return l != null && Duration.between(l, holdUntil).abs().compareTo(LIFT_SLACK) <= 0;
  }

  /**
   * Returns the engine time a hold until {@code holdUntil} read from the store ends: itself, or
   * past the cap, the cap counted from the first answer that carried it (a store answering the
   * same absurd hold again does not hold the fleet for ever, the cap at a time).
   */
  private long cappedHold(Instant holdUntil, long now) {
    long until = fleet.nanos(holdUntil, now);
    long cap = fleet.capped(now);
    if (until <= cap) {
      return until;
    }
    if (!holdUntil.equals(overCapHold)) {
      overCapHold = holdUntil;
      overCapEndNanos = cap;
    }
    return overCapEndNanos;
  }

  /**
   * Tells the fleet what a response said ({@link FleetReport}). Under the partition's monitor.
   */
  void observed(RateLimitSignal signal, @Nullable Lease lease, long cost, long sentNanos,
      long now, long holdUntilNanos) {
    if (fleet == null) {
      return;
    }
    roundTripNanos = Math.max(0, Time.sub(now, sentNanos));
    if (holdUntilNanos > now) {
      ownHoldNanos = Math.max(ownHoldNanos, holdUntilNanos);
    }
    answered(lease, sentNanos, now);
    report.observed(signal, held, lease, cost, sentNanos, now, holdUntilNanos);
  }
}
