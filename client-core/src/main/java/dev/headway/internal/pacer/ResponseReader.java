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
    boolean learned;
    boolean lifted;
    synchronized (base) {
      child = permit.child;
      base.uncharge(permit, permit.route, false);
      boolean probe = base.verifier.isProbe(permit);
      lifted = probe && !throttled && signal.status() < 400;
      if (throttled || !signal.limits().isEmpty() || !signal.policies().isEmpty()) {
        base.hold.limitsHeard();
      }
      if (throttled && !spentScoped(base, signal)) {
        holdNanos = advisor.holdNanos(signal,
            base.hold.throttled(permit.sendAtNanos, now));
        base.hold.holdFor(now, holdNanos,
            signal.limits().isEmpty() && signal.policies().isEmpty(), settings.probes);
      } else if (!throttled) {
        if (lifted) {
          base.hold.lift(permit.sendAtNanos, now, settings.maxWaitNanos);
          forgetBlocks(base);
        }
        base.hold.answered(permit.sendAtNanos, signal.status(), now);
        if (signal.status() < 400 && signal.limits().isEmpty() && signal.policies().isEmpty()) {
          base.hold.admittedUnknown(settings.probes);
        }
      }
      apply(base, permit, signal, null, now);
      if (probe) {
        base.verifier.answered(lifted, now, settings.maxWaitNanos);
      }
      if (throttled && signal.retryAfter().isPresent()) {
        retryAfterFirst(base, permit, signal, now);
      }
      learned = LearnedRate.learn(base, permit, signal, base.hold.untilNanos(),
          settings.maxWaitNanos, now);
      if (base.shared != null) {
        base.shared.observed(signal, permit.lease, permit.costRequests, permit.sendAtNanos, now,
            throttled ? base.hold.untilNanos() : Long.MIN_VALUE);
        permit.lease = null;
      }
    }
    if (child != null) {
      synchronized (child) {
        child.uncharge(permit, null, false);
        if (lifted) {
          forgetBlocks(child);
        }
        if (child == target) {
          apply(child, permit, signal, pk, now);
          if (throttled && signal.retryAfter().isPresent()) {
            retryAfterFirst(child, permit, signal, now);
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
      List<SignalWarning> warnings = signal.warnings();
      for (int i = 0; i < warnings.size(); i++) { // no iterator: the log is always listening
        events.emit(new PacerEvent.SignalWarned(partition, warnings.get(i)));
      }
      if (throttled) {
        events.emit(new PacerEvent.Throttled(base.key, signal.status(),
            Duration.ofNanos(holdNanos)));
      }
      if (events.wantsQuota()
          && (learned || !signal.policies().isEmpty() || !signal.limits().isEmpty())) {
        events.emit(new PacerEvent.QuotaUpdated(partition, snapshots.snapshot(target)));
      }
    }
  }

  /** {@code Retry-After} takes precedence over a limit's reset; see ServerPolicy.retryAfter. */
  private void retryAfterFirst(Partition partition, PermitImpl permit, RateLimitSignal signal,
      long now) {
    long retryNanos = Math.min(Time.nanos(signal.retryAfter().get()),
        Time.nanos(settings.caps.maxRetryAfter()));
    long until = Time.add(now, retryNanos);
    Route route = partition.routes.find(permit.routeHash());
    for (PolicyState s : partition.policies()) {
      if (s instanceof ServerPolicy state
          && partition.routes.constrains(s, route, permit.request, permit.attribute)) {
        state.retryAfter(retryNanos, until, permit.sendAtNanos, now);
      }
    }
  }

  /**
   * Whether a throttled response only says that policies which do not govern every route are
   * spent (each named limit at zero, with its reset): those policies hold back their own routes
   * until then, and the partition's other routes are not held.
   */
  private static boolean spentScoped(Partition base, RateLimitSignal signal) {
    List<QuotaLimit> limits = signal.limits();
    if (limits.isEmpty() || !base.routes.scoped()) {
      return false;
    }
    for (int i = 0; i < limits.size(); i++) {
      QuotaLimit limit = limits.get(i);
      if (limit.remaining() != 0 || limit.reset().isEmpty()
          || limit.partitionKey().isPresent()) {
        return false;
      }
    }
    return true;
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

  /**
   * A probe of a long block succeeded: what the blocking policies said is no longer believed.
   * The response's own values then replace it, a policy it does not mention is dropped, and so
   * is a rate learned from the block.
   */
  private static void forgetBlocks(Partition partition) {
    for (PolicyState s : partition.policies()) {
      if (s instanceof ServerPolicy state) {
        state.forgetIfBlocking();
      } else if (s instanceof LearnedRate) {
        partition.remove(s); // what the block taught is not believed either
      }
    }
  }

  /** Applies what a response says to one partition; under its monitor. */
  private void apply(Partition partition, PermitImpl permit, RateLimitSignal signal,
      @Nullable String pk, long now) {
    long stamp = partition.nextStamp();
    // Scopes are learned on the partitions of the resolver; a server partition's are its own.
    String qualifier = pk == null ? permit.attribute : null;
    Route route = pk == null && mentions(signal)
        ? partition.routes.route(permit, partition, now) : null;
    boolean learned = false;
    List<QuotaPolicy> policies = signal.policies();
    for (int i = 0; i < policies.size(); i++) {
      QuotaPolicy policy = policies.get(i);
      if (matches(policy.partitionKey(), pk)) {
        ServerPolicy state = partition.serverPolicy(policy.name(), qualifier, policy.dialect(),
            now);
        state.declare(policy, settings.caps, stamp);
        learned |= route != null && route.add(state);
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
      ServerPolicy state = partition.serverPolicy(limit.policy(), qualifier, limit.dialect(),
          now);
      learned |= route != null && route.add(state);
      long count = Math.min(limit.remaining(), settings.caps.maxRemaining());
      long resetAt = Long.MIN_VALUE;
      if (limit.reset().isPresent()) {
        long reset = Math.min(Time.nanos(limit.reset().get()),
            Time.nanos(settings.caps.maxReset()));
        resetAt = Time.add(now, reset);
      }
      state.accept(permit, count, resetAt, signal.status(), state.flight(partition.inFlight),
          limit.dialect(), stamp, now);
    }
    if (learned) {
      partition.routes.recount(partition);
    }
    RouteTable routes = partition.routes;
    Route own = route != null ? route : routes.find(permit.routeHash());
    for (PolicyState s : partition.policies()) {
      // A response does not spend a policy that does not govern its request.
      if (s instanceof ServerPolicy state && state.touchedStamp != stamp
          && routes.constrains(state, own, permit.request, permit.attribute)
          && state.unmentioned(permit, now)) {
        partition.remove(state);
        routes.recount(partition);
      }
    }
  }

  private static boolean mentions(RateLimitSignal signal) {
    return !signal.policies().isEmpty() || !signal.limits().isEmpty();
  }
}
