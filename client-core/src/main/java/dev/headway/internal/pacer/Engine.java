package dev.headway.internal.pacer;

import dev.headway.ClientPolicy;
import dev.headway.Jitter;
import dev.headway.PacerEvent;
import dev.headway.PacerListener;
import dev.headway.PacingStrategy;
import dev.headway.PartitionKeyResolver;
import dev.headway.Permit;
import dev.headway.PolicySnapshot;
import dev.headway.QuotaLimit;
import dev.headway.QuotaPolicy;
import dev.headway.QuotaSnapshot;
import dev.headway.QuotaUnit;
import dev.headway.RateLimitSignal;
import dev.headway.RateLimitedException;
import dev.headway.RequestCost;
import dev.headway.RequestInfo;
import dev.headway.Reservation;
import dev.headway.SanityCaps;
import dev.headway.Scheduler;
import dev.headway.SignalParser;
import dev.headway.SignalWarning;
import dev.headway.Ticker;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;

/*
 * How the Pacer works, and why.
 *
 * The problem. A server tells us, on some responses, how much of a quota is left and when it
 * resets (draft section 4: RateLimit "r" and "t"; section 3: RateLimit-Policy "q" and "w").
 * We want to spend the whole quota and never more, from many threads at once, without waiting
 * longer than the caller allows, and without trusting numbers a server (or a man in the middle)
 * could make up (section 8.5).
 *
 * State. Per partition (PartitionKeyResolver; a server "pk" gives a sub-partition, section 7.1)
 * we keep one PolicyState per policy, plus the units held by permits in flight. For a server
 * policy the state is: quota, window, "remaining" as last reported (not counting what is in
 * flight), the reset deadline on the monotonic ticker, and the send sequence and send time of
 * the request whose response said so. What may be spent now is
 *
 *     available = remaining - inFlight[unit]
 *
 * so N callers racing for the last unit see it once: the first to commit puts it in flight, the
 * others see available = 0 (this is why permits exist, and why they must be completed or
 * released). A response replaces "remaining" with the server's number, but only if it is newer
 * than what we hold: a response to a request sent before the window we believe in started
 * (sent < epochStart) or sent before the request that set the current value (seq < valueSeq)
 * is ignored, so a slow response from before a reset never resurrects an old "r=0" or "r=57".
 * A response that says nothing about a policy (servers need not repeat themselves, section 6.2)
 * still spent a unit: we subtract its cost locally, unless it was sent before the request whose
 * response we believe (the server had already counted it).
 *
 * When a reset passes we do not wait to be told (section 7 says the reset is a hint, section 8.4
 * that it may be wrong; but most servers do reset): if we know the quota, we assume it is back
 * and the next window starts (window known: reset += w). If we do not know the quota, the policy
 * becomes "stale": a few probe requests (builder "probes") may be in flight at once until one
 * comes back and tells us; the others look again every "recheckInterval". Never a stampede.
 *
 * Deciding. Under the partition's monitor (a tiny lock: the acquire path allocates nothing but
 * the permit, which a CAS-swapped immutable state would not allow), every policy gives the
 * earliest time the request may go; the latest wins (the most restrictive policy decides, and
 * is named in the exception and the events). A 429 holds the whole partition until the advised
 * time. If that time is past the caller's deadline (maxWait) we throw at once: nothing waits and
 * then fails. Otherwise the request is committed at that time: it is put in flight now, the
 * pacing cursors move, a declared token bucket goes negative (a reservation, seeds/003), and
 * the caller parks (Scheduler.sleep) or is scheduled (Scheduler.schedule) until then. Committing
 * at decision time, as Guava's SmoothRateLimiter does, is what keeps waiters in a queue with
 * distinct times instead of waking together and racing again. A waiter that wakes to find a
 * throttled response arrived meanwhile (hold past its time) is uncommitted and decides again.
 *
 * Waiting in line. A caller that cannot commit yet because a rate policy lacks units (spent
 * until a reset beyond the probes, only probes until the new window answers) looks again
 * later, and keeps its place: every acquire takes an arrival ticket, and a caller in line is
 * recorded with the time it looks again. A younger caller that could go does not take units an
 * older one in line looks again for within a recheck interval: it looks again when that one
 * wakes (or a moment later if that one is due now and not back yet); callers due at the same
 * instant share it. (First contact and the probes after a hold are not a line: the simulator
 * showed slower starts there, for nothing.)
 * Without this, the probes' callers, answered at the reset instant, asked again at once and
 * took the whole new window while the others slept their recheck interval: window after
 * window, until their maxWait ran out. A caller that does not come back within a recheck
 * interval of its time (released, or a thread too slow) loses its place: the line never
 * blocks anyone for long.
 *
 * Pacing inside a window. After committing a request the PacingStrategy says how long to leave
 * before the next: spread = timeToReset / available (the last unit lands just before the reset);
 * burst-then-spread = nothing until available drops below a fraction of the quota, then spread;
 * use-all = nothing. Whatever it says, available bounds what is sent: a lone client against
 * q=100;w=60 sends 100 per window, never a 101st, with every strategy.
 *
 * Past the window. When the window is spent, the earliest time is the reset, plus jitter: jitter
 * only ever adds to a server-given time (at most min(maxJitter, wait / 5), and never past the
 * deadline), because section 7 says not to exceed the quota before the reset, and section 8.5
 * that clients all coming back at the reset instant are the problem. With a known quota and
 * window a request may be reserved in a later window; with an unknown quota it only looks again
 * at the reset (probing then). A cost larger than the quota is clamped to the quota (it waits for
 * a full window and goes alone): failing it would let a signal break a request, and waiting for
 * more than a window would deadlock.
 *
 * Servers that refill continuously (token bucket, GCRA, sliding window: section 4.1.2 is why we
 * never assume the whole quota back) give a "t" that says when all of it is back, not when the
 * next unit is: waiting for it wastes most of a sliding window. A policy becomes refill-paced
 * once the server shows it: a count from a request sent strictly after our count arrived (the
 * server counted it later), in the same window, that did not drop by the request's cost; or a
 * 429 with r=0 whose Retry-After is much shorter than "t". It then accrues quota / window per
 * unit from the instant the server counted the last answered request (halfway between its send
 * and its response), capped at the quota, and a request goes once that covers it and what is
 * in flight; the reset is not waited for. Fixed windows never show either sign. Instances
 * sharing a key each see the whole refill: a 429 while refill-paced doubles the interval (once
 * per overshoot), and each success shortens it by 1/256.
 *
 * Hostile numbers. Quotas and remaining counts are capped (SanityCaps.maxQuota, maxRemaining),
 * resets and Retry-After by maxReset and maxRetryAfter, and all time arithmetic saturates; the
 * deadline does the rest: no call ever waits longer than its maxWait.
 *
 * Concurrency caps (qu="concurrent-requests", section 3.1.2) are not rates: the permit is held
 * until the response completes, and a caller over the cap looks again every recheckInterval.
 */

/**
 * The pacing engine behind {@code dev.headway.Pacer}: partitions, policy states, decisions,
 * waits. Thread-safe.
 */
public final class Engine {
  static final int GO = 0;
  static final int RECHECK = 1;
  static final int REJECT = 2;
  static final int CANCELLED = 3;
  /** The decider named when a throttled response holds the partition back. */
  static final String THROTTLED = "throttled";
  private static final long ONE_SECOND_NANOS = 1_000_000_000L;

  final Ticker ticker;
  final InstantSource wallClock;
  final Scheduler scheduler;
  final SignalParser parser;
  final SanityCaps caps;
  final long maxWaitNanos;
  final int maxAttempts;
  final RequestCost cost;
  final PartitionKeyResolver resolver;
  final PacingStrategy strategy;
  final Jitter jitter;
  final RandomGenerator random;
  final long maxJitterNanos;
  final int probes;
  final long recheckNanos;
  final long baseBackoffNanos;
  final long maxBackoffNanos;
  final boolean retryNonIdempotentOn503;
  private final PacerListener[] listeners;
  private final List<ClientPolicy> declaredForAll;
  private final Map<String, List<ClientPolicy>> declaredByPartition;
  final Registry registry;

  /** Creates an engine from a validated configuration. */
  public Engine(EngineConfig config) {
    this.ticker = config.ticker();
    this.wallClock = config.wallClock();
    this.scheduler = config.scheduler();
    this.parser = config.parser();
    this.caps = parser.caps();
    this.maxWaitNanos = Time.nanos(config.maxWait());
    this.maxAttempts = config.maxAttempts();
    this.cost = config.cost();
    this.resolver = config.resolver();
    this.strategy = config.strategy();
    this.jitter = config.jitter();
    this.random = config.random();
    this.maxJitterNanos = Time.nanos(config.maxJitter());
    this.probes = config.probes();
    this.recheckNanos = Math.max(1, Time.nanos(config.recheckInterval()));
    this.baseBackoffNanos = Time.nanos(config.baseBackoff());
    this.maxBackoffNanos = Time.nanos(config.maxBackoff());
    this.retryNonIdempotentOn503 = config.retryNonIdempotentOn503();
    this.listeners = config.listeners().toArray(new PacerListener[0]);
    this.declaredForAll = List.copyOf(config.declaredForAll());
    this.declaredByPartition = Map.copyOf(config.declaredByPartition());
    this.registry = new Registry(config.maxPartitions());
  }

  // ---------------------------------------------------------------- acquiring

  /** Blocks until the request may be sent; see {@code Pacer.acquire}. */
  public Permit acquire(RequestInfo request, Duration maxWait)
      throws InterruptedException, RateLimitedException {
    long waitNanos = Time.nanos(maxWait);
    PermitImpl permit = newPermit(request);
    int verdict = decideFirst(permit, waitNanos);
    long now = permit.decidedNanos;
    long deadline = Time.add(now, waitNanos);
    boolean announced = false;
    while (true) {
      if (verdict == REJECT) {
        throw reject(permit, now);
      }
      if (verdict == CANCELLED) {
        throw new IllegalStateException("permit released while acquiring");
      }
      long wake = permit.sendAtNanos;
      if (verdict == GO && wake <= now) {
        permit.handOut();
        return permit;
      }
      if (verdict == GO && !announced) {
        announced = true;
        delayed(permit, wake - now);
      }
      do {
        try {
          scheduler.sleep(Duration.ofNanos(wake - now));
        } catch (InterruptedException e) {
          permit.release();
          Thread.currentThread().interrupt();
          throw e;
        }
        now = ticker.read();
      } while (now < wake);
      if (verdict == GO) {
        if (!heldBeyond(permit)) {
          permit.handOut();
          return permit;
        }
        uncommit(permit);
      }
      verdict = decide(permit, now, deadline);
      now = permit.decidedNanos;
    }
  }

  /** Returns a permit if the request may be sent now. */
  public Optional<Permit> tryAcquire(RequestInfo request) {
    PermitImpl permit = newPermit(request);
    int verdict = decideFirst(permit, 0);
    long now = permit.decidedNanos;
    if (verdict == GO && permit.sendAtNanos <= now) {
      permit.handOut();
      return Optional.of(permit);
    }
    permit.release();
    return Optional.empty();
  }

  /** Completes a future once the request may be sent; see {@code Pacer.acquireAsync}. */
  public CompletableFuture<Permit> acquireAsync(RequestInfo request, Duration maxWait) {
    long waitNanos = Time.nanos(maxWait);
    PermitImpl permit = newPermit(request);
    int verdict = decideFirst(permit, waitNanos);
    long now = permit.decidedNanos;
    long deadline = Time.add(now, waitNanos);
    if (verdict == GO && permit.sendAtNanos <= now) {
      permit.handOut();
      return CompletableFuture.completedFuture(permit);
    }
    if (verdict == REJECT) {
      return CompletableFuture.failedFuture(reject(permit, now));
    }
    AsyncAcquire future = new AsyncAcquire(this, permit, deadline);
    future.after(verdict, now);
    return future;
  }

  /** Commits a permit for a later time without waiting; see {@code Pacer.reserve}. */
  public Reservation reserve(RequestInfo request, Duration maxWait) throws RateLimitedException {
    PermitImpl permit = newPermit(request);
    int verdict = decideFirst(permit, Time.nanos(maxWait));
    long now = permit.decidedNanos;
    if (verdict != GO) {
      RateLimitedException e = reject(permit, now);
      permit.release();
      throw e;
    }
    permit.handOut();
    long delay = Math.max(0, permit.sendAtNanos - now);
    if (delay > 0) {
      delayed(permit, delay);
    }
    return new Reservation(permit, Duration.ofNanos(delay));
  }

  /**
   * Creates the permit of {@code request} on its partition (created if new). Reads no time: the
   * first decision does, once, under the partition's monitor, and marks the partition used.
   */
  PermitImpl newPermit(RequestInfo request) {
    String key = resolver.resolve(request);
    if (key == null) {
      key = "";
    }
    Partition base = registry.get(key);
    if (base == null || base.evicted) {
      base = registry.getOrCreate(key, null, ticker.read(), this);
    }
    long requests = nonNegative(cost.cost(request, QuotaUnit.REQUESTS));
    long bytes = nonNegative(cost.cost(request, QuotaUnit.CONTENT_BYTES));
    long tokens = nonNegative(cost.cost(request, QuotaUnit.TOKENS));
    return new PermitImpl(this, key, base, requests, bytes, tokens);
  }

  private static long nonNegative(long v) {
    return Math.max(0, v);
  }

  /** Decides for {@code permit} at {@code now}; returns GO, RECHECK, REJECT or CANCELLED. */
  int decide(PermitImpl permit, long now, long deadline) {
    return decide(permit, now, deadline, false);
  }

  /**
   * The first decision of a new permit: the time is read once, under the partition's monitor,
   * and the deadline is that time plus {@code waitNanos}; see {@code permit.decidedNanos}.
   */
  int decideFirst(PermitImpl permit, long waitNanos) {
    return decide(permit, Long.MIN_VALUE, waitNanos, true);
  }

  private int decide(PermitImpl permit, long now, long deadline, boolean relative) {
    Partition base = permit.base;
    if (base.evicted) {
      base = registry.getOrCreate(permit.key, null, ticker.read(), this);
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

  private int decideLocked(PermitImpl permit, Partition base, @Nullable Partition child, long now,
      long deadline, boolean relative) {
    int verdict = decideInLine(permit, base, child, now, deadline, relative);
    if (verdict == RECHECK && permit.queue) {
      if (base.waiters == null) {
        base.waiters = new TreeMap<>();
      }
      base.waiters.put(permit.ticket, permit.sendAtNanos);
      permit.waitWakeNanos = permit.sendAtNanos;
    } else if (permit.waitWakeNanos != Long.MAX_VALUE) {
      leaveLineLocked(base, permit);
    }
    return verdict;
  }

  /** Takes {@code permit} out of its partition's line (it was released while waiting). */
  void leaveLine(PermitImpl permit) {
    if (permit.waitWakeNanos == Long.MAX_VALUE) {
      return;
    }
    Partition base = permit.base;
    synchronized (base) {
      leaveLineLocked(base, permit);
    }
  }

  private static void leaveLineLocked(Partition base, PermitImpl permit) {
    TreeMap<Long, Long> waiters = base.waiters;
    if (waiters != null && permit.ticket >= 0) {
      waiters.remove(permit.ticket);
    }
    permit.waitWakeNanos = Long.MAX_VALUE;
  }

  /**
   * Returns when {@code permit} may have its turn: Long.MIN_VALUE if no older caller waits in
   * line for the units it would take. An older caller that looks again within a recheck
   * interval goes first (the younger looks again when it wakes); one due now but not yet back
   * also goes first (the younger looks again a moment later), unless the younger was due as
   * early: callers woken at one instant share it. One that looks again later does not hold
   * anyone back (it waits for a reset: so would the younger). A caller that does not come back
   * within a recheck interval of its time (gone, or a slow thread) loses its place.
   */
  private long turn(Partition base, PermitImpl permit, long now) {
    TreeMap<Long, Long> waiters = base.waiters;
    if (waiters == null || waiters.isEmpty()) {
      return Long.MIN_VALUE;
    }
    long turn = Long.MIN_VALUE;
    Iterator<Map.Entry<Long, Long>> it = waiters.headMap(permit.ticket, false).entrySet()
        .iterator();
    while (it.hasNext()) {
      long wake = it.next().getValue();
      long at;
      if (Time.add(wake, recheckNanos) < now) {
        it.remove();
        continue;
      } else if (Time.sub(wake, now) > recheckNanos) {
        continue; // not back before a caller that went now could answer: no need to wait
      } else if (wake > now) {
        at = wake;
      } else if (permit.waitWakeNanos > wake) {
        at = Time.add(now, Math.max(1, recheckNanos / 50));
      } else {
        continue;
      }
      turn = turn == Long.MIN_VALUE ? at : Math.min(turn, at);
    }
    return turn;
  }

  private int decideInLine(PermitImpl permit, Partition base, @Nullable Partition child, long now,
      long deadline, boolean relative) {
    // Read the time under the lock: another thread may have updated the state since the caller
    // last read it, and state times must not run ahead of the time we decide at. A request
    // that can go now always may, even if the caller's deadline slipped meanwhile. A first
    // decision reads the time only here (one ticker read per acquire) and its deadline is
    // relative to it.
    now = Math.max(now, ticker.read());
    if (relative) {
      deadline = Time.add(now, deadline);
    }
    deadline = Math.max(deadline, now);
    permit.decidedNanos = now;
    if (permit.isDone()) {
      return CANCELLED;
    }
    if (permit.ticket < 0) {
      permit.ticket = base.arrivals++;
      base.touch(now);
      Partition current = base.child;
      if (current != null) {
        current.touch(now);
      }
    }
    permit.recheck = false;
    permit.queue = false;
    permit.refuse = false;
    permit.decider = null;
    long notBefore = now;
    long hold = base.holdUntilNanos;
    if (hold > now) {
      notBefore = serverTime(hold, now, deadline, 0, false);
      permit.decider = THROTTLED;
    }
    if (base.probing && base.permitsInFlight >= probes) {
      // First contact, or a hold just ended: a few probes learn the state, the rest look again
      // once one may have answered. Never a stampede (issue 3).
      permit.recheck = true;
      permit.sendAtNanos = Math.max(notBefore, Time.add(now, recheckNanos));
      return permit.sendAtNanos > deadline ? REJECT : RECHECK;
    }
    if (base.permitsInFlight >= base.admitCap) {
      // Ramping up after a hold with no quota known: never the whole queue at once.
      permit.recheck = true;
      permit.sendAtNanos = Math.max(notBefore, Time.add(now, recheckNanos));
      return permit.sendAtNanos > deadline ? REJECT : RECHECK;
    }
    long at = evaluate(base, permit, now, notBefore, deadline, notBefore);
    if (child != null) {
      at = evaluate(child, permit, now, notBefore, deadline, at);
    }
    permit.sendAt(at);
    if (permit.refuse || at > deadline) {
      return REJECT;
    }
    if (permit.recheck) {
      return RECHECK;
    }
    long turn = turn(base, permit, now);
    if (turn != Long.MIN_VALUE) {
      // An older caller waits in line for these units: look again once it has had its turn.
      permit.recheck = true;
      permit.queue = true;
      permit.sendAtNanos = turn;
      return turn > deadline ? REJECT : RECHECK;
    }
    permit.child = child;
    if (!permit.commitState()) {
      return CANCELLED;
    }
    charge(base, permit, now, at);
    if (child != null) {
      charge(child, permit, now, at);
    }
    permit.seq = base.seq++;
    return GO;
  }

  private long evaluate(Partition partition, PermitImpl permit, long now, long notBefore,
      long deadline, long at) {
    PolicyState[] states = partition.policies;
    for (PolicyState state : states) {
      state.roll(now);
      long earliest = state.earliest(this, partition, permit, permit.cost(state.unit), now,
          notBefore, deadline);
      if (earliest > at) {
        at = earliest;
        permit.decider = state.name;
      }
    }
    return at;
  }

  private void charge(Partition partition, PermitImpl permit, long now, long at) {
    for (PolicyState state : partition.policies) {
      state.commit(this, partition, permit.cost(state.unit), now, at);
    }
    partition.inFlight[0] += permit.costRequests;
    partition.inFlight[1] += permit.costBytes;
    partition.inFlight[3] += permit.costTokens;
    partition.permitsInFlight++;
  }

  private static void uncharge(Partition partition, PermitImpl permit, boolean refund) {
    partition.inFlight[0] -= permit.costRequests;
    partition.inFlight[1] -= permit.costBytes;
    partition.inFlight[3] -= permit.costTokens;
    partition.permitsInFlight--;
    if (refund) {
      for (PolicyState state : partition.policies) {
        if (state.declared()) {
          state.refund(permit.cost(state.unit), permit.sendAtNanos);
        }
      }
    }
  }

  /**
   * Returns a time the server gave ({@code base}) plus jitter: never earlier, at most
   * min(maxJitter, window / 50, wait / 5) later (the window when known), and not past
   * {@code deadline} if {@code base} is not. A reset read from a whole-second field
   * ({@code rounded}) is already up to a second late, a spread of its own: that second is taken
   * off the jitter rather than padding twice.
   */
  long serverTime(long base, long now, long deadline, long windowNanos, boolean rounded) {
    if (base <= now || maxJitterNanos == 0 || base == Long.MAX_VALUE) {
      return base;
    }
    long spread = Math.min(maxJitterNanos, (base - now) / 5);
    if (windowNanos > 0) {
      spread = Math.min(spread, windowNanos / 50);
    }
    if (rounded) {
      spread -= ONE_SECOND_NANOS;
    }
    if (spread <= 0) {
      return base;
    }
    long extra;
    synchronized (random) {
      extra = Time.nanos(jitter.extra(Duration.ofNanos(spread), random));
    }
    extra = Math.min(extra, spread);
    if (base <= deadline) {
      extra = Math.min(extra, deadline - base);
    }
    return Time.add(base, extra);
  }

  boolean heldBeyond(PermitImpl permit) {
    return permit.base.holdUntilNanos > permit.sendAtNanos;
  }

  void uncommit(PermitImpl permit) {
    Partition base = permit.base;
    Partition child;
    synchronized (base) {
      if (!permit.uncommitState()) {
        return;
      }
      child = permit.child;
      uncharge(base, permit, true);
    }
    if (child != null) {
      synchronized (child) {
        uncharge(child, permit, true);
      }
    }
  }

  void onRelease(PermitImpl permit) {
    boolean refund = !permit.handedOut;
    Partition base = permit.base;
    Partition child;
    synchronized (base) {
      child = permit.child;
      uncharge(base, permit, refund);
    }
    if (child != null) {
      synchronized (child) {
        uncharge(child, permit, refund);
      }
    }
  }

  RateLimitedException reject(PermitImpl permit, long now) {
    long wait = Math.max(0, Time.sub(permit.sendAtNanos, now));
    Instant retryAt = wallClock.instant().plusNanos(wait);
    Duration required = Duration.ofNanos(wait);
    String partition = permit.partition();
    if (listeners.length > 0) {
      emit(new PacerEvent.Rejected(partition, required, retryAt,
          Optional.ofNullable(permit.decider)));
    }
    return new RateLimitedException(partition, retryAt, required, permit.decider);
  }

  void delayed(PermitImpl permit, long delayNanos) {
    if (listeners.length > 0) {
      emit(new PacerEvent.Delayed(permit.partition(), Duration.ofNanos(delayNanos),
          Optional.ofNullable(permit.decider)));
    }
  }

  // ---------------------------------------------------------------- responses

  void onResponse(PermitImpl permit, RateLimitSignal signal) {
    long now = ticker.read();
    Partition base = permit.base;
    String pk = firstPartitionKey(signal);
    Partition target = base;
    if (pk != null) {
      target = childFor(base, pk, now);
    }
    Partition child;
    long holdNanos = 0;
    boolean throttled = signal.throttled();
    synchronized (base) {
      child = permit.child;
      uncharge(base, permit, false);
      if (throttled) {
        base.consecutiveThrottles++;
        holdNanos = holdNanos(signal, base.consecutiveThrottles);
        long until = Time.add(now, holdNanos);
        if (until > base.holdUntilNanos) {
          base.holdUntilNanos = until;
        }
        base.probing = true;
        base.probeFromNanos = base.holdUntilNanos;
        if (signal.limits().isEmpty() && signal.policies().isEmpty()) {
          base.admitCap = Math.max(1, probes);
          base.rampFromNanos = base.holdUntilNanos;
          base.rampUntilNanos = Time.add(base.holdUntilNanos, holdNanos);
        }
      } else {
        if (base.admitCap != Integer.MAX_VALUE && signal.status() < 400
            && permit.sendAtNanos >= base.rampFromNanos) {
          base.admitCap = now >= base.rampUntilNanos ? Integer.MAX_VALUE : base.admitCap + 1;
        }
        if (signal.status() < 400) {
          base.consecutiveThrottles = 0;
        }
        if (base.probing && permit.sendAtNanos >= base.probeFromNanos) {
          base.probing = false;
        }
      }
      apply(base, permit, signal, null, now);
      if (throttled && signal.retryAfter().isPresent()) {
        retryAfterFirst(base, signal, permit.sendAtNanos, now);
      }
    }
    if (child != null) {
      synchronized (child) {
        uncharge(child, permit, false);
        if (child == target) {
          apply(child, permit, signal, pk, now);
          if (throttled && signal.retryAfter().isPresent()) {
            retryAfterFirst(child, signal, permit.sendAtNanos, now);
          }
        }
      }
    }
    if (target != base && target != child) {
      synchronized (target) {
        apply(target, permit, signal, pk, now);
      }
    }
    if (listeners.length > 0) {
      String partition = target.key;
      for (SignalWarning warning : signal.warnings()) {
        emit(new PacerEvent.SignalWarned(partition, warning));
      }
      if (throttled) {
        emit(new PacerEvent.Throttled(base.key, signal.status(), Duration.ofNanos(holdNanos)));
      }
      if (!signal.policies().isEmpty() || !signal.limits().isEmpty()) {
        emit(new PacerEvent.QuotaUpdated(partition, snapshot(target)));
      }
    }
  }

  /**
   * {@code Retry-After} takes precedence over a limit's reset (draft section 7): a spent policy
   * whose reset lies beyond it is looked at again when it ends, and then only probed (the
   * server did not say how much is back: section 4.1.2, a client MUST NOT assume all of it).
   */
  private void retryAfterFirst(Partition partition, RateLimitSignal signal, long sentNanos,
      long now) {
    long retryNanos = Math.min(Time.nanos(signal.retryAfter().get()),
        Time.nanos(caps.maxRetryAfter()));
    long until = Time.add(now, retryNanos);
    for (PolicyState s : partition.policies) {
      if (!(s instanceof ServerPolicy state) || state.stale || state.remaining != 0
          || !state.hasReset) {
        continue;
      }
      long toReset = Time.sub(state.resetAtNanos, now);
      if (state.quota > 0 && state.windowNanos > 0) {
        // A unit back much sooner than the reset: the server refills continuously (a sliding
        // window's "t" is when the whole quota is back). One back about at the reset: it does
        // not, whatever we thought.
        if (Time.add(Time.mul(retryNanos, 2), 2 * ONE_SECOND_NANOS) < toReset) {
          if (state.refilling) {
            state.throttledWhileRefilling(sentNanos, now);
          }
          state.refilling = true;
          continue;
        }
        state.refilling = false;
      }
      if (state.resetAtNanos > until) {
        state.resetAtNanos = until;
        state.probeAtReset = true;
      }
    }
  }

  private static @Nullable String firstPartitionKey(RateLimitSignal signal) {
    List<QuotaLimit> limits = signal.limits();
    for (int i = 0; i < limits.size(); i++) {
      QuotaLimit limit = limits.get(i);
      if (limit.partitionKey().isPresent()) {
        return limit.partitionKey().get();
      }
    }
    List<QuotaPolicy> policies = signal.policies();
    for (int i = 0; i < policies.size(); i++) {
      QuotaPolicy policy = policies.get(i);
      if (policy.partitionKey().isPresent()) {
        return policy.partitionKey().get();
      }
    }
    return null;
  }

  private Partition childFor(Partition base, String pk, long now) {
    Partition child = base.child;
    if (child != null && !child.evicted && pk.equals(child.pk)) {
      return child;
    }
    child = registry.getOrCreate(base.key + "|pk=" + pk, pk, now, this);
    child.lastUsedNanos = now;
    base.child = child;
    return child;
  }

  private static boolean matches(Optional<String> itemPk, @Nullable String pk) {
    return pk == null ? itemPk.isEmpty() : itemPk.isPresent() && pk.equals(itemPk.get());
  }

  /** Applies what a response says to one partition; under its monitor. */
  private void apply(Partition partition, PermitImpl permit, RateLimitSignal signal,
      @Nullable String pk, long now) {
    long stamp = ++partition.stamp;
    List<QuotaPolicy> policies = signal.policies();
    for (int i = 0; i < policies.size(); i++) {
      QuotaPolicy policy = policies.get(i);
      if (!matches(policy.partitionKey(), pk)) {
        continue;
      }
      ServerPolicy state = serverPolicy(partition, policy.name(), policy.dialect(), now);
      state.quota = Math.min(policy.quota(), caps.maxQuota());
      state.unit = policy.unit();
      state.windowNanos = policy.window().isPresent() ? Time.nanos(policy.window().get()) : 0;
      state.source = policy.dialect();
      state.touchedStamp = stamp;
      if (state.stale) {
        state.stale = false;
        state.remaining = state.quota;
      }
    }
    for (PolicyState s : partition.policies) {
      if (s instanceof ServerPolicy state && state.overlapUnits > 0
          && permit.sendAtNanos <= state.valueReceivedNanos) {
        state.overlapUnits = Math.max(0, state.overlapUnits - permit.cost(state.unit));
      }
    }
    long receivedNanos = now;
    List<QuotaLimit> limits = signal.limits();
    for (int i = 0; i < limits.size(); i++) {
      QuotaLimit limit = limits.get(i);
      if (!matches(limit.partitionKey(), pk)) {
        continue;
      }
      ServerPolicy state = serverPolicy(partition, limit.policy(), limit.dialect(), now);
      state.touchedStamp = stamp;
      state.roll(now);
      if (permit.sendAtNanos < state.epochStartNanos) {
        continue; // from an earlier window: a late response must not resurrect a value
      }
      long remaining = Math.min(limit.remaining(), caps.maxRemaining());
      long resetAt = Long.MIN_VALUE;
      if (limit.reset().isPresent()) {
        long reset = Math.min(Time.nanos(limit.reset().get()), Time.nanos(caps.maxReset()));
        resetAt = Time.add(receivedNanos, reset);
      }
      boolean known = !state.stale && state.remaining != PolicyState.UNKNOWN;
      if (known && permit.sendAtNanos <= state.valueReceivedNanos
          && !newWindow(state, resetAt)) {
        // Concurrent with the request whose count we hold: the server may have counted them in
        // either order (callers committed at the same instant, unequal network delays). Taking
        // the larger count would forget the requests it counted after this one, whose responses
        // already left the in-flight count: within a window only the smaller count is safe.
        if (remaining >= state.remaining) {
          continue;
        }
        if (olderThanValue(permit, state)) {
          state.remaining = remaining;
          state.updatedAtNanos = now;
          continue;
        }
      } else if (olderThanValue(permit, state)) {
        continue; // older than what we know: a late response must not resurrect a value
      }
      if (!state.refilling && state.valueRemaining != PolicyState.UNKNOWN
          && permit.sendAtNanos > state.valueReceivedNanos && permit.seq > state.valueSeq
          && !newWindow(state, resetAt)
          && remaining > state.valueRemaining - permit.cost(state.unit)) {
        // Counted after the request whose count we hold (sent strictly after that count arrived:
        // at one instant the order is unknown), in the same window, and yet the count did not
        // drop by this request's cost: the server gave units back before its reset.
        state.refilling = true;
      }
      if (resetAt != Long.MIN_VALUE) {
        // "t" is whole seconds, rounded by the server: every response gives an upper bound of
        // the true reset. Within one window (remaining not going up) a later bound less than a
        // second after ours is rounding; keep the tighter one. Larger moves are the server's.
        boolean sameWindow = state.hasReset && state.resetAtNanos > now
            && state.remaining != PolicyState.UNKNOWN && remaining <= state.remaining;
        if (!(sameWindow && resetAt >= state.resetAtNanos
            && resetAt - state.resetAtNanos < ONE_SECOND_NANOS)) {
          state.resetAtNanos = resetAt;
        }
        state.hasReset = true;
      } else {
        state.hasReset = false;
      }
      if (state.refillPaced() && signal.status() < 400) {
        state.admittedWhileRefilling();
      }
      state.remaining = remaining;
      state.valueRemaining = remaining;
      state.refillFromNanos = permit.sendAtNanos + Math.max(0, now - permit.sendAtNanos) / 2;
      state.valueSeq = permit.seq;
      state.valueSentNanos = permit.sendAtNanos;
      state.valueReceivedNanos = now;
      state.overlapUnits = partition.inFlight[state.unit.ordinal()];
      state.stale = false;
      state.unconfirmed = false;
      state.probeAtReset = false;
      state.source = limit.dialect();
      state.updatedAtNanos = now;
    }
    for (PolicyState s : partition.policies) {
      if (!(s instanceof ServerPolicy state) || state.touchedStamp == stamp) {
        continue;
      }
      state.roll(now);
      if (state.stale) {
        if (permit.sendAtNanos >= state.epochStartNanos) {
          partition.remove(state); // probed, and the server no longer speaks of it
        }
      } else if (state.remaining != PolicyState.UNKNOWN
          && state.unit != QuotaUnit.CONCURRENT_REQUESTS
          && permit.sendAtNanos >= state.valueSentNanos) {
        state.remaining = Math.max(0, state.remaining - permit.cost(state.unit));
        state.unconfirmed = false; // a response of the new window, silent about it
      }
    }
  }

  /**
   * Whether a response's reset ({@code resetAtNanos}, or Long.MIN_VALUE if none) starts a window
   * after the one the policy's value belongs to: later by more than the second of rounding and
   * by at least half the window.
   */
  private static boolean newWindow(ServerPolicy state, long resetAtNanos) {
    if (!state.hasReset || resetAtNanos == Long.MIN_VALUE) {
      return false;
    }
    long moved = Time.sub(resetAtNanos, state.resetAtNanos);
    return moved > ONE_SECOND_NANOS && moved >= state.windowNanos / 2;
  }

  /**
   * Whether the permit's request was sent before the one whose response set the policy's value.
   * Ordered by send time, then by commit order: a reservation is committed early but sent late.
   */
  private static boolean olderThanValue(PermitImpl permit, ServerPolicy state) {
    return permit.sendAtNanos < state.valueSentNanos
        || (permit.sendAtNanos == state.valueSentNanos && permit.seq < state.valueSeq);
  }

  private static ServerPolicy serverPolicy(Partition partition, String name, String dialect,
      long now) {
    ServerPolicy state = partition.server(name);
    if (state == null) {
      state = new ServerPolicy(name, QuotaUnit.REQUESTS, dialect, now);
      partition.add(state);
    }
    return state;
  }

  /** Returns how long a throttled response holds its partition back (no jitter). */
  private long holdNanos(RateLimitSignal signal, int consecutive) {
    long server = serverAdvice(signal);
    if (server >= 0) {
      return server;
    }
    return backoffNanos(consecutive);
  }

  /**
   * Returns the time the server advised, in nanoseconds, or -1: {@code Retry-After} first (it
   * takes precedence, draft section 7), then the reset of the exhausted (or most restrictive)
   * limit, then a body hint.
   */
  long serverAdvice(RateLimitSignal signal) {
    long maxRetry = Time.nanos(caps.maxRetryAfter());
    if (signal.retryAfter().isPresent()) {
      return Math.min(Time.nanos(signal.retryAfter().get()), maxRetry);
    }
    long exhausted = -1;
    long lowestRemaining = Long.MAX_VALUE;
    long lowestReset = -1;
    for (QuotaLimit limit : signal.limits()) {
      if (limit.reset().isEmpty()) {
        continue;
      }
      long reset = Math.min(Time.nanos(limit.reset().get()), Time.nanos(caps.maxReset()));
      if (limit.remaining() == 0) {
        exhausted = Math.max(exhausted, reset);
      }
      if (limit.remaining() < lowestRemaining) {
        lowestRemaining = limit.remaining();
        lowestReset = reset;
      }
    }
    if (exhausted >= 0) {
      return exhausted;
    }
    if (lowestReset >= 0) {
      return lowestReset;
    }
    if (signal.bodyRetryAfter().isPresent()) {
      return Math.min(Time.nanos(signal.bodyRetryAfter().get()), maxRetry);
    }
    return -1;
  }

  long backoffNanos(int attempt) {
    int shift = Math.max(0, Math.min(62, attempt - 1));
    long d = baseBackoffNanos > (Long.MAX_VALUE >> shift) ? Long.MAX_VALUE
        : baseBackoffNanos << shift;
    return Math.min(d, maxBackoffNanos);
  }

  // ---------------------------------------------------------------- retries

  /** See {@code Pacer.retryDelay}. */
  public Optional<Duration> retryDelay(RequestInfo request, RateLimitSignal signal, int attempts,
      Duration budget) {
    long budgetNanos = Time.nanos(budget);
    long delay = retryDelayNanos(request, signal, attempts, true, budgetNanos);
    if (delay < 0) {
      return Optional.empty();
    }
    long now = ticker.read();
    long sendAt = earliestRetry(request, Time.add(now, delay), now, Time.add(now, budgetNanos));
    delay = Math.max(delay, Time.sub(sendAt, now));
    if (delay > budgetNanos) {
      return Optional.empty();
    }
    Duration d = Duration.ofNanos(delay);
    if (listeners.length > 0) {
      emit(new PacerEvent.Retried(resolver.resolve(request), attempts, d));
    }
    return Optional.of(d);
  }

  /**
   * Returns when a retry of {@code request} could get its permit if it asked at
   * {@code notBefore}: the partition's hold and every policy's wait, as the state says now.
   * Commits nothing.
   */
  private long earliestRetry(RequestInfo request, long notBefore, long now, long deadline) {
    PermitImpl probe = newPermit(request);
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
      now = Math.max(now, ticker.read());
      long at = Math.max(notBefore, base.holdUntilNanos);
      at = evaluate(base, probe, now, at, deadline, at);
      if (child != null) {
        synchronized (child) {
          at = evaluate(child, probe, now, at, deadline, at);
        }
      }
      return probe.refuse ? Long.MAX_VALUE : at;
    }
  }

  /** Returns whether a retry could be advised for this signal, the attempt budget aside. */
  public boolean retryable(RequestInfo request, RateLimitSignal signal) {
    return retryDelayNanos(request, signal, 1, false, maxWaitNanos) >= 0;
  }

  private long retryDelayNanos(RequestInfo request, RateLimitSignal signal, int attempts,
      boolean jittered, long budgetNanos) {
    if (!signal.throttled() || attempts >= maxAttempts) {
      return -1;
    }
    if (signal.status() == 503) {
      if (signal.retryAfter().isEmpty()) {
        return -1;
      }
      if (!idempotent(request.method()) && !retryNonIdempotentOn503) {
        return -1;
      }
    }
    long server = serverAdvice(signal);
    if (server >= 0) {
      if (server > budgetNanos) {
        return -1;
      }
      if (!jittered) {
        return server;
      }
      long now = ticker.read();
      return Time.sub(serverTime(Time.add(now, server), now, Time.add(now, budgetNanos), 0,
          false), now);
    }
    long computed = backoffNanos(Math.max(1, attempts));
    long d = computed;
    if (jittered) {
      synchronized (random) {
        d = Time.nanos(jitter.backoff(Duration.ofNanos(computed),
            Duration.ofNanos(computed / 2), random));
      }
    }
    return Math.min(Math.max(0, d), budgetNanos);
  }

  private static boolean idempotent(String method) {
    switch (method) {
      case "GET":
      case "HEAD":
      case "OPTIONS":
      case "TRACE":
      case "PUT":
      case "DELETE":
        return true;
      default:
        return false;
    }
  }

  // ---------------------------------------------------------------- inspection

  /** Returns the snapshot of {@code uri}'s partition (and its current server sub-partition). */
  public QuotaSnapshot quota(URI uri) {
    String key = resolver.resolve(RequestInfo.get(uri));
    Partition base = registry.get(key);
    if (base == null) {
      return new QuotaSnapshot(key, List.of());
    }
    QuotaSnapshot own = snapshot(base);
    Partition child = base.child;
    if (child == null || child.evicted) {
      return own;
    }
    List<PolicySnapshot> all = new ArrayList<>(own.policies());
    all.addAll(snapshot(child).policies());
    return new QuotaSnapshot(key, all, own.heldFor());
  }

  /** Returns a snapshot of every known partition, sorted by key. */
  public List<QuotaSnapshot> partitions() {
    List<QuotaSnapshot> out = new ArrayList<>();
    for (Partition p : registry.all()) {
      out.add(snapshot(p));
    }
    out.sort(Comparator.comparing(QuotaSnapshot::partition));
    return List.copyOf(out);
  }

  /** Returns the number of partitions held. */
  public int partitionCount() {
    return registry.size();
  }

  QuotaSnapshot snapshot(Partition partition) {
    long now = ticker.read();
    List<PolicySnapshot> policies = new ArrayList<>();
    long hold;
    synchronized (partition) {
      for (PolicyState state : partition.policies) {
        state.roll(now);
        policies.add(state.snapshot(partition, now));
      }
      hold = partition.holdUntilNanos;
    }
    Optional<Duration> heldFor = hold > now ? Optional.of(Duration.ofNanos(hold - now))
        : Optional.empty();
    return new QuotaSnapshot(partition.key, policies, heldFor);
  }

  // ---------------------------------------------------------------- plumbing

  void declarePolicies(Partition partition, long now) {
    for (ClientPolicy policy : declaredForAll) {
      partition.add(declared(policy, now));
    }
    List<ClientPolicy> own = declaredByPartition.get(partition.key);
    if (own != null) {
      for (ClientPolicy policy : own) {
        partition.add(declared(policy, now));
      }
    }
  }

  private PolicyState declared(ClientPolicy policy, long now) {
    if (policy instanceof ClientPolicy.TokenBucket bucket) {
      return new TokenBucketPolicy(bucket, now);
    }
    ClientPolicy.FixedWindow window = (ClientPolicy.FixedWindow) policy;
    long period = Math.max(1, Time.nanos(window.period()));
    long start;
    if (window.start().isPresent()) {
      start = Time.nanos(window.start().get());
    } else {
      synchronized (random) {
        start = random.nextLong(period);
      }
    }
    Instant wall = wallClock.instant();
    long wallNanos = Time.add(Time.mul(Math.max(0, wall.getEpochSecond()), 1_000_000_000L),
        wall.getNano());
    long phase = Math.floorMod(Time.sub(wallNanos, start), period);
    return new FixedWindowPolicy(window, now, now - phase);
  }

  void emit(PacerEvent event) {
    for (PacerListener listener : listeners) {
      try {
        listener.onEvent(event);
      } catch (VirtualMachineError e) {
        throw e;
      } catch (Throwable e) {
        // A listener can never break a request.
      }
    }
  }
}
