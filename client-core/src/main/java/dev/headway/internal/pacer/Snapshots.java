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

/**
 * Owns inspection: immutable snapshots of partitions and their policies, taken under each
 * partition's monitor. Holds no state of its own.
 */
final class Snapshots {
  private final Settings settings;
  private final PartitionStore store;

  Snapshots(Settings settings, PartitionStore store) {
    this.settings = settings;
    this.store = store;
  }

  /** Returns the snapshot of {@code uri}'s partition (and its current server sub-partition). */
  QuotaSnapshot quota(URI uri) {
    String key = settings.resolver.resolve(RequestInfo.get(uri));
    Partition base = store.get(key);
    if (base == null) {
      return new QuotaSnapshot(key, List.of());
    }
    QuotaSnapshot own = snapshot(base);
    Partition child = base.child;
    if (child == null || child.evicted) {
      return own;
    }
    List<PolicySnapshot> all = new ArrayList<>(own.policies());
    all.addAll(snapshot(child).policies());
    return new QuotaSnapshot(key, all, own.heldFor());
  }

  /** Returns a snapshot of every known partition, sorted by key. */
  List<QuotaSnapshot> partitions() {
    List<QuotaSnapshot> out = new ArrayList<>();
    for (Partition p : store.all()) {
      out.add(snapshot(p));
    }
    out.sort(Comparator.comparing(QuotaSnapshot::partition));
    return List.copyOf(out);
  }

  /** Returns the number of partitions held. */
  int partitionCount() {
    return store.size();
  }

  QuotaSnapshot snapshot(Partition partition) {
    long now = settings.ticker.read();
    List<PolicySnapshot> policies = new ArrayList<>();
    long hold;
    synchronized (partition) {
      partition.closeLane();
      for (PolicyState state : partition.policies()) {
        state.roll(now);
        policies.add(state.snapshot(partition.inFlight, now));
      }
      hold = partition.hold.untilNanos();
      partition.lane.reopen(partition, settings, now); // a look changes nothing
    }
    Optional<Duration> heldFor = hold > now ? Optional.of(Duration.ofNanos(hold - now))
        : Optional.empty();
    return new QuotaSnapshot(partition.key, policies, heldFor);
  }
}
