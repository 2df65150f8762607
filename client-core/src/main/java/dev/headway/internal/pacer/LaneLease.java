package dev.headway.internal.pacer;

import dev.headway.QuotaUnit;

/**
 * Prices a {@link FastLane}'s lease: how many more permits of one cost would go now with no gap,
 * as the monitor would decide them one after the other (0 if the lane must stay shut), and when
 * that lease ends. Reads the partition's state under its monitor; holds no state.
 */
final class LaneLease {
  private LaneLease() {}

  /** How many more permits of this cost would go now; 0 if the lane must stay shut. */
  static long lease(Partition partition, long requests, long bytes, long tokens,
      Settings settings, long now) {
    if (partition.pk != null || partition.child != null || partition.evicted
        || partition.shared != null // every permit of a fleet takes its unit from a lease
        || !partition.hold.settled(now) || partition.line.waiting()
        || !partition.verifier.idle() || !partition.routes.uniform()) {
      return 0;
    }
    long lease = FastLane.MAX_LEASE;
    for (PolicyState policy : partition.policies()) {
      if (!(policy instanceof ServerPolicy state) || policy.qualifier != null) {
        return 0; // a declared policy's balance moves with time; a qualified one is scoped
      }
      long cost = state.unit == QuotaUnit.CONTENT_BYTES ? bytes
          : state.unit == QuotaUnit.TOKENS ? tokens : requests;
      lease = Math.min(lease, lease(state, state.flight(partition.inFlight), cost, settings,
          now));
      if (lease <= 0) {
        return 0;
      }
    }
    return lease;
  }

  /**
   * How many more permits costing {@code cost} {@code state} lets go now with no gap: what
   * {@link ServerPolicy#earliest} and {@link ServerPolicy#commit} would say, permit after
   * permit.
   */
  private static long lease(ServerPolicy state, InFlight inFlight, long cost,
      Settings settings, long now) {
    if (state.unit == QuotaUnit.CONCURRENT_REQUESTS || state.stale || state.unconfirmed) {
      return 0;
    }
    if (!state.count.known()) {
      return FastLane.MAX_LEASE; // nothing known limits anything: every request goes now
    }
    if (state.quota == 0) {
      return 0; // refused and verified by probes
    }
    if (cost == 0) {
      return FastLane.MAX_LEASE; // asks for no unit, moves no cursor
    }
    if (state.refillPaced()) {
      return refillLease(state, inFlight, cost);
    }
    if (state.nextFreeNanos > now) {
      return 0;
    }
    long units = state.quota > 0 ? Math.min(cost, state.quota) : cost;
    long floor = Strategies.burstFloor(settings.configuredStrategy, state.quota,
        state.window.hasReset);
    long least = Math.max(units, floor);
    long available = Time.sub(state.count.remaining, inFlight.units(state.unit));
    if (least == Long.MAX_VALUE || available < least) {
      return 0;
    }
    // The j-th permit of the lease (from 0) finds available - j * cost: it must still cover
    // its units and leave the strategy above the level where it starts spacing.
    return (available - least) / cost + 1;
  }

  /**
   * The lease of a policy paced at its refill rate: a permit goes now while the units in flight
   * and its own fit both in the count and in the quota, and moves no cursor (what
   * {@link ServerPolicy#earliest} and {@link ServerPolicy#commit} say in refill mode), so the
   * permits that go now with no gap are those the smaller of the two leaves room for. Units
   * that come back later only add to it: the lease never runs ahead of the monitor.
   */
  private static long refillLease(ServerPolicy state, InFlight inFlight, long cost) {
    long units = Math.min(cost, state.quota); // the quota is known and positive here
    long room = Time.sub(Math.min(state.count.remaining, state.quota),
        inFlight.units(state.unit));
    return room < units ? 0 : (room - units) / cost + 1;
  }

  /**
   * When the lease ends: at the earliest reset of a policy (the state rolls then, under the
   * monitor), and when the oldest live permit's lease ends or, with none, when a permit taken
   * now would reach its lease (the monitor reclaims a leaked permit then).
   */
  static long expiry(Partition partition, Settings settings, long now) {
    long at = Time.add(partition.oldestCommitNanos(now), settings.leaseNanos);
    for (PolicyState policy : partition.policies()) {
      if (policy instanceof ServerPolicy state && state.window.hasReset) {
        at = Math.min(at, state.window.resetAtNanos);
      }
    }
    return at;
  }
}
