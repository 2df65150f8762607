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
  private final RetryAdvisor advisor;
  private final Snapshots snapshots;
  private final EventSink events;

  ResponseReader(Settings settings, RetryAdvisor advisor,
      Snapshots snapshots, EventSink events) {
    this.settings = settings;
    this.advisor = advisor;
    this.snapshots = snapshots;
    this.events = events;
  }

  /**
   * Applies the response to a committed permit's request: under the base partition's monitor
   * the permit leaves flight, the hold takes the response (held, lifted, or answered), every
   * policy takes what it says, the check of a long block ends, {@code Retry-After} goes first,
   * the learned rate and the fleet learn from it; then the server sub-partition, if any, takes
   * it under its own monitor; then the listeners are told.
   */
  void onResponse(PermitImpl permit, RateLimitSignal signal) {
    long now = settings.ticker.read();
    Partition base = permit.base;
    String pk = firstPartitionKey(signal);
    Partition target = pk == null ? base : base.childFor(pk, now);
    boolean throttled = signal.throttled();
    Partition child;
    long holdNanos;
    boolean learned;
    boolean lifted;
    @Nullable List<AsyncAcquire> sooner;
    synchronized (base) {
      child = permit.child;
      base.uncharge(permit, permit.route, false);
      boolean check = base.longBlocks.isCheck(permit);
      lifted = check && !throttled && signal.status() < 400;
      holdNanos = hold(base, permit, signal, lifted, now);
      apply(base, permit, signal, null, now);
      if (check) {
        base.longBlocks.answered(lifted, now, settings.checkGapNanos);
      }
      if (throttled && signal.retryAfter().isPresent()) {
        retryAfterFirst(base, permit, signal, now);
      }
      learned = learn(base, permit, signal, now);
      if (signal.status() == 429) {
        Retiming.throttled(base, permit);
      }
      sooner = Retiming.sooner(base, settings, now);
    }
    if (sooner != null) {
      for (AsyncAcquire waiter : sooner) {
        waiter.sooner();
      }
    }
    if (child != null) {
      synchronized (child) {
        applyToChild(child, target, permit, signal, pk, lifted, now);
      }
    }
    if (target != base && target != child) {
      synchronized (target) {
        apply(target, permit, signal, pk, now);
      }
    }
    if (events.enabled()) {
      tell(base, target, signal, holdNanos, learned);
    }
  }

  /**
   * What the response does to the base partition's hold (its monitor held): a throttled one
   * holds it (unless only scoped policies are spent); an answer lifts it if it is the successful
   * check of a long block, and ends the probing or the ramp it answers. Returns how long the
   * partition is held for, 0 if not.
   */
  private long hold(Partition base, PermitImpl permit, RateLimitSignal signal, boolean lifted,
      long now) {
    boolean throttled = signal.throttled();
    boolean silent = signal.limits().isEmpty() && signal.policies().isEmpty();
    if (throttled || !silent) {
      base.hold.limitsHeard();
    }
    if (throttled) {
      if (spentScoped(base, signal)) {
        return 0;
      }
      long holdNanos = advisor.holdNanos(signal, base.hold.throttled(permit.sendAtNanos, now));
      if (silent && holdNanos >= Hold.ONE_SECOND_NANOS && holdNanos % Hold.ONE_SECOND_NANOS == 0
          && signal.retryAfter().isPresent()
          && Time.nanos(signal.retryAfter().get()) == holdNanos) {
        base.hold.holdTold(permit.sendAtNanos, now, holdNanos, settings.probes); // whole seconds
      } else {
        base.hold.holdFor(now, holdNanos, silent, settings.probes);
      }
      return holdNanos;
    }
    if (lifted) {
      long checked = base.hold.untilNanos();
      base.hold.lift(permit.sendAtNanos, now, settings.maxWaitNanos);
      forgetBlocks(base);
      if (checked > now && base.shared != null) {
        base.shared.lifted(checked, now); // the fleet's hold, disproved for every instance
      }
    }
    base.hold.answered(permit.sendAtNanos, signal.status(), now);
    if (signal.status() < 400 && silent) {
      base.hold.admittedUnknown(settings.probes, now, settings.recheckNanos);
    }
    return 0;
  }

  /**
   * What the learned rate and the fleet's budget take from the response (the base partition's
   * monitor held); returns whether a rate was learned or changed.
   */
  private boolean learn(Partition base, PermitImpl permit, RateLimitSignal signal, long now) {
    boolean learned = LearnedRate.learn(base, permit, signal, base.hold.untilNanos(),
        settings.maxWaitNanos, SharedBudget.pacesAlone(settings, base), now);
    if (base.shared != null) {
      base.shared.observed(signal, permit.lease, permit.costRequests, permit.sendAtNanos, now,
          signal.throttled() ? base.hold.untilNanos() : Long.MIN_VALUE);
      permit.lease = null;
    }
    return learned;
  }

  /**
   * The server sub-partition the permit was charged to (its monitor held): the permit leaves
   * it, what a successful check lifted is forgotten there too, and if the response is its own
   * ({@code target}) it takes what it says.
   */
  private void applyToChild(Partition child, Partition target, PermitImpl permit,
      RateLimitSignal signal, @Nullable String pk, boolean lifted, long now) {
    child.uncharge(permit, null, false);
    if (lifted) {
      forgetBlocks(child);
    }
    if (child == target) {
      apply(child, permit, signal, pk, now);
      if (signal.throttled() && signal.retryAfter().isPresent()) {
        retryAfterFirst(child, permit, signal, now);
      }
    }
  }

  /** Tells the listeners what the response said: warnings, a throttle, the quota now. */
  private void tell(Partition base, Partition target, RateLimitSignal signal, long holdNanos,
      boolean learned) {
    String partition = target.key;
    List<SignalWarning> warnings = signal.warnings();
    for (int i = 0; i < warnings.size(); i++) { // no iterator: the log is always listening
      events.emit(new PacerEvent.SignalWarned(partition, warnings.get(i)));
    }
    if (signal.throttled()) {
      events.emit(new PacerEvent.Throttled(base.key, signal.status(),
          Duration.ofNanos(holdNanos)));
    }
    if (events.wantsQuota()
        && (learned || !signal.policies().isEmpty() || !signal.limits().isEmpty())) {
      events.emit(new PacerEvent.QuotaUpdated(partition, snapshots.snapshot(target)));
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

  private static boolean matches(Optional<String> itemPk, @Nullable String pk) {
    return pk == null ? itemPk.isEmpty() : itemPk.isPresent() && pk.equals(itemPk.get());
  }

  /**
   * The check of a long block succeeded: what the blocking policies said is no longer believed.
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
      // A reset past maxReset is not believed (a parser with other caps may pass one).
      if (limit.reset().isPresent()
          && limit.reset().get().compareTo(settings.caps.maxReset()) <= 0) {
        resetAt = Time.add(now, Time.nanos(limit.reset().get()));
      }
      state.window.answered(resetAt, count, state.quota, permit.cost(state.unit),
          signal.status() < 400, permit.base.oldestOutNanos(now) >= now, permit.sendAtNanos, now);
      state.window.openedAnswered(permit.sendAtNanos,
          signal.status() < 400 && state.window.newWindow(resetAt));
      state.accept(permit, count, resetAt, signal.status(), state.flight(partition.inFlight),
          limit.dialect(), stamp, now);
      if (signal.status() < 400 && state.quota > 0 && resetAt != Long.MIN_VALUE
          && limit.reset().get().getNano() == 0 // whole seconds: rounded
          && Time.add(count, permit.cost(state.unit)) == state.quota
          && permit.sendAtNanos >= state.window.epochStartNanos) {
        state.window.opened(resetAt, now); // the first request the server counted in its window
      }
      // In a fleet, the other instances spend the same count: its drops are not ours alone.
      partition.routes.counted(route, state, count,
          signal.status() < 400 && partition.shared == null);
    }
    if (route != null && signal.cost().isPresent()) {
      route.costSaid(signal.cost().getAsLong());
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
