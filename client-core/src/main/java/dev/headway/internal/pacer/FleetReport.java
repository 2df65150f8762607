package dev.headway.internal.pacer;

import dev.headway.RateLimitSignal;
import dev.headway.store.Lease;
import dev.headway.store.QuotaKey;
import dev.headway.store.RefillRate;
import dev.headway.store.ServerCount;
import dev.headway.store.SharedQuota;
import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What one partition's responses tell its fleet, all fire-and-forget: a hold when a response was
 * throttled (one instance's 429 holds them all), the refill rate of a server that gives units back
 * continuously ({@link FleetRate}), and the tightest request count ({@code observe}) with the
 * units this instance sent that the count holds. A request the server refused (a 429) spent no
 * quota: its units go back to the fleet rather than stay taken until a later count, which may not
 * come while the fleet believes itself spent. Part of a {@link SharedBudget}; under the
 * partition's monitor.
 */
final class FleetReport {
  /** Counts at or below this are told to the store on every response. */
  private static final long LOW_COUNT = 64;
  /** Otherwise a count is told at most this often. */
  private static final long OBSERVE_NANOS = 100_000_000L;

  private final Fleet fleet;
  private final Partition partition;
  private final QuotaKey key;
  private final SharedBudget budget;
  private final FleetRate rate = new FleetRate();
  /** The fleet's own budget where the server gives no count. */
  private final FleetGuess guess;
  /** When a count was last told to the store. */
  private long observedAtNanos = Long.MIN_VALUE;
  /**
   * The store's last answer for the server's count carried a refill rate another instance learned
   * (see {@link #observed}).
   */
  private boolean fleetRefills;
  /** The instant of the latest count this instance's own responses carried, or null. */
  private java.time.@Nullable Instant ownCountAt;

  /** This instance's share of the server's counts while the fleet cannot coordinate. */
  final FleetShare share = new FleetShare();
  /** This instance's share of the fleet's requests in flight to a server that said nothing. */
  final FleetRamp ramp = new FleetRamp();

  FleetReport(Fleet fleet, Partition partition, QuotaKey key, SharedBudget budget) {
    this.fleet = fleet;
    this.partition = partition;
    this.key = key;
    this.budget = budget;
    this.guess = new FleetGuess(key);
  }

  /** The key leases are taken from: the fleet's own budget while the server gives no count. */
  QuotaKey leaseKey() {
    return guess.active() ? guess.key : key;
  }

  /** The key of the fleet's own budget (where the server gives no count), or null. */
  @Nullable QuotaKey guessKey() {
    return guess.key;
  }

  /** Whether the store sees no other instance (then this one paces as without a store). */
  boolean alone() {
    return guess.alone(fleet.settings.ticker.read());
  }

  /**
   * Whether this instance's own responses carried {@code count}, or a later one: its local pacing
   * knows it already (a store count no newer than the instance's own says nothing the instance
   * does not pace on).
   */
  boolean ownOrOlder(ServerCount count) {
    return ownCountAt != null && !count.observedAt().isAfter(ownCountAt);
  }

  /** The instances the store's last answer showed (at least 1). */
  int instances() {
    return guess.instances();
  }

  /** Whether no store answer has shown another instance yet. */
  boolean noOtherYet() {
    return guess.noOtherYet();
  }

  /** Reads a lease answer: the fleet's instances and rate; a refusal by the fleet's rate. */
  void leased(dev.headway.store.Lease lease, long now) {
    guess.seen(lease.state(), now, fleet);
    if (lease.key().equals(key)) {
      fleetRefills = lease.state().refillRate()
          .filter(r -> fleet.plausibleLearnedAt(r.learnedAt())).isPresent();
    }
    if (lease.granted() == 0 && lease.key().equals(guess.key)
        && !lease.state().heldAt(fleet.instant(now, now))) {
      guess.refused();
    }
  }

  /**
   * Tells the fleet what the response to a request of {@code cost} units of {@code lease}, sent
   * at {@code sentNanos}, said; {@code held} are the partition's leases.
   */
  void observed(RateLimitSignal signal, List<HeldLease> held, @Nullable Lease lease, long cost,
      long sentNanos, long now, long holdUntilNanos) {
    Fleet f = fleet;
    ramp.observed(signal);
    boolean bare = signal.status() == 429 && signal.retryAfter().isEmpty()
        && FleetGuess.uncounted(signal);
    if (bare && holdUntilNanos > now && f.healthy() && guess.instances() > 1) {
      holdUntilNanos = guess.backedOff(sentNanos, now, holdUntilNanos,
          Math.min(f.settings.maxBackoffNanos, f.settings.maxWaitNanos));
    }
    if (holdUntilNanos > now) {
      guess.holdSeen(holdUntilNanos, now);
      try {
        f.store.hold(key, f.instant(holdUntilNanos, now)).whenComplete(this::stored);
      } catch (RuntimeException e) {
        f.failed(e, now);
      }
    }
    HeldLease own = null;
    for (int i = 0; i < held.size(); i++) {
      if (held.get(i).lease == lease) {
        own = held.get(i);
      }
    }
    if (own != null && signal.status() == 429) {
      // Refused: the server did not count it.
      long refused = own.takeCounted(Long.MIN_VALUE, cost, sentNanos);
      if (refused > 0) {
        f.release(own.lease, refused, now);
      }
      own = null;
    }
    if (!FleetGuess.uncounted(signal)) {
      guess.counted();
    } else if (f.healthy() && signal.status() == 429 && holdUntilNanos > now) {
      guessed(held, sentNanos, now, holdUntilNanos, signal.retryAfter().isPresent());
    } else if (f.healthy() && !signal.throttled() && signal.status() < 400) {
      guess.admittedSent(sentNanos);
      tell(guess.key, guess.admitted(f.settings.wallClock.instant()), now);
    }
    ServerPolicy refilling = FleetCount.tightestPolicy(partition, signal);
    if (fleetRefills && refilling != null && !refilling.refill.refilling
        && refilling.count.remaining == 0 && refilling.window.hasReset
        && Time.sub(refilling.window.resetAtNanos, now) > f.settings.maxWaitNanos) {
      // Another instance saw this server give units back before its reset and told the store
      // its refill rate. This instance may never see it itself: the others' requests, counted
      // between two of its own, hide every unit given back (a count that rose). Without it, its
      // own pacing took its spent count for a window spent until the reset (a token bucket's
      // reset is when all of it is back, a minute away), refused its callers past maxWait and
      // left the fleet's work to the others, to whom the store lent the units at the rate. Only
      // once spent until past maxWait (its callers would fail): before, its own pacing goes as
      // it would. A 429 at about the reset says the server does not refill, as for any
      // refilling policy.
      refilling.refill.refilling = true;
    }
    rate.outcome(refilling, signal.throttled(), sentNanos, now);
    RefillRate learned = f.healthy()
        ? rate.toTell(refilling, f.settings.wallClock.instant(), now) : null;
    if (learned != null) {
      try {
        f.store.learnRate(key, learned).whenComplete(this::stored);
      } catch (RuntimeException e) {
        f.failed(e, now);
      }
    }
    ServerCount count = FleetCount.of(f, partition, signal, sentNanos, now);
    if (count == null && own != null && own.lease.key().equals(key)
        && own.lease.state().count().isEmpty() && !own.answeredUncounted) {
      // Lent while the store had no count (first contact: maybe the fleet's probe), and answered
      // without one: told at once (once per lease), so that the others, waiting for the probe's
      // count, go now rather than at the probe's end.
      own.answeredUncounted = true;
      long units = own.takeCounted(Long.MIN_VALUE, cost, sentNanos);
      if (units > 0) {
        f.spent(own.lease, units, f.instant(sentNanos, now), now);
      }
    }
    if (count != null && (ownCountAt == null || count.observedAt().isAfter(ownCountAt))) {
      ownCountAt = count.observedAt();
    }
    if (count != null) {
      long resetNanos = count.resetAt().map(r -> f.nanos(r, now)).orElse(Long.MIN_VALUE);
      share.counted(count, FleetCount.engineTime(f, count.observedAt(), sentNanos, now),
          sentNanos, resetNanos, refilling);
      guess.resetHeard(resetNanos);
    }
    if (count == null || !f.healthy()
        || (count.remaining() > LOW_COUNT && Time.sub(now, observedAtNanos) < OBSERVE_NANOS
            && holdUntilNanos <= now)) {
      // Counts are told at most every 100 ms, except near the end of the quota.
      return;
    }
    observedAtNanos = now;
    // The units this instance sent before the count's instant are in it (and in any later
    // count): they leave its leases with the count, else the store would subtract them from it
    // once more. So do its own request's units, if this count is the one the store keeps.
    long countedUpTo = budget.countedUpTo(
        FleetCount.engineTime(f, count.observedAt(), sentNanos, now), now);
    for (int i = 0; i < held.size(); i++) {
      HeldLease h = held.get(i);
      long counted = h.takeCounted(countedUpTo, 0, 0);
      if (counted > 0) {
        f.spent(h.lease, counted, count.observedAt(), now);
      }
    }
    long ownUnits = own == null ? 0 : own.takeCounted(Long.MIN_VALUE, cost, sentNanos);
    try {
      (ownUnits > 0
          ? f.store.observe(key, count, own.lease, ownUnits, f.instant(sentNanos, now))
          : f.store.observe(key, count)).whenComplete(this::stored);
    } catch (RuntimeException e) {
      f.failed(e, now);
    }
  }

  /**
   * A check of the fleet's hold ending at {@code until} was admitted: the hold is lifted in the
   * store, on the server's key and on the fleet's own budget's, where it was written.
   */
  void lifted(Instant until, long now) {
    Fleet f = fleet;
    try {
      f.store.lift(key, until).whenComplete(this::stored);
      QuotaKey k = guess.key;
      if (k != null && !k.equals(key)) {
        f.store.lift(k, until).whenComplete(this::stored);
      }
    } catch (RuntimeException e) {
      f.failed(e, now);
    }
  }

  /**
   * A 429 without a count: the fleet's budget is held too, its rate set ({@link FleetGuess}),
   * and its count is 0 at the instant the request was sent (the units this instance sent before
   * are in it).
   */
  private void guessed(List<HeldLease> held, long sentNanos, long now, long holdUntilNanos,
      boolean told) {
    Fleet f = fleet;
    long hold = Time.sub(holdUntilNanos, now);
    RefillRate set = guess.throttled(f.instant(sentNanos, now), hold,
        hold > f.settings.maxWaitNanos, partition.commits(), Time.sub(now, partition.bornNanos),
        told, f.settings.wallClock.instant());
    QuotaKey k = guess.key;
    if (!guess.active()) {
      return;
    }
    try {
      f.store.hold(k, f.instant(holdUntilNanos, now)).whenComplete(this::stored);
    } catch (RuntimeException e) {
      f.failed(e, now);
      return;
    }
    tell(k, set, now);
    long upTo = FleetCount.countedUpTo(sentNanos, now);
    java.time.Instant at = java.time.Instant.ofEpochMilli(f.instant(upTo, now).toEpochMilli());
    long countedUpTo = budget.countedUpTo(FleetCount.engineTime(f, at, sentNanos, now), now);
    for (int i = 0; i < held.size(); i++) {
      HeldLease h = held.get(i);
      if (h.lease.key().equals(k)) {
        long counted = h.takeCounted(countedUpTo, 0, 0);
        if (counted > 0) {
          f.spent(h.lease, counted, at, now);
        }
      }
    }
    try {
      f.store.observe(k, FleetGuess.count(at)).whenComplete(this::stored);
    } catch (RuntimeException e) {
      f.failed(e, now);
    }
  }

  /** Tells the store a rate of {@code k}, if there is one. */
  private void tell(@Nullable QuotaKey k, @Nullable RefillRate learned, long now) {
    if (k == null || learned == null) {
      return;
    }
    try {
      fleet.store.learnRate(k, learned).whenComplete(this::stored);
    } catch (RuntimeException e) {
      fleet.failed(e, now);
    }
  }

  /**
   * Reads the fleet's hold on the server's key: an instance held past {@code maxWait} hears
   * whether another instance's check lifted it ({@link SharedBudget#adoptHold}).
   */
  void readHold(long now) {
    Fleet f = fleet;
    try {
      f.store.read(key).whenComplete(this::stored);
    } catch (RuntimeException e) {
      f.failed(e, now);
    }
  }

  private void stored(@Nullable SharedQuota state, @Nullable Throwable error) {
    Fleet f = fleet;
    long now = f.settings.ticker.read();
    if (error != null || state == null) {
      f.failed(error != null ? error : new IllegalStateException("no state"), now);
      return;
    }
    f.answered();
    synchronized (partition) {
      guess.seen(state, now, f);
      budget.adoptHold(state, now);
      if (state.key().equals(key)) {
        share.read(state, budget.left(now), now, f);
      }
    }
  }
}
