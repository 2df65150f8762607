package dev.headway.internal.pacer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * The state of one partition: its policies, the units in flight, a hold after a throttled
 * response. Mutable fields are guarded by the partition's monitor, except the volatile ones.
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

  static final int UNITS = 4;
  /** The most policies one partition keeps; a server naming more replaces the least recent. */
  static final int MAX_POLICIES = 16;

  final String key;
  /** The server's partition key for a sub-partition; null for a partition of the resolver. */
  final @Nullable String pk;
  /** The sub-partition for the partition key the server sent last (base partitions only). */
  volatile @Nullable Partition child;
  volatile long lastUsedNanos;
  volatile boolean evicted;
  /** No request is sent before this after a throttled response; Long.MIN_VALUE if none. */
  volatile long holdUntilNanos = Long.MIN_VALUE;

  /**
   * Only {@code probes} requests may be in flight until a response to a request sent at or after
   * {@link #probeFromNanos} says what the server thinks: on first contact, and after a hold.
   */
  boolean probing = true;
  long probeFromNanos = Long.MIN_VALUE;
  /**
   * After a hold the server explained with no quota (Retry-After only, or nothing): at most this
   * many permits in flight, one more per successful response sent after the hold (slow start),
   * unbounded again once no request was throttled for as long as the hold lasted.
   * Integer.MAX_VALUE when not ramping.
   */
  int admitCap = Integer.MAX_VALUE;
  long rampFromNanos;
  long rampUntilNanos;
  /** Whether the client declared policies for this partition (then first contact is known). */
  boolean hasDeclared;

  PolicyState[] policies = NO_POLICIES;
  final long[] inFlight = new long[UNITS];
  int permitsInFlight;
  long seq;
  /** The arrival order of acquire calls: a permit's ticket, taken at its first decision. */
  long arrivals;
  /**
   * Callers waiting in line for units a rate policy does not have yet (spent until a reset, or
   * only probes until the server answers): ticket to the time each looks again. A younger
   * caller does not take what an older one in line waits for (see Engine, "Waiting in line").
   * Null until someone waits.
   */
  @Nullable TreeMap<Long, Long> waiters;
  long stamp;
  int consecutiveThrottles;
  long lastBackoffNanos;

  Partition(String key, @Nullable String pk, long nowNanos) {
    this.key = key;
    this.pk = pk;
    this.lastUsedNanos = nowNanos;
  }

  /**
   * Marks the partition used at {@code nowNanos} for eviction (an approximate LRU: a stamp, no
   * reordering). A release store: eviction only needs to see it eventually, and a full volatile
   * write would put a fence on every acquire.
   */
  void touch(long nowNanos) {
    LAST_USED.setRelease(this, nowNanos);
  }

  void add(PolicyState policy) {
    if (policy.declared()) {
      hasDeclared = true;
      probing = false;
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
        PolicyState[] copy = old.clone();
        copy[victim] = policy;
        policies = copy;
        return;
      }
    }
    PolicyState[] copy = java.util.Arrays.copyOf(old, old.length + 1);
    copy[old.length] = policy;
    policies = copy;
  }

  void remove(PolicyState policy) {
    PolicyState[] old = policies;
    for (int i = 0; i < old.length; i++) {
      if (old[i] == policy) {
        PolicyState[] copy = new PolicyState[old.length - 1];
        System.arraycopy(old, 0, copy, 0, i);
        System.arraycopy(old, i + 1, copy, i, old.length - i - 1);
        policies = copy;
        return;
      }
    }
  }

  @Nullable ServerPolicy server(String name) {
    for (PolicyState p : policies) {
      if (p instanceof ServerPolicy sp && sp.name.equals(name)) {
        return sp;
      }
    }
    return null;
  }
}
