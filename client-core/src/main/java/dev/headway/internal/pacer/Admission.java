package dev.headway.internal.pacer;

import dev.headway.PacerEvent;
import dev.headway.QuotaUnit;
import dev.headway.RequestCost;
import dev.headway.RequestInfo;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * Owns admission: whether a permit may go, and when, as a {@link Decision}; committing it (its
 * units in flight, the pacing cursors moved) and undoing that. Decides under the partition's
 * monitor (and its server sub-partition's): the hold, the probes, every policy's earliest time
 * (the latest wins), the caller's place in the {@link WaitingLine}, the deadline.
 */
final class Admission {
  private static final long ONE_SECOND_NANOS = 1_000_000_000L;
  private final Engine engine;
  private final Settings settings;
  private final PartitionStore store;
  private final EventSink events;
  /** The fleet's store link; null without a store (then one null check per decision). */
  private final @Nullable Fleet fleet;
  /**
   * Whether a permit's cost is what its route learned (with the default cost only: a
   * {@code RequestCost} the user configured is kept).
   */
  private final boolean learnsCost;

  Admission(Engine engine, Settings settings, PartitionStore store, EventSink events,
      @Nullable Fleet fleet) {
    this.engine = engine;
    this.settings = settings;
    this.store = store;
    this.events = events;
    this.fleet = fleet;
    this.learnsCost = settings.cost == RequestCost.oneUnit();
  }

  /**
   * Creates the permit of {@code request} on its partition (created if new). Reads no time: the
   * first decision does, once, under the partition's monitor, and marks the partition used.
   */
  PermitImpl newPermit(RequestInfo request) {
    String key = settings.resolver.resolve(request); // never null: UserCode.resolver
    Partition base = store.get(key);
    if (base == null || base.evicted) {
      base = store.getOrCreate(key, null, settings.ticker.read());
    }
    long requests = Math.max(0, settings.cost.cost(request, QuotaUnit.REQUESTS));
    long bytes = Math.max(0, settings.cost.cost(request, QuotaUnit.CONTENT_BYTES));
    long tokens = Math.max(0, settings.cost.cost(request, QuotaUnit.TOKENS));
    return new PermitImpl(engine, base, requests, bytes, tokens, request,
        settings.scopeAttribute(request));
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
    Decision decision;
    PacerEvent @Nullable [] expired;
    while (true) {
      Partition base = permit.base;
      if (base.evicted) {
        // Evicted while idle (never with this permit committed): start on the new partition.
        base = store.getOrCreate(permit.key(), null, settings.ticker.read());
        permit.base = base;
        permit.ticket = -1;
        permit.waitWakeNanos = Long.MAX_VALUE;
        permit.placed = false;
      }
      Partition child = base.child;
      synchronized (base) {
        if (base.evicted) {
          continue; // evicted since the check: eviction marks it under this monitor
        }
        if (child == null) {
          decision = decideLocked(permit, base, null, now, deadline, relative);
        } else {
          synchronized (child) {
            decision = decideLocked(permit, base, child.evicted ? null : child, now, deadline,
                relative);
          }
        }
        expired = base.evaluation.takeExpired();
      }
      break;
    }
    if (expired != null) {
      for (PacerEvent event : expired) {
        events.emit(event);
      }
    }
    return decision;
  }

  /**
   * Reclaims the committed permits of {@code base} left past {@code permitLease} (never
   * completed nor released: a bug in the code that holds them): their units leave flight, as if
   * released, and a {@link PacerEvent.PermitExpired} says so. Under the base's monitor (and the
   * child's, when given).
   */
  private void reclaimExpired(Partition base, @Nullable Partition child, long now) {
    PermitImpl lost;
    while ((lost = base.expired(now, settings.reclaimAfterNanos)) != null) {
      if (!lost.expireState()) {
        return; // being completed or released right now: it leaves flight itself
      }
      long heldNanos = Time.sub(now, lost.committedNanos);
      base.uncharge(lost, lost.route, !lost.handedOut);
      Fleet.refund(base, lost, !lost.handedOut, now);
      base.longBlocks.released(lost);
      Partition lostChild = lost.child;
      if (lostChild != null) {
        if (lostChild == child) {
          lostChild.uncharge(lost, null, !lost.handedOut);
        } else {
          synchronized (lostChild) {
            lostChild.uncharge(lost, null, !lost.handedOut);
          }
        }
      }
      if (events.enabled()) {
        base.evaluation.expired(new PacerEvent.PermitExpired(lost.partition(),
            Duration.ofNanos(heldNanos)));
      }
    }
  }

  private Decision decideLocked(PermitImpl permit, Partition base, @Nullable Partition child,
      long now, long deadline, boolean relative) {
    Decision decision = decideInLine(permit, base, child, now, deadline, relative);
    if (decision.verdict == Decision.Verdict.RECHECK && base.evaluation.queue) {
      base.line.join(permit, decision.atNanos, base.evaluation.deciding,
          base.evaluation.forAnswers);
    } else if (permit.waitWakeNanos != Long.MAX_VALUE) {
      base.line.leave(permit);
    }
    return decision;
  }

  /**
   * Decides for {@code permit} under the partition's monitor: the time and deadline, then, in
   * turn, whether the partition only lets a few requests learn the server's state (probes),
   * what every policy and the fleet's budget say, whether that is past the deadline (refused, or
   * the check of a long block), whether to look again, whether an older caller in line goes
   * first; and if nothing holds it back, the permit is committed.
   */
  private Decision decideInLine(PermitImpl permit, Partition base, @Nullable Partition child,
      long now, long deadline, boolean relative) {
    // Read the time under the lock: another thread may have updated the state since the caller
    // last read it, and state times must not run ahead of the time we decide at. A request
    // that can go now always may, even if the caller's deadline slipped meanwhile. A first
    // decision reads the time only here (one ticker read per acquire) and its deadline is
    // relative to it.
    now = Math.max(now, settings.ticker.read());
    boolean mayWait = !relative || deadline > 0; // a first decision with no budget: tryAcquire
    if (relative) {
      deadline = Time.add(now, deadline);
    }
    deadline = Math.max(deadline, now);
    if (permit.isDone()) {
      return Decision.CANCELLED;
    }
    reclaimExpired(base, child, now);
    if (learnsCost) {
      permit.costRequests = base.routes.cost(permit, 1);
    }
    takeTicket(permit, base, now);
    Evaluation ev = base.evaluation;
    ev.begin();
    long notBefore = afterHold(base, ev, now, deadline);
    long outNanos = Time.sub(now, base.oldestOutNanos(now));
    if ((base.hold.closed(base.inFlight.permits(), settings.probes, now)
        || base.hold.rampClosed(base.inFlight.permits(), now))
        && outNanos < base.hold.patienceNanos()) {
      return whileProbing(permit, base, child, ev, now, notBefore, deadline, mayWait);
    }
    Route route = base.routes.find(permit.routeHash());
    long at = evaluate(base, route, permit, now, notBefore, deadline, notBefore);
    if (child != null) {
      at = evaluate(child, null, permit, now, notBefore, deadline, at);
    }
    SharedBudget shared = fleet != null && !ev.refuse ? fleet.budget(base) : null;
    if (shared != null) {
      at = fleetBudget(shared, ev, permit, now, at, deadline);
    }
    if (ev.refuse || at > deadline) {
      return refuseOrCheck(permit, base, child, ev, now, at);
    }
    if (ev.recheck) {
      if (!ev.queue && countedToReset(ev.deciding)) {
        // Waiting for the answers of requests in flight that may free a window's units now, it
        // keeps its place in line as well: callers after it count it ahead of them.
        ev.forAnswers = true;
        ev.queue = true;
      }
      if (ev.queue) {
        Decision refused = placeInLine(permit, base, ev, at, now, deadline);
        if (refused != null) {
          return refused;
        }
      }
      return Decision.recheck(ev.queue ? afterProbes(base, ev, at, deadline) : at, now,
          ev.decider).waitingFor(ev.waitingFor);
    }
    long turn = base.line.turn(permit, now, at, ev.deciding, settings.recheckNanos);
    if (turn != Long.MIN_VALUE) {
      if (at > now) {
        // Behind older callers for a later window: refused at once if its place cannot come by
        // the deadline.
        Decision refused = placeInLine(permit, base, ev, at, now, deadline);
        if (refused != null) {
          return refused;
        }
      }
      // An older caller waits in line for these units: look again once it has had its turn.
      return Decision.later(ev.waitInLineUntil(turn), deadline, now, ev.decider)
          .waitingFor("callers ahead in line for the same units");
    }
    if (!commit(permit, base, child, route, shared, now, at)) {
      return Decision.CANCELLED;
    }
    return Decision.go(at, now, ev.decider);
  }

  /**
   * Whether {@code policy} is a server's window of known quota and length counted down to its
   * reset (not paced at its refill rate or as a sliding log): a caller told to look again for
   * the answers of requests in flight keeps its place in line only for such a window.
   */
  private static boolean countedToReset(@Nullable PolicyState policy) {
    return policy instanceof ServerPolicy p && p.windowOfKnownQuota() && !p.refillPaced()
        && !p.logPaced();
  }

  /**
   * Returns when a caller waiting in line for the reset of a server window of known quota and
   * length, {@code at}, looks again: once the new window's probes, committed to that reset
   * already, may have answered (the probes' wait after the last of them goes), since until then
   * nothing but those probes goes there; never past {@code deadline}. Else {@code at}. Woken at
   * the reset, every caller in line would only be told to look again then: a pass of the timer
   * over the whole line that gives nobody anything.
   */
  private long afterProbes(Partition base, Evaluation ev, long at, long deadline) {
    if (!(ev.deciding instanceof ServerPolicy policy) || !policy.windowOfKnownQuota()
        || !policy.window.hasReset || at < policy.window.resetAtNanos) {
      return at;
    }
    long probesGo = base.latestOfSentFrom(policy.window.resetAtNanos, settings.probes);
    if (probesGo == Long.MIN_VALUE) {
      return at; // a probe's slot at the reset is still free: someone in line takes it then
    }
    return Math.max(at, Math.min(deadline, Time.add(probesGo, probesWait(base))));
  }

  /**
   * Places {@code permit} in line when it waits for units a server window of known quota and
   * length gives back at {@code at}: a refusal if its turn cannot come by the deadline, else
   * null (it waits). The callers ahead are those in line that came before it and the permits
   * given a later time to go: a caller joining the line at its end has the whole line ahead,
   * one that kept its place since its first look (waiting for the first probes' answers, say)
   * only the older ones. The first time, its turn is estimated leaning late ({@link #lineTurn}).
   * Placed, it keeps its place; each time it waits for a later window's units, only the soonest
   * its turn can come is checked (every window giving the line its whole quota): a window that
   * gave less than was counted on refuses it then, not at its deadline.
   */
  private @Nullable Decision placeInLine(PermitImpl permit, Partition base, Evaluation ev,
      long at, long now, long deadline) {
    if (!(ev.deciding instanceof ServerPolicy policy) || !policy.windowOfKnownQuota()
        || (permit.placed && at <= Time.add(now, settings.recheckNanos))) {
      return null;
    }
    long windowNanos = policy.inferred.or(policy.window.windowNanos);
    double perWindow = permit.placed ? policy.quota
        : perWindow(base, policy.quota, windowNanos);
    // Past this many ahead, the turn is a window past the deadline whatever the count: the
    // count of older callers (a step each) stops there.
    long windowsFit = Time.sub(deadline, at) / windowNanos;
    long limit = (long) Math.min(Integer.MAX_VALUE, Math.ceil((windowsFit + 1) * perWindow));
    // Permits given a time before {@code at} (later in this window) take none of its units.
    long inLine = base.line.older(permit, policy, limit);
    long ahead = inLine + base.scheduledAfter(Math.max(now, Time.sub(at, 1)));
    long turnAt = permit.placed
        ? Time.add(at, Time.mul((long) Math.floor(ahead / perWindow), windowNanos))
        : lineTurn(base, policy, windowNanos, ahead, at);
    if (turnAt > deadline) {
      return Decision.reject(turnAt, now, ev.decider).waitingFor(
          (inLine + base.scheduledAfter(now)) + " callers ahead in line for policy "
          + ev.decider);
    }
    permit.placed = true;
    return null;
  }

  /**
   * Returns what a window of {@code quota} per {@code windowNanos} can be counted on to give the
   * line: at most {@link #MAX_LINE_SHARE} of its quota, less the share of a round trip in it (a
   * unit sent within a round trip of a window's end may be counted in the next window by a
   * server that counts on arrival, and the first round trip is not known yet); at least half.
   */
  private static double perWindow(Partition base, long quota, long windowNanos) {
    return quota * Math.max(0.5, Math.min(MAX_LINE_SHARE,
        1 - (double) base.hold.roundTripNanos() / windowNanos));
  }

  /**
   * Returns the earliest a caller with {@code ahead} callers ahead of it in line may count on
   * its turn, given that {@code policy} (a window of known quota and length) gives back at
   * {@code at} what it lacks: every caller ahead is served first, a window's worth
   * ({@link #perWindow}) at a time, and the caller's unit comes in its window where the pacing
   * strategy puts its place among the window's units. Across windows the estimate leans late (a
   * caller it refuses is refused when it calls, not near its deadline; one on the edge may be
   * refused that would just have made it); within a window it leans early past the strategy's
   * first steps (see {@link #placeInWindow}), so a caller the strategy would serve is never
   * refused for its place.
   */
  private long lineTurn(Partition base, ServerPolicy policy, long windowNanos, long ahead,
      long at) {
    double perWindow = perWindow(base, policy.quota, windowNanos);
    long windows = (long) Math.min(Long.MAX_VALUE / 2.0, Math.floor(ahead / perWindow));
    long place = Math.max(0, (long) (ahead - windows * perWindow));
    long offset = placeInWindow(place, policy.quota, windowNanos);
    if (place >= settings.probes) {
      // Past a new window's probes: nobody goes until they may have answered.
      offset = Time.add(offset, probesWait(base));
    }
    // A later window's reset is read from its first answers, in whole seconds from when they
    // arrive: a round trip after the reset before it, each window.
    long windowsAhead = Time.mul(windows, Time.add(windowNanos, base.hold.roundTripNanos()));
    return Time.add(at, Time.add(windowsAhead, offset));
  }

  /**
   * Returns how long the callers of a new window past its probes wait for the probes' answers:
   * they look again every recheck interval, so the first interval that a round trip fits in.
   */
  private long probesWait(Partition base) {
    long recheck = settings.recheckNanos;
    long rounds = Math.max(1, (base.hold.roundTripNanos() + recheck - 1) / recheck);
    return Time.mul(rounds, recheck);
  }

  /**
   * Returns how long after its window starts the unit at {@code place} (0 first) goes, paced by
   * the strategy from a full window of {@code quota}: at most {@link #PLACES_PACED} steps of
   * it; a place past them is counted at the last of them, never later. Counted where an even
   * spread would put it, it refused callers the strategy would have served: the default
   * strategy sends most of a window at once.
   */
  private long placeInWindow(long place, long quota, long windowNanos) {
    place = Math.min(place, PLACES_PACED);
    long offset = 0;
    for (long i = 0; i < place && i < quota && offset < windowNanos; i++) {
      long gap = settings.strategy.spacingNanos(quota - i, quota, windowNanos - offset);
      offset = Time.add(offset, Math.max(0, gap));
    }
    return Math.min(offset, windowNanos);
  }

  /** The most places in a window whose time {@link #placeInWindow} asks the strategy about. */
  private static final int PLACES_PACED = 64;

  /** The most of a window's quota the line's estimate counts on (see {@link #lineTurn}). */
  static final double MAX_LINE_SHARE = 0.95;

  /** Gives a permit deciding for the first time its place in the line, and marks it used. */
  private static void takeTicket(PermitImpl permit, Partition base, long now) {
    if (permit.ticket >= 0) {
      return;
    }
    permit.ticket = base.line.nextTicket();
    base.touch(now);
    Partition current = base.child;
    if (current != null) {
      current.touch(now);
    }
  }

  /**
   * Returns the earliest time the partition's hold (a throttled response) lets a request go:
   * {@code now} without one, else its end with jitter (the hold then decides).
   */
  private long afterHold(Partition base, Evaluation ev, long now, long deadline) {
    long hold = base.hold.untilNanos();
    if (hold <= now) {
      return now;
    }
    ev.decider = Hold.THROTTLED;
    return settings.jitter.serverTime(hold, now, deadline, 0, base.hold.toldInWholeSeconds());
  }

  /**
   * Decides while the partition lets only a few requests learn the server's state (first
   * contact, a hold just ended) or ramps up after a hold with no quota known (never the whole
   * queue at once): the others look again once one may have answered. Past the deadline, a long
   * block gets its single check or refuses; a first contact with no answer yet lets a caller
   * whose budget runs out go.
   */
  private Decision whileProbing(PermitImpl permit, Partition base, @Nullable Partition child,
      Evaluation ev, long now, long notBefore, long deadline, boolean mayWait) {
    // Look again after a recheck interval, or when the oldest request in flight has been out
    // for the hold's patience, if sooner: past it, it is no longer waited for (before any
    // answer: every caller behind the probes goes then).
    long oldestOut = base.oldestOutNanos(now);
    long patienceEnd = Time.add(oldestOut, base.hold.patienceNanos());
    // Meanwhile it keeps its place in line: if those answers say the window is spent, callers
    // that came after it do not take the next window's units before it.
    long at = ev.waitForAnswersUntil(Math.max(notBefore, Math.min(patienceEnd,
        Time.add(now, settings.recheckNanos))),
        "answers to the requests already sent to learn the server's state (probes)");
    if (at > deadline && LongBlocks.longBlock(base, ev, at, now, settings.maxWaitNanos,
        Time.nanos(settings.caps.maxReset()))) {
      // The requests in flight that close the partition are no reason to send more into a
      // block longer than maxWait. The block lasts until the hold ends (at is only when to look
      // again).
      return checkOrReject(permit, base, child, ev, now, at,
          Math.max(at, base.hold.untilNanos()));
    }
    if (at > deadline && mayWait && base.hold.firstContact()) {
      // First contact and no answer yet (a slow API): nothing says the server limits
      // anything, so a caller whose budget runs out goes rather than fail for lack of news.
      // A caller with no budget at all (tryAcquire) is refused: the bound would never hold.
      Route route = base.routes.find(permit.routeHash());
      return commit(permit, base, child, route, null, now, now) ? Decision.NOW
          : Decision.CANCELLED;
    }
    return Decision.later(at, deadline, now, ev.decider).waitingFor(ev.waitingFor);
  }

  /**
   * Returns when the fleet's budget lets the permit go, not before {@code at}; a later time
   * than the policies' is the fleet's to decide, and never a server's block to check past.
   */
  private static long fleetBudget(SharedBudget shared, Evaluation ev, PermitImpl permit,
      long now, long at, long deadline) {
    long fleetAt = shared.earliest(ev, permit.costRequests, now, at, deadline);
    if (fleetAt <= at) {
      return at;
    }
    ev.decider = Fleet.POLICY;
    ev.deciding = null;
    ev.declaredBlocks = true;
    return fleetAt;
  }

  /**
   * Decides for a permit that cannot go by its deadline (or is refused): refused, unless a server
   * told of a block longer than {@code maxWait} that a single check may now verify.
   */
  private Decision refuseOrCheck(PermitImpl permit, Partition base, @Nullable Partition child,
      Evaluation ev, long now, long at) {
    if (ev.declaredBlocks || !LongBlocks.longBlock(base, ev, at, now, settings.maxWaitNanos,
        Time.nanos(settings.caps.maxReset()))) {
      return Decision.reject(at, now, ev.decider).waitingFor(ev.waitingFor);
    }
    return checkOrReject(permit, base, child, ev, now, at, ev.zeroQuota ? Long.MAX_VALUE : at);
  }

  /**
   * Sends {@code permit} as the check of a long block lasting until {@code blockUntil} if
   * {@link LongBlocks} allows one now; else refuses it.
   */
  private Decision checkOrReject(PermitImpl permit, Partition base, @Nullable Partition child,
      Evaluation ev, long now, long at, long blockUntil) {
    if (base.longBlocks.mayCheck(now, blockUntil, settings.checkGapNanos)) {
      return base.longBlocks.check(permit, base, child, now);
    }
    return Decision.reject(at, now, ev.decider).waitingFor(ev.waitingFor);
  }

  /**
   * Commits {@code permit} to be sent at {@code at}: every policy of its partitions takes its
   * cost, its units go in flight, the fleet's budget (if any) lends it a unit, and it takes the
   * next commit number. False if it ended meanwhile (released): nothing was committed.
   */
  private boolean commit(PermitImpl permit, Partition base, @Nullable Partition child,
      @Nullable Route route, @Nullable SharedBudget shared, long now, long at) {
    permit.child = child;
    permit.route = route;
    permit.sendAt(at);
    if (!permit.commitState()) {
      return false;
    }
    base.charge(permit, route, settings.strategy, now, at);
    if (child != null) {
      child.charge(permit, null, settings.strategy, now, at);
    }
    if (shared != null) {
      permit.lease = shared.spend(permit.costRequests, now, at);
    }
    permit.seq = base.nextSeq();
    return true;
  }

  /**
   * Asks every policy of {@code partition} that constrains the permit's {@code route}; returns
   * the latest time, not before {@code at}.
   */
  private long evaluate(Partition partition, @Nullable Route route, PermitImpl permit, long now,
      long notBefore, long deadline, long at) {
    Evaluation ev = permit.base.evaluation;
    RouteTable routes = partition.routes;
    for (PolicyState state : partition.policies()) {
      if (!routes.constrains(state, route, permit.request, permit.attribute)) {
        continue;
      }
      state.roll(now);
      boolean refused = ev.refuse;
      boolean rechecked = ev.recheck;
      long earliest = state.earliest(settings, ev, partition, permit.cost(state.unit), now,
          notBefore, deadline);
      if (state instanceof ServerPolicy policy) {
        if (rechecked || !ev.recheck) {
          // (Not a look-again for answers still out: it looks again then, not at the end.)
          earliest = lastUnitAtOpenedEnd(policy, partition, permit, earliest, deadline);
        }
        earliest = Retiming.backBeforeReset(policy, partition, permit, ev, earliest, now,
            notBefore);
      }
      if (state.declared() && (earliest > notBefore || ev.refuse != refused)) {
        ev.declaredBlocks = true;
      }
      if (earliest > at) {
        at = earliest;
        ev.decider = state.name;
        ev.deciding = state;
      }
    }
    return at;
  }

  /**
   * A request that takes the last units of a fixed window goes no sooner than the end of that
   * window, if a request of ours opened it and it lasts whole seconds
   * ({@link ServerWindow#openedEnd}): a reset read in whole seconds from a whole-second
   * {@code Date} may be almost a second past that end, and waited for, it opens every window a
   * second late. The last unit then finds the next window (the count comes back, and the
   * window opens there) or this one (spent in it, as it would have been): no request is ever
   * refused for it. Only a unit the pacing would send within a second of that end is held to
   * it (what there is to gain is the second of rounding; held longer, it would only move the
   * window's other requests about). Not a count that refills, is stale or not yet confirmed
   * after a reset, nor one the caller cannot wait for.
   */
  private static long lastUnitAtOpenedEnd(ServerPolicy policy, Partition partition,
      PermitImpl permit, long earliest, long deadline) {
    long end = policy.window.openedEnd();
    if (end == Long.MIN_VALUE || earliest >= end || end - earliest >= ONE_SECOND_NANOS
        || end > deadline || policy.quota <= 0
        || policy.stale || policy.unconfirmed || !policy.count.known()
        || policy.refillPaced() || policy.logPaced()) {
      return earliest;
    }
    long units = Math.min(permit.cost(policy.unit), policy.quota);
    long available = Time.sub(policy.count.remaining,
        policy.flight(partition.inFlight).units(policy.unit));
    return units > 0 && available >= units && available - units < units ? end : earliest;
  }

  /**
   * Returns when {@code candidate} could get its permit if it asked at {@code notBefore}: the
   * partition's hold and every policy's wait, as the state says now; Long.MAX_VALUE if no wait
   * would do. Commits nothing.
   */
  long peek(PermitImpl candidate, long notBefore, long now, long deadline) {
    Partition base = candidate.base;
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
      Route route = base.routes.find(candidate.routeHash());
      at = evaluate(base, route, candidate, now, at, deadline, at);
      if (child != null) {
        synchronized (child) {
          at = evaluate(child, null, candidate, now, at, deadline, at);
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
      base.uncharge(permit, permit.route, true);
      Fleet.refund(base, permit, true, settings.ticker.read());
    }
    if (child != null) {
      synchronized (child) {
        child.uncharge(permit, null, true);
      }
    }
    permit.gapNanos = 0;
  }

  /** Gives back the units of a committed permit that ends without a response. */
  void release(PermitImpl permit) {
    Partition base = permit.base;
    boolean refund = !permit.handedOut;
    Partition child;
    synchronized (base) {
      child = permit.child;
      base.uncharge(permit, permit.route, refund);
      Fleet.refund(base, permit, refund, settings.ticker.read());
      base.longBlocks.released(permit);
      if (!refund) {
        base.hold.unanswered(permit.sendAtNanos); // handed out: it ended with no response
      }
    }
    if (child != null) {
      synchronized (child) {
        child.uncharge(permit, null, refund);
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
