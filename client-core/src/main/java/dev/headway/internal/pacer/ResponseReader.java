package dev.headway.internal.pacer;

import dev.headway.PacerEvent;
import dev.headway.QuotaLimit;
import dev.headway.QuotaPolicy;
import dev.headway.RateLimitSignal;
import dev.headway.SignalWarning;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Owns reading a response into state: the permit leaves flight, a throttled response holds the
 * partition, each policy the response names takes what it says ({@link ServerPolicy#declare},
 * {@link ServerPolicy#accept}), the others learn it was silent about them, and a server
 * partition key moves the state to a sub-partition. Holds no state of its own.
 */
final class ResponseReader {
  private final Settings settings;
  private final PartitionStore store;
  private final RetryAdvisor advisor;
  private final Snapshots snapshots;
  private final EventSink events;

  ResponseReader(Settings settings, PartitionStore store, RetryAdvisor advisor,
      Snapshots snapshots, EventSink events) {
    this.settings = settings;
    this.store = store;
    this.advisor = advisor;
    this.snapshots = snapshots;
    this.events = events;
  }

  /** Applies the response to a committed permit's request. */
  void onResponse(PermitImpl permit, RateLimitSignal signal) {
    long now = settings.ticker.read();
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
      base.uncharge(permit, false);
      if (throttled) {
        holdNanos = advisor.holdNanos(signal, base.hold.throttled());
        base.hold.holdFor(now, holdNanos,
            signal.limits().isEmpty() && signal.policies().isEmpty(), settings.probes);
      } else {
        base.hold.answered(permit.sendAtNanos, signal.status(), now);
      }
      apply(base, permit, signal, null, now);
      if (throttled && signal.retryAfter().isPresent()) {
        retryAfterFirst(base, signal, permit.sendAtNanos, now);
      }
      if (base.shared != null) {
        base.shared.observed(signal, permit.lease, permit.cost(dev.headway.QuotaUnit.REQUESTS),
            permit.sendAtNanos, now,
            throttled ? base.hold.untilNanos() : Long.MIN_VALUE);
      }
    }
    if (child != null) {
      synchronized (child) {
        child.uncharge(permit, false);
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
    if (events.enabled()) {
      String partition = target.key;
      for (SignalWarning warning : signal.warnings()) {
        events.emit(new PacerEvent.SignalWarned(partition, warning));
      }
      if (throttled) {
        events.emit(new PacerEvent.Throttled(base.key, signal.status(),
            Duration.ofNanos(holdNanos)));
      }
      if (!signal.policies().isEmpty() || !signal.limits().isEmpty()) {
        events.emit(new PacerEvent.QuotaUpdated(partition, snapshots.snapshot(target)));
      }
    }
  }

  /** {@code Retry-After} takes precedence over a limit's reset; see ServerPolicy.retryAfter. */
  private void retryAfterFirst(Partition partition, RateLimitSignal signal, long sentNanos,
      long now) {
    long retryNanos = Math.min(Time.nanos(signal.retryAfter().get()),
        Time.nanos(settings.caps.maxRetryAfter()));
    long until = Time.add(now, retryNanos);
    for (PolicyState s : partition.policies()) {
      if (s instanceof ServerPolicy state) {
        state.retryAfter(retryNanos, until, sentNanos, now);
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
    child = store.getOrCreate(base.key + "|pk=" + pk, pk, now);
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
    long stamp = partition.nextStamp();
    List<QuotaPolicy> policies = signal.policies();
    for (int i = 0; i < policies.size(); i++) {
      QuotaPolicy policy = policies.get(i);
      if (matches(policy.partitionKey(), pk)) {
        partition.serverPolicy(policy.name(), policy.dialect(), now)
            .declare(policy, settings.caps, stamp);
      }
    }
    for (PolicyState s : partition.policies()) {
      if (s instanceof ServerPolicy state) {
        state.answered(permit);
      }
    }
    List<QuotaLimit> limits = signal.limits();
    for (int i = 0; i < limits.size(); i++) {
      QuotaLimit limit = limits.get(i);
      if (!matches(limit.partitionKey(), pk)) {
        continue;
      }
      ServerPolicy state = partition.serverPolicy(limit.policy(), limit.dialect(), now);
      long count = Math.min(limit.remaining(), settings.caps.maxRemaining());
      long resetAt = Long.MIN_VALUE;
      if (limit.reset().isPresent()) {
        long reset = Math.min(Time.nanos(limit.reset().get()),
            Time.nanos(settings.caps.maxReset()));
        resetAt = Time.add(now, reset);
      }
      state.accept(permit, count, resetAt, signal.status(), partition.inFlight, limit.dialect(),
          stamp, now);
    }
    for (PolicyState s : partition.policies()) {
      if (s instanceof ServerPolicy state && state.touchedStamp != stamp
          && state.unmentioned(permit, now)) {
        partition.remove(state);
      }
    }
  }
}
