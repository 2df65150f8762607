package dev.headway.internal.pacer;

import dev.headway.PolicySnapshot;
import dev.headway.QuotaSnapshot;
import dev.headway.RequestInfo;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Owns inspection: immutable snapshots of partitions and their policies, taken under each
 * partition's monitor. Holds no state of its own.
 */
final class Snapshots {
  private final Settings settings;
  private final PartitionStore store;
  private final RetryBudgets budgets;

  Snapshots(Settings settings, PartitionStore store, RetryBudgets budgets) {
    this.settings = settings;
    this.store = store;
    this.budgets = budgets;
  }

  /** Returns the snapshot of {@code uri}'s partition (and its current server sub-partition). */
  QuotaSnapshot quota(URI uri) {
    RequestInfo request = RequestInfo.get(uri);
    String key = settings.resolver.resolve(request);
    Partition base = store.get(key);
    if (base == null) {
      return new QuotaSnapshot(key, List.of(), Optional.empty(), 0, 0, budgets.left(key));
    }
    QuotaSnapshot own = snapshot(base, request);
    Partition child = base.child;
    if (child == null || child.evicted) {
      return own;
    }
    List<PolicySnapshot> all = new ArrayList<>(own.policies());
    all.addAll(snapshot(child).policies());
    return new QuotaSnapshot(key, all, own.heldFor(), own.inFlight(), own.waiting(),
        own.retriesLeft());
  }

  /** Returns a snapshot of every known partition and its server sub-partitions, sorted by key. */
  List<QuotaSnapshot> partitions() {
    List<QuotaSnapshot> out = new ArrayList<>();
    for (Partition p : store.all()) {
      out.add(snapshot(p));
      for (Partition c : p.children()) {
        out.add(snapshot(c));
      }
    }
    out.sort(Comparator.comparing(QuotaSnapshot::partition));
    return List.copyOf(out);
  }

  /** Returns the number of partitions held. */
  int partitionCount() {
    return store.size();
  }

  QuotaSnapshot snapshot(Partition partition) {
    return snapshot(partition, null);
  }

  /**
   * Returns the snapshot of {@code partition}: every policy with the routes it governs, or, for
   * {@code request}, only the policies that govern it.
   */
  private QuotaSnapshot snapshot(Partition partition, @Nullable RequestInfo request) {
    long now = settings.ticker.read();
    List<PolicySnapshot> policies = new ArrayList<>();
    long hold;
    int inFlight;
    int waiting;
    synchronized (partition) {
      RouteTable routes = partition.routes;
      Route route = request == null ? null
          : routes.find(Routes.hash(request.method(), request.uri(), null));
      for (PolicyState state : partition.policies()) {
        if (request != null && !routes.constrains(state, route, request, null)) {
          continue;
        }
        state.roll(now);
        PolicySnapshot snap = state.snapshot(state.flight(partition.inFlight), now);
        if (routes.scoped() && !state.declared() && !state.hostWide) {
          snap = snap.withRoutes(routes.routesOf(state));
        }
        policies.add(snap);
      }
      hold = partition.hold.untilNanos();
      int scheduled = partition.scheduledAfter(now);
      inFlight = Math.max(0, partition.inFlight.permits() - scheduled);
      waiting = partition.line.size() + scheduled;
    }
    Optional<Duration> heldFor = hold > now ? Optional.of(Duration.ofNanos(hold - now))
        : Optional.empty();
    return new QuotaSnapshot(partition.key, policies, heldFor, inFlight, waiting,
        budgets.left(partition.key));
  }
}
