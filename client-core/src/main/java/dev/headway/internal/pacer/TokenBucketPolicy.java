package dev.headway.internal.pacer;

import dev.headway.ClientPolicy;
import dev.headway.PacingStrategy;
import dev.headway.PolicySnapshot;
import dev.headway.QuotaUnit;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A client-declared token bucket (as in Macartney, "Application-Layer Rate Limiting"): two numbers
 * of state, the balance {@code value} at time {@code ts}. Refill is continuous at
 * {@code rate / period}; the balance may go negative up to {@code maxReserved} (a reservation),
 * and the caller runs when the debt is repaid.
 */
final class TokenBucketPolicy extends PolicyState {
  private final double rate;
  private final double periodNanos;
  private final double capacity;
  private final long maxReserved;
  private double value;
  private long ts;

  TokenBucketPolicy(ClientPolicy.TokenBucket config, long nowNanos) {
    super(config.name(), QuotaUnit.REQUESTS, "client", nowNanos);
    this.rate = config.rate();
    this.periodNanos = Time.nanos(config.period());
    this.capacity = config.capacity();
    this.maxReserved = config.maxReserved();
    this.value = capacity;
    this.ts = nowNanos;
  }

  @Override
  boolean declared() {
    return true;
  }

  @Override
  void roll(long nowNanos) {
    if (nowNanos > ts) {
      value = Math.min(value + (nowNanos - ts) * rate / periodNanos, capacity);
      ts = nowNanos;
    }
  }

  @Override
  long earliest(Settings settings, Evaluation evaluation, Partition partition, long cost,
      long nowNanos, long notBeforeNanos, long deadlineNanos) {
    double after = value - Math.min(cost, capacity);
    if (after >= 0) {
      return notBeforeNanos;
    }
    double debt = -after;
    if (debt > maxReserved) {
      return evaluation.refuseUntil(Time.add(nowNanos, delayFor(debt - maxReserved)));
    }
    return Math.max(notBeforeNanos, Time.add(nowNanos, delayFor(debt)));
  }

  private long delayFor(double units) {
    double nanos = Math.ceil(units * periodNanos / rate);
    return nanos >= Long.MAX_VALUE ? Long.MAX_VALUE : (long) nanos;
  }

  @Override
  long commit(PacingStrategy strategy, InFlight inFlight, long cost, long nowNanos,
      long sendAtNanos) {
    value -= Math.min(cost, capacity);
    updatedAtNanos = nowNanos;
    return 0;
  }

  @Override
  void refund(long cost, long gapNanos) {
    value = Math.min(value + Math.min(cost, capacity), capacity);
  }

  @Override
  PolicySnapshot snapshot(InFlight inFlight, long nowNanos) {
    roll(nowNanos);
    long whole = (long) Math.floor(value);
    long refillNanos = value >= capacity ? 0 : delayFor(capacity - value);
    return new PolicySnapshot(name, OptionalLong.of((long) capacity),
        OptionalLong.of(Math.max(0, whole)), 0,
        Optional.of(Duration.ofNanos(refillNanos)),
        Optional.of(Duration.ofNanos((long) periodNanos)), unit, source,
        Duration.ofNanos(Math.max(0, nowNanos - updatedAtNanos)));
  }
}
