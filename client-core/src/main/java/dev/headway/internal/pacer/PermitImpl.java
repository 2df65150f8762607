package dev.headway.internal.pacer;

import dev.headway.HttpFields;
import dev.headway.Permit;
import dev.headway.QuotaUnit;
import dev.headway.RateLimitSignal;
import dev.headway.RequestInfo;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import org.jspecify.annotations.Nullable;

/**
 * The pacer's permit: owns its cost, its partitions, its lifecycle (new, committed, done), its
 * committed send time and commit order, and its place in the partition's line. Created before
 * the decision: the one allocation of the acquire path.
 */
final class PermitImpl implements Permit {
  static final int NEW = 0;
  static final int COMMITTED = 1;
  static final int DONE = 2;
  private static final VarHandle STATE;
  private static final VarHandle HANDED_OUT;
  private static final VarHandle SEND_AT;

  static {
    try {
      MethodHandles.Lookup lookup = MethodHandles.lookup();
      STATE = lookup.findVarHandle(PermitImpl.class, "state", int.class);
      HANDED_OUT = lookup.findVarHandle(PermitImpl.class, "handedOut", boolean.class);
      SEND_AT = lookup.findVarHandle(PermitImpl.class, "sendAtNanos", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private static final RequestInfo NO_REQUEST =
      RequestInfo.get(java.net.URI.create("http://localhost/"));

  final Engine engine;
  /**
   * Its cost in request units: the configured cost, or the one its route learned
   * ({@link RouteTable#cost}), set by each decision while the permit is not committed (under
   * the base partition's monitor); fixed once committed.
   */
  long costRequests;
  /**
   * The costs in bytes and tokens; null for the default pricing, no bytes and as many tokens as
   * requests (most requests: a smaller permit).
   */
  private final long @Nullable [] otherCosts;
  /** The request, for its route's readable form when a response teaches it. */
  final RequestInfo request;
  /** The scope attribute of the request (such as a model name), or null. */
  final @Nullable String attribute;
  /**
   * The hash of the request's route ({@link Routes#hash}), or 0 until {@link #routeHash()} first
   * computes it.
   */
  private volatile long routeHash;
  /** The route the permit was charged to (base partition), or null. */
  @Nullable Route route;
  Partition base;
  @Nullable Partition child;
  volatile int state;
  volatile boolean handedOut;
  volatile long sendAtNanos;
  long seq;
  /** The fleet lease this permit spent units of (with a {@code QuotaStore}); else null. */
  dev.headway.store.@Nullable Lease lease;
  /** How far this permit's commit moved a pacing cursor: its slot, given back if never sent. */
  long gapNanos;
  /** When it was committed (reclaimed {@code permitLease} later); under the base's monitor. */
  long committedNanos;
  /** Its neighbours in the base partition's list of committed permits (oldest first). */
  @Nullable PermitImpl olderLive;
  @Nullable PermitImpl newerLive;
  /** Whether it is in that list. */
  boolean live;
  /** The arrival ticket in the partition's line; -1 before the first decision. */
  long ticket = -1;
  /** When this permit, waiting in line, looks again; Long.MAX_VALUE when not in line. */
  long waitWakeNanos = Long.MAX_VALUE;
  /** Whether its turn in line was estimated: it keeps its place (see Admission.placeInLine). */
  boolean placed;
  /** The asynchronous acquire waiting for this permit; null for any other caller. */
  volatile @Nullable AsyncAcquire waiter;
  /** Its time came from a spent count's units back before its reset ({@link Retiming}). */
  boolean backBeforeReset;

  /** A permit of no particular request (the parts of the engine used alone). */
  PermitImpl(Engine engine, Partition base, long costRequests, long costBytes,
      long costTokens) {
    this(engine, base, costRequests, costBytes, costTokens, NO_REQUEST, null);
  }

  PermitImpl(Engine engine, Partition base, long costRequests, long costBytes,
      long costTokens, RequestInfo request, @Nullable String attribute) {
    this.engine = engine;
    this.request = request;
    this.attribute = attribute;
    this.base = base;
    this.costRequests = costRequests;
    this.otherCosts = costBytes == 0 && costTokens == costRequests ? null
        : new long[] {costBytes, costTokens};
  }

  /**
   * Marks the permit handed to its caller. A release store (no fence on the hot path): whoever
   * reads it from another thread does so after the permit's state CAS, which orders it.
   */
  void handOut() {
    HANDED_OUT.setRelease(this, true);
  }

  /** Sets {@link #sendAtNanos} with a release store (the decision's one write of it). */
  void sendAt(long nanos) {
    SEND_AT.setRelease(this, nanos);
  }

  /**
   * Returns the key of its base partition (the same after an eviction: a new partition of the
   * same key takes the evicted one's place).
   */
  String key() {
    return base.key;
  }

  /**
   * Returns the hash of the request's route, computed on first use ({@link Routes#hash} is never
   * 0). Two threads computing it at once compute the same value.
   */
  long routeHash() {
    long h = routeHash;
    if (h == 0) {
      routeHash = h = Routes.cachedHash(request.method(), request.uri(), attribute);
    }
    return h;
  }

  /** Returns the readable form of the request's route (allocates: once per new route). */
  String routeKey() {
    return Routes.key(request.method(), request.uri(), attribute);
  }

  long costBytes() {
    long[] other = otherCosts;
    return other == null ? 0 : other[0];
  }

  long costTokens() {
    long[] other = otherCosts;
    return other == null ? costRequests : other[1];
  }

  long cost(QuotaUnit unit) {
    switch (unit) {
      case CONTENT_BYTES:
        return costBytes();
      case TOKENS:
        return costTokens();
      case CONCURRENT_REQUESTS:
        return 1;
      default:
        return costRequests;
    }
  }

  boolean commitState() {
    return STATE.compareAndSet(this, NEW, COMMITTED);
  }

  /**
   * Ends the permit: returns the state it ended from (NEW or COMMITTED), or DONE if it had
   * already ended.
   */
  private int end() {
    return (int) STATE.getAndSet(this, DONE);
  }

  boolean uncommitState() {
    return STATE.compareAndSet(this, COMMITTED, NEW);
  }

  /** Ends a committed permit left past {@code permitLease}; false if it ended or was undone. */
  boolean expireState() {
    return STATE.compareAndSet(this, COMMITTED, DONE);
  }

  boolean isCommitted() {
    return state == COMMITTED;
  }

  boolean isDone() {
    return state == DONE;
  }

  @Override
  public String partition() {
    Partition c = child;
    return c != null ? c.key : base.key;
  }

  @Override
  public long cost() {
    return costRequests;
  }

  @Override
  public RateLimitSignal complete(int status, HttpFields headers, byte @Nullable [] body) {
    RateLimitSignal signal;
    try {
      signal = engine.parse(this, status, headers, body);
    } catch (RuntimeException | LinkageError | StackOverflowError e) {
      // A signal can never break a request: a parser failure (a dialect's bug, a missing or
      // incompatible library) is as if nothing was said.
      engine.swallowed("the signal parser", e);
      signal = RateLimitSignal.none(status);
    }
    complete(signal);
    return signal;
  }

  @Override
  public void complete(RateLimitSignal signal) {
    if (end() == COMMITTED) {
      try {
        engine.onResponse(this, signal);
      } catch (RuntimeException | LinkageError | StackOverflowError e) {
        // The units left flight first; what the response said is lost, never the permit.
        engine.swallowed("reading a response into the quota state", e);
      }
    }
  }

  @Override
  public void release() {
    int was = end();
    if (was == COMMITTED) {
      engine.onRelease(this);
    } else if (was == NEW) {
      engine.leaveLine(this);
    }
  }

  @Override
  public void close() {
    release();
  }

  @Override
  public String toString() {
    return "Permit[" + PartitionNames.shown(partition()) + ", cost " + costRequests + "]";
  }
}
