package dev.headway.internal.pacer;

import dev.headway.PacingStrategy;
import dev.headway.QuotaUnit;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * The quota state of one partition: its policies, the units in flight ({@link InFlight}), its
 * {@link Hold}, its {@link WaitingLine}, and the order of its commits and responses. Owns
 * charging a committed permit to every policy and giving it back. Mutable state is guarded by
 * the partition's monitor, except the volatile fields.
 */
final class Partition {
  static final PolicyState[] NO_POLICIES = new PolicyState[0];
  private static final VarHandle LAST_USED;

  static {
    try {
      LAST_USED = MethodHandles.lookup().findVarHandle(Partition.class, "lastUsedNanos",
          long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /** The most policies one partition keeps; a server naming more replaces the least recent. */
  static final int MAX_POLICIES = 16;

  final String key;
  /** The server's partition key for a sub-partition; null for a partition of the resolver. */
  final @Nullable String pk;
  /** The most server sub-partitions one base partition keeps (see {@link #childFor}). */
  static final int MAX_CHILDREN = 4;
  private static final Partition[] NO_CHILDREN = new Partition[0];

  /** The sub-partition for the partition key the server sent last (base partitions only). */
  volatile @Nullable Partition child;
  /** The sub-partitions this base keeps, the current one among them (under this monitor). */
  private Partition[] children = NO_CHILDREN;
  volatile long lastUsedNanos;
  volatile boolean evicted;
  /** When the partition was created (first contact). */
  final long bornNanos;
  /** Responses below 400 so far (a rate is learned only once the server admitted one). */
  long admitted;

  final Hold hold = new Hold();
  final InFlight inFlight = new InFlight();
  final WaitingLine line = new WaitingLine();
  /** Checks long blocks with a single request now and then (base partitions). */
  final LongBlocks longBlocks = new LongBlocks();
  /** The working state of the decision in progress (base partitions; under this monitor). */
  final Evaluation evaluation = new Evaluation();
  /** This partition's share of a fleet's quota; null without a store (under this monitor). */
  @Nullable SharedBudget shared;
  /** Which routes each server policy governs (base partitions). */
  final RouteTable routes = new RouteTable();
  /** What the answers' {@code Date} fields said of the server's clock (base partitions). */
  final ServerClock serverClock = new ServerClock();
  private PolicyState[] policies = NO_POLICIES;
  /** The committed permits of this partition as a base, oldest commit first. */
  private @Nullable PermitImpl oldestLive;
  private @Nullable PermitImpl newestLive;
  /** The commit order of permits (a response's tie-breaker). */
  private long seq;
  /** Numbers the responses applied, so a policy knows whether the last one mentioned it. */
  private long stamp;

  Partition(String key, @Nullable String pk, long nowNanos) {
    this.key = key;
    this.pk = pk;
    this.lastUsedNanos = nowNanos;
    this.bornNanos = nowNanos;
  }

  /**
   * Marks the partition used at {@code nowNanos} for eviction (an approximate LRU: a stamp, no
   * reordering). A release store: eviction only needs to see it eventually, and a full volatile
   * write would put a fence on every acquire.
   */
  void touch(long nowNanos) {
    LAST_USED.setRelease(this, nowNanos);
  }

  /**
   * Returns the sub-partition of the server's partition key {@code pk} and makes it the current
   * one, created if new. A base keeps at most {@link #MAX_CHILDREN}: a new one replaces the least
   * recently used (an idle one if any). Sub-partitions live here, not in the partition store, so
   * a server that rotates its key on every response replaces only its own origin's
   * sub-partitions and never evicts another partition. Takes this monitor (and a replaced
   * sub-partition's, in that order).
   */
  Partition childFor(String pk, long now) {
    Partition current = child;
    if (current != null && !current.evicted && pk.equals(current.pk)) {
      current.touch(now);
      return current;
    }
    synchronized (this) {
      for (Partition c : children) {
        if (pk.equals(c.pk)) {
          c.touch(now);
          child = c;
          return c;
        }
      }
      Partition created = new Partition(key + "|pk=" + pk, pk, now);
      Partition[] old = children;
      if (old.length < MAX_CHILDREN) {
        Partition[] copy = Arrays.copyOf(old, old.length + 1);
        copy[old.length] = created;
        children = copy;
      } else {
        int victim = 0;
        for (int i = 1; i < old.length; i++) {
          if (replaces(old[i], old[victim], now)) {
            victim = i;
          }
        }
        Partition gone = old[victim];
        synchronized (gone) {
          gone.evicted = true; // a decision holding it sees the mark, as with the store's
        }
        Partition[] copy = old.clone();
        copy[victim] = created;
        children = copy;
      }
      child = created;
      return created;
    }
  }

  /** Whether {@code a} is a better victim than {@code b}: idle before busy, then least recent. */
  private static boolean replaces(Partition a, Partition b, long now) {
    boolean aBusy = a.busy(now);
    if (aBusy != b.busy(now)) {
      return !aBusy;
    }
    return a.lastUsedNanos < b.lastUsedNanos;
  }

  /** Returns the sub-partitions this base keeps. */
  synchronized Partition[] children() {
    return children;
  }

  /** Returns the policies (a copy-on-write array: iterate it, never change it). */
  PolicyState[] policies() {
    return policies;
  }

  /** Returns the next commit sequence number. */
  long nextSeq() {
    return seq++;
  }

  /** Returns the oldest committed permit still live (then {@code newerLive} in order); null if none. */
  @Nullable PermitImpl oldestLive() {
    return oldestLive;
  }

  /** Returns when the oldest live permit was committed; {@code now} if none. */
  long oldestCommitNanos(long now) {
    PermitImpl oldest = oldestLive;
    return oldest != null ? Math.min(now, oldest.committedNanos) : now;
  }

  /**
   * Returns since when the oldest live permit has been out: when it was to be sent, or committed
   * if later; {@code now} if none. (Permits are committed in order and mostly sent in order.)
   */
  long oldestOutNanos(long now) {
    PermitImpl oldest = oldestLive;
    return oldest != null
        ? Math.min(now, Math.max(oldest.committedNanos, oldest.sendAtNanos)) : now;
  }

  /**
   * Returns how many live permits are to be sent after {@code now} (their callers wait for
   * their time). Walks the live permits: for snapshots, not for decisions.
   */
  int scheduledAfter(long now) {
    int n = 0;
    for (PermitImpl p = newestLive; p != null; p = p.olderLive) {
      if (p.sendAtNanos > now) {
        n++;
      }
    }
    return n;
  }

  /**
   * Returns the latest send time of the first {@code count} live permits found that go at
   * {@code from} or later (the newest first, as they were committed); Long.MIN_VALUE if fewer
   * go then. Stops at {@code count}: a few steps when the permits going then are the newest.
   */
  long latestOfSentFrom(long from, int count) {
    int n = 0;
    long latest = Long.MIN_VALUE;
    for (PermitImpl p = newestLive; p != null; p = p.olderLive) {
      if (p.sendAtNanos >= from) {
        latest = Math.max(latest, p.sendAtNanos);
        if (++n >= count) {
          return latest;
        }
      }
    }
    return Long.MIN_VALUE;
  }

  /** Returns how many permits were committed so far. */
  long commits() {
    return seq;
  }

  /** Returns the stamp of a new response being applied. */
  long nextStamp() {
    return ++stamp;
  }

  /**
   * Charges a permit of {@code route} (null if none is held) committed at {@code now} to be
   * sent at {@code sendAtNanos}: every policy that constrains it commits its cost, then its units
   * are in flight.
   */
  void charge(PermitImpl permit, @Nullable Route route, PacingStrategy strategy, long now,
      long sendAtNanos) {
    long gap = 0;
    for (PolicyState state : policies) {
      if (routes.constrains(state, route, permit.request, permit.attribute)) {
        gap = Math.max(gap, state.commit(strategy, state.flight(inFlight),
            permit.cost(state.unit), now, sendAtNanos));
      }
    }
    permit.gapNanos = Math.max(permit.gapNanos, gap);
    enter(permit, route, now);
  }

  /**
   * Puts a permit committed at {@code now} in flight without charging any policy (the check of
   * a long block, see {@link LongBlocks}: it moves no pacing cursor).
   */
  void enter(PermitImpl permit, @Nullable Route route, long now) {
    inFlight.add(permit);
    routes.charge(permit, route, policies, now);
    link(permit, now);
  }

  /** Adds a permit committed at {@code now} to the live list (reclaimed from then on). */
  private void link(PermitImpl permit, long now) {
    if (permit.base == this && !permit.live) {
      permit.committedNanos = now;
      permit.live = true;
      permit.olderLive = newestLive;
      permit.newerLive = null;
      if (newestLive != null) {
        newestLive.newerLive = permit;
      } else {
        oldestLive = permit;
      }
      newestLive = permit;
    }
  }

  /**
   * Returns the oldest committed permit if it was committed at least {@code reclaimAfterNanos}
   * before {@code now} (it is to be reclaimed), else null.
   */
  @Nullable PermitImpl expired(long now, long reclaimAfterNanos) {
    PermitImpl oldest = oldestLive;
    return oldest != null && Time.sub(now, oldest.committedNanos) >= reclaimAfterNanos ? oldest
        : null;
  }

  /** Whether anything keeps this partition's state alive: permits in flight, a hold, waiters. */
  boolean busy(long now) {
    return inFlight.permits() > 0 || hold.untilNanos() > now || line.waiting();
  }

  private void unlink(PermitImpl permit) {
    if (permit.base != this || !permit.live) {
      return;
    }
    PermitImpl older = permit.olderLive;
    PermitImpl newer = permit.newerLive;
    if (older != null) {
      older.newerLive = newer;
    } else {
      oldestLive = newer;
    }
    if (newer != null) {
      newer.olderLive = older;
    } else {
      newestLive = older;
    }
    permit.olderLive = null;
    permit.newerLive = null;
    permit.live = false;
  }

  /**
   * Takes a permit's units out of flight; {@code refund}: it was never sent, so every policy gets
   * back what it took (declared policies their units, server policies the permit's slot in the
   * schedule).
   */
  void uncharge(PermitImpl permit, @Nullable Route route, boolean refund) {
    inFlight.remove(permit);
    routes.uncharge(permit, route, policies);
    unlink(permit);
    if (refund) {
      for (PolicyState state : policies) {
        if (!routes.constrains(state, route, permit.request, permit.attribute)) {
          continue; // not charged for it
        }
        state.refund(permit.cost(state.unit), permit.gapNanos);
      }
    }
  }

  /**
   * Adds {@code policy}; past {@link #MAX_POLICIES}, it replaces the server policy updated least
   * recently, which every route forgets too (what a route governs is always a subset of the
   * partition's policies, so a server naming a new policy on every response grows nothing).
   */
  void add(PolicyState policy) {
    if (policy.declared()) {
      hold.known();
    }
    PolicyState[] old = policies;
    if (old.length >= MAX_POLICIES) {
      int victim = -1;
      for (int i = 0; i < old.length; i++) {
        if (!old[i].declared() && (victim < 0
            || old[i].updatedAtNanos < old[victim].updatedAtNanos)) {
          victim = i;
        }
      }
      if (victim >= 0) {
        PolicyState gone = old[victim];
        PolicyState[] copy = old.clone();
        copy[victim] = policy;
        policies = copy;
        routes.forget(gone, this);
        return;
      }
    }
    PolicyState[] copy = Arrays.copyOf(old, old.length + 1);
    copy[old.length] = policy;
    policies = copy;
  }

  /** Removes {@code policy}; every route forgets it. */
  void remove(PolicyState policy) {
    PolicyState[] old = policies;
    for (int i = 0; i < old.length; i++) {
      if (old[i] == policy) {
        PolicyState[] copy = new PolicyState[old.length - 1];
        System.arraycopy(old, 0, copy, 0, i);
        System.arraycopy(old, i + 1, copy, i, old.length - i - 1);
        policies = copy;
        routes.forget(policy, this);
        return;
      }
    }
  }

  private @Nullable ServerPolicy server(String name, @Nullable String qualifier) {
    for (PolicyState p : policies) {
      if (p instanceof ServerPolicy sp && sp.name.equals(name)
          && java.util.Objects.equals(sp.qualifier, qualifier)) {
        return sp;
      }
    }
    return null;
  }

  /**
   * Returns the server policy {@code name} of the requests whose scope attribute is
   * {@code qualifier} (null: of any request), added (requests, unknown quota) if new.
   */
  ServerPolicy serverPolicy(String name, @Nullable String qualifier, String dialect, long now) {
    ServerPolicy state = server(name, qualifier);
    if (state == null) {
      state = new ServerPolicy(name, QuotaUnit.REQUESTS, dialect, now);
      state.qualifier = qualifier;
      add(state);
    }
    return state;
  }
}
