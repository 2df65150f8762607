package dev.headway.internal.pacer;

import dev.headway.QuotaUnit;
import dev.headway.RequestInfo;
import org.jspecify.annotations.Nullable;

/**
 * Owns admission: whether a permit may go, and when, as a {@link Decision}; committing it (its
 * units in flight, the pacing cursors moved) and undoing that. Decides under the partition's
 * monitor (and its server sub-partition's): the hold, the probes, every policy's earliest time
 * (the latest wins), the caller's place in the {@link WaitingLine}, the deadline.
 */
final class Admission {
  private final Engine engine;
  private final Settings settings;
  private final PartitionStore store;
  /** The fleet's store link; null without a store (then one null check per decision). */
  private final @Nullable Fleet fleet;

  Admission(Engine engine, Settings settings, PartitionStore store, @Nullable Fleet fleet) {
    this.engine = engine;
    this.settings = settings;
    this.store = store;
    this.fleet = fleet;
  }

  /**
   * Creates the permit of {@code request} on its partition (created if new). Reads no time: the
   * first decision does, once, under the partition's monitor, and marks the partition used.
   */
  PermitImpl newPermit(RequestInfo request) {
    String key = settings.resolver.resolve(request);
    if (key == null) {
      key = "";
    }
    Partition base = store.get(key);
    if (base == null || base.evicted) {
      base = store.getOrCreate(key, null, settings.ticker.read());
    }
    long requests = Math.max(0, settings.cost.cost(request, QuotaUnit.REQUESTS));
    long bytes = Math.max(0, settings.cost.cost(request, QuotaUnit.CONTENT_BYTES));
    long tokens = Math.max(0, settings.cost.cost(request, QuotaUnit.TOKENS));
    return new PermitImpl(engine, key, base, requests, bytes, tokens);
  }

  /**
   * The first decision of a new permit: the time is read once, under the partition's monitor,
   * and the deadline is that time plus {@code waitNanos}.
   */
  Decision decideFirst(PermitImpl permit, long waitNanos) {
    return decide(permit, Long.MIN_VALUE, waitNanos, true);
  }

  /** Decides again for {@code permit}, not before {@code now}. */
  Decision decide(PermitImpl permit, long now, long deadline) {
    return decide(permit, now, deadline, false);
  }

  private Decision decide(PermitImpl permit, long now, long deadline, boolean relative) {
    Partition base = permit.base;
    if (base.evicted) {
      base = store.getOrCreate(permit.key, null, settings.ticker.read());
      permit.base = base;
    }
    Partition child = base.child;
    if (child != null && child.evicted) {
      child = null;
    }
    synchronized (base) {
      if (child == null) {
        return decideLocked(permit, base, null, now, deadline, relative);
      }
      synchronized (child) {
        return decideLocked(permit, base, child, now, deadline, relative);
      }
    }
  }

  private Decision decideLocked(PermitImpl permit, Partition base, @Nullable Partition child,
      long now, long deadline, boolean relative) {
    Decision decision = decideInLine(permit, base, child, now, deadline, relative);
    if (decision.verdict == Decision.Verdict.RECHECK && base.evaluation.queue) {
      base.line.join(permit, decision.atNanos);
    } else if (permit.waitWakeNanos != Long.MAX_VALUE) {
      base.line.leave(permit);
    }
    return decision;
  }

  private Decision decideInLine(PermitImpl permit, Partition base, @Nullable Partition child,
      long now, long deadline, boolean relative) {
    // Read the time under the lock: another thread may have updated the state since the caller
    // last read it, and state times must not run ahead of the time we decide at. A request
    // that can go now always may, even if the caller's deadline slipped meanwhile. A first
    // decision reads the time only here (one ticker read per acquire) and its deadline is
    // relative to it.
    now = Math.max(now, settings.ticker.read());
    if (relative) {
      deadline = Time.add(now, deadline);
    }
    deadline = Math.max(deadline, now);
    if (permit.isDone()) {
      return Decision.CANCELLED;
    }
    if (permit.ticket < 0) {
      permit.ticket = base.line.nextTicket();
      base.touch(now);
      Partition current = base.child;
      if (current != null) {
        current.touch(now);
      }
    }
    Evaluation ev = base.evaluation;
    ev.begin();
    long notBefore = now;
    long hold = base.hold.untilNanos();
    if (hold > now) {
      notBefore = settings.jitter.serverTime(hold, now, deadline, 0, false);
      ev.decider = Hold.THROTTLED;
    }
    if (base.hold.closed(base.inFlight.permits(), settings.probes)) {
      // First contact, or a hold just ended: a few probes learn the state, the rest look again
      // once one may have answered; ramping up after a hold with no quota known: never the
      // whole queue at once.
      long at = ev.lookAgainAt(Math.max(notBefore, Time.add(now, settings.recheckNanos)));
      return Decision.later(at, deadline, now, ev.decider);
    }
    long at = evaluate(base, permit, now, notBefore, deadline, notBefore);
    if (child != null) {
      at = evaluate(child, permit, now, notBefore, deadline, at);
    }
    SharedBudget shared = null;
    if (fleet != null) {
      shared = shared(base);
      long fleetAt = shared.earliest(ev, permit.cost(QuotaUnit.REQUESTS), now, at, deadline);
      if (fleetAt > at) {
        at = fleetAt;
        ev.decider = Fleet.POLICY;
      }
    }
    if (ev.refuse || at > deadline) {
      return Decision.reject(at, now, ev.decider);
    }
    if (ev.recheck) {
      return Decision.recheck(at, now, ev.decider);
    }
    long turn = base.line.turn(permit, now, settings.recheckNanos);
    if (turn != Long.MIN_VALUE) {
      // An older caller waits in line for these units: look again once it has had its turn.
      return Decision.later(ev.waitInLineUntil(turn), deadline, now, ev.decider);
    }
    permit.child = child;
    permit.sendAt(at);
    if (!permit.commitState()) {
      return Decision.CANCELLED;
    }
    base.charge(permit, settings.strategy, now, at);
    if (child != null) {
      child.charge(permit, settings.strategy, now, at);
    }
    if (shared != null) {
      permit.lease = shared.spend(permit.cost(QuotaUnit.REQUESTS), now);
    }
    permit.seq = base.nextSeq();
    return Decision.go(at, now, ev.decider);
  }

  /** Returns the shared budget of {@code base}, created if new; under its monitor. */
  private SharedBudget shared(Partition base) {
    SharedBudget shared = base.shared;
    if (shared == null) {
      shared = fleet.budgetFor(base);
      base.shared = shared;
    }
    return shared;
  }

  /** Asks every policy of {@code partition}; returns the latest time, not before {@code at}. */
  private long evaluate(Partition partition, PermitImpl permit, long now, long notBefore,
      long deadline, long at) {
    Evaluation ev = permit.base.evaluation;
    for (PolicyState state : partition.policies()) {
      state.roll(now);
      long earliest = state.earliest(settings, ev, partition, permit.cost(state.unit), now,
          notBefore, deadline);
      if (earliest > at) {
        at = earliest;
        ev.decider = state.name;
      }
    }
    return at;
  }

  /**
   * Returns when {@code probe} could get its permit if it asked at {@code notBefore}: the
   * partition's hold and every policy's wait, as the state says now; Long.MAX_VALUE if no wait
   * would do. Commits nothing.
   */
  long peek(PermitImpl probe, long notBefore, long now, long deadline) {
    Partition base = probe.base;
    base.touch(now);
    Partition child = base.child;
    if (child != null) {
      child.touch(now);
    }
    if (child != null && child.evicted) {
      child = null;
    }
    synchronized (base) {
      now = Math.max(now, settings.ticker.read());
      Evaluation ev = base.evaluation;
      ev.begin();
      long at = Math.max(notBefore, base.hold.untilNanos());
      at = evaluate(base, probe, now, at, deadline, at);
      if (child != null) {
        synchronized (child) {
          at = evaluate(child, probe, now, at, deadline, at);
        }
      }
      return ev.refuse ? Long.MAX_VALUE : at;
    }
  }

  /** Whether a throttled response arrived that holds the committed permit past its time. */
  boolean heldBeyond(PermitImpl permit) {
    return permit.base.hold.beyond(permit.sendAtNanos);
  }

  /** Undoes the commit of a permit that will decide again (declared policies refunded). */
  void uncommit(PermitImpl permit) {
    Partition base = permit.base;
    Partition child;
    synchronized (base) {
      if (!permit.uncommitState()) {
        return;
      }
      child = permit.child;
      base.uncharge(permit, true);
      if (base.shared != null) {
        base.shared.refund(permit.cost(QuotaUnit.REQUESTS), settings.ticker.read());
      }
    }
    if (child != null) {
      synchronized (child) {
        child.uncharge(permit, true);
      }
    }
  }

  /** Gives back the units of a committed permit that ends without a response. */
  void release(PermitImpl permit) {
    boolean refund = !permit.handedOut;
    Partition base = permit.base;
    Partition child;
    synchronized (base) {
      child = permit.child;
      base.uncharge(permit, refund);
      if (refund && base.shared != null) {
        base.shared.refund(permit.cost(QuotaUnit.REQUESTS), settings.ticker.read());
      }
    }
    if (child != null) {
      synchronized (child) {
        child.uncharge(permit, refund);
      }
    }
  }

  /** Takes {@code permit} out of its partition's line (it was released while waiting). */
  void leaveLine(PermitImpl permit) {
    if (permit.waitWakeNanos == Long.MAX_VALUE) {
      return;
    }
    Partition base = permit.base;
    synchronized (base) {
      base.line.leave(permit);
    }
  }
}
