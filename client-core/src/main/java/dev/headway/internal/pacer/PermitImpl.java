package dev.headway.internal.pacer;

import dev.headway.HttpFields;
import dev.headway.Permit;
import dev.headway.QuotaUnit;
import dev.headway.RateLimitSignal;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
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
  private static final AtomicIntegerFieldUpdater<PermitImpl> STATE =
      AtomicIntegerFieldUpdater.newUpdater(PermitImpl.class, "state");
  private static final VarHandle HANDED_OUT;
  private static final VarHandle SEND_AT;

  static {
    try {
      MethodHandles.Lookup lookup = MethodHandles.lookup();
      HANDED_OUT = lookup.findVarHandle(PermitImpl.class, "handedOut", boolean.class);
      SEND_AT = lookup.findVarHandle(PermitImpl.class, "sendAtNanos", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  final Engine engine;
  final String key;
  final long costRequests;
  final long costBytes;
  final long costTokens;
  Partition base;
  @Nullable Partition child;
  volatile int state;
  volatile boolean handedOut;
  volatile long sendAtNanos;
  long seq;
  /** The fleet lease this permit spent units of (with a {@code QuotaStore}); else null. */
  dev.headway.store.@Nullable Lease lease;
  /** The arrival ticket in the partition's line; -1 before the first decision. */
  long ticket = -1;
  /** When this permit, waiting in line, looks again; Long.MAX_VALUE when not in line. */
  long waitWakeNanos = Long.MAX_VALUE;

  PermitImpl(Engine engine, String key, Partition base, long costRequests, long costBytes,
      long costTokens) {
    this.engine = engine;
    this.key = key;
    this.base = base;
    this.costRequests = costRequests;
    this.costBytes = costBytes;
    this.costTokens = costTokens;
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

  long cost(QuotaUnit unit) {
    switch (unit) {
      case CONTENT_BYTES:
        return costBytes;
      case TOKENS:
        return costTokens;
      case CONCURRENT_REQUESTS:
        return 1;
      default:
        return costRequests;
    }
  }

  boolean commitState() {
    return STATE.compareAndSet(this, NEW, COMMITTED);
  }

  boolean uncommitState() {
    return STATE.compareAndSet(this, COMMITTED, NEW);
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
    return c != null ? c.key : key;
  }

  @Override
  public long cost() {
    return costRequests;
  }

  @Override
  public RateLimitSignal complete(int status, HttpFields headers, byte @Nullable [] body) {
    RateLimitSignal signal;
    try {
      signal = engine.parse(status, headers, body);
    } catch (RuntimeException e) {
      // A signal can never break a request: a parser failure is as if nothing was said.
      signal = RateLimitSignal.none(status);
    }
    complete(signal);
    return signal;
  }

  @Override
  public void complete(RateLimitSignal signal) {
    if (STATE.compareAndSet(this, COMMITTED, DONE)) {
      engine.onResponse(this, signal);
    } else {
      STATE.compareAndSet(this, NEW, DONE);
    }
  }

  @Override
  public void release() {
    if (STATE.compareAndSet(this, COMMITTED, DONE)) {
      engine.onRelease(this);
    } else if (STATE.compareAndSet(this, NEW, DONE)) {
      engine.leaveLine(this);
    }
  }

  @Override
  public void close() {
    release();
  }

  @Override
  public String toString() {
    return "Permit[" + partition() + ", cost " + costRequests + "]";
  }
}
