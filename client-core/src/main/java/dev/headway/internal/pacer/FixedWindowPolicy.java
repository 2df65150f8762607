package dev.headway.internal.pacer;

import dev.headway.ClientPolicy;
import dev.headway.PacingStrategy;
import dev.headway.PolicySnapshot;
import dev.headway.QuotaUnit;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A client-declared fixed window (as in Macartney, "Application-Layer Rate Limiting"): the balance
 * {@code value} and the start {@code ts} of the window it belongs to. Each window adds {@code rate}
 * units, up to {@code capacity}; the balance may go negative up to {@code maxReserved}.
 */
final class FixedWindowPolicy extends PolicyState {
  private final long rate;
  private final long periodNanos;
  private final long capacity;
  private final long maxReserved;
  private long value;
  private long ts;

  FixedWindowPolicy(ClientPolicy.FixedWindow config, long nowNanos, long windowStartNanos) {
    super(config.name(), QuotaUnit.REQUESTS, "client", nowNanos);
    this.rate = config.rate();
    this.periodNanos = Math.max(1, Time.nanos(config.period()));
    this.capacity = config.capacity();
    this.maxReserved = config.maxReserved();
    this.value = capacity;
    this.ts = windowStartNanos;
  }

  @Override
  boolean declared() {
    return true;
  }

  @Override
  void roll(long nowNanos) {
    long elapsed = Math.floorDiv(Time.sub(nowNanos, ts), periodNanos);
    if (elapsed > 0) {
      long added = Time.mul(elapsed, rate);
      value = Math.min(Time.add(value, added), capacity);
      ts = Time.add(ts, Time.mul(elapsed, periodNanos));
    }
  }

  @Override
  long earliest(Settings settings, Evaluation evaluation, Partition partition, long cost,
      long nowNanos, long notBeforeNanos, long deadlineNanos) {
    long after = value - Math.min(cost, capacity);
    if (after >= 0) {
      return notBeforeNanos;
    }
    long debt = -after;
    if (debt > maxReserved) {
      long windows = (debt - maxReserved + rate - 1) / rate;
      return evaluation.refuseUntil(Time.add(ts, Time.mul(windows, periodNanos)));
    }
    long windows = (debt + rate - 1) / rate;
    return Math.max(notBeforeNanos, Time.add(ts, Time.mul(windows, periodNanos)));
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
    return new PolicySnapshot(name, OptionalLong.of(rate), OptionalLong.of(Math.max(0, value)),
        0, Optional.of(Duration.ofNanos(Math.max(0, Time.add(ts, periodNanos) - nowNanos))),
        Optional.of(Duration.ofNanos(periodNanos)), unit, source,
        Duration.ofNanos(Math.max(0, nowNanos - updatedAtNanos)));
  }
}
