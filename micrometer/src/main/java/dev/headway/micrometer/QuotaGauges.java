package dev.headway.micrometer;

import dev.headway.Pacer;
import dev.headway.PolicySnapshot;
import dev.headway.QuotaSnapshot;
import dev.headway.micrometer.PartitionTags.TagState;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * The quota gauges of one {@link HeadwayMetrics} ({@code headway.quota.remaining} and
 * {@code headway.quota.limit}). It owns the monitored pacer and its last read of
 * {@link Pacer#partitions()}; for each gauged partition tag, which of its partitions hold which
 * policies (its {@link #PARTITIONS_PER_TAG} most recently updated, kept in the tag's
 * {@link TagState}); the gauge pairs that follow those policies, at most
 * {@code maxPoliciesPerPartition} per tag, and their meters in every bound registry; and the
 * gauges' values, the least remaining of a tag's partitions. Which tag a partition has is
 * {@link PartitionTags}' concern; counters and timers stay in {@link HeadwayMetrics}.
 *
 * <p>Thread-safe. A tag's partitions and gauge pairs are guarded by the monitor of its
 * {@link TagState}; the gauges read the tag's volatile view and the volatile last read of the
 * pacer without taking it. One sweep runs at a time (a sweep that finds another under way does
 * nothing). The registries list is {@link HeadwayMetrics}' copy-on-write list, shared.
 */
final class QuotaGauges {
  /** How many partitions of one tag (e.g. an origin and its pk partitions) have gauges. */
  static final int PARTITIONS_PER_TAG = 16;

  private final Tags tags;
  private final int maxPolicies;
  private final long refreshNanos;
  private final List<MeterRegistry> registries;
  private final PartitionTags partitions;
  private final RegistryFailures failures;
  private final AtomicReference<@Nullable Pacer> pacer = new AtomicReference<>();
  private final AtomicLong updates = new AtomicLong();
  private final AtomicBoolean sweeping = new AtomicBoolean();
  private volatile @Nullable Read swept;
  private volatile Read read = new Read(Map.of(), 0, 0);
  private volatile boolean stale = true;

  /**
   * Creates the gauges of a metrics instance.
   *
   * @param tags the tags of every meter
   * @param maxPolicies the most gauge pairs per partition tag
   * @param refreshNanos how long a read of the pacer serves the gauges when no event happened
   * @param registries the registries bound so far and later (read, never written, here)
   * @param partitions the partition tags, whose states hold the gauges' bookkeeping
   * @param failures where a registry that throws is contained and logged
   */
  QuotaGauges(Tags tags, int maxPolicies, long refreshNanos, List<MeterRegistry> registries,
      PartitionTags partitions, RegistryFailures failures) {
    this.tags = tags;
    this.maxPolicies = maxPolicies;
    this.refreshNanos = refreshNanos;
    this.registries = registries;
    this.partitions = partitions;
    this.failures = failures;
  }

  /**
   * Makes the gauges read {@code monitored}, and registers gauges for the partitions it already
   * knows.
   *
   * @param monitored the pacer whose quota the gauges read
   * @throws IllegalStateException if another pacer is already monitored
   */
  void monitor(Pacer monitored) {
    if (!pacer.compareAndSet(null, monitored) && pacer.get() != monitored) {
      throw new IllegalStateException("already monitoring another pacer: one HeadwayMetrics per"
          + " pacer (give each a tag to tell them apart)");
    }
    stale = true;
    sweep(monitored, true);
  }

  /** Registers every gauge pair with {@code registry}, already added to the registries. */
  void bindTo(MeterRegistry registry) {
    for (TagState state : partitions.all()) {
      synchronized (state) {
        for (GaugePair gauge : state.gauges.values()) {
          register(registry, gauge);
        }
      }
    }
  }

  /** Notes that the pacer raised an event: the gauges' next read reads the pacer again. */
  void eventSeen() {
    stale = true;
  }

  /** Follows a partition's {@code QuotaUpdated} event, then drops what the pacer forgot. */
  void quotaUpdated(TagState state, QuotaSnapshot quota) {
    update(state, quota);
    Pacer monitored = pacer.get();
    if (monitored != null) {
      // Raised outside the pacer's monitors: reading every partition here cannot deadlock.
      sweep(monitored, false);
    }
  }

  /** What one partition holds now, from its event: gauges follow it at once. */
  private void update(TagState state, QuotaSnapshot quota) {
    if (!state.gauged) {
      return;
    }
    List<PolicyRef> refs = refs(quota);
    long seq = updates.incrementAndGet();
    synchronized (state) {
      Member member = state.members.get(quota.partition()); // now the most recent
      if (member != null && member.refs.equals(refs)) {
        member.seq = seq;
        return;
      }
      if (refs.isEmpty()) {
        state.members.remove(quota.partition());
      } else {
        state.members.put(quota.partition(), new Member(refs, seq));
      }
      trim(state);
      reconcile(state);
    }
  }

  /** Keeps a tag's most recently updated partitions; the others' policies are not gauged. */
  private static void trim(TagState state) {
    Iterator<Member> eldest = state.members.values().iterator();
    while (state.members.size() > PARTITIONS_PER_TAG) {
      eldest.next();
      eldest.remove();
    }
  }

  private static List<PolicyRef> refs(QuotaSnapshot quota) {
    List<PolicyRef> refs = new ArrayList<>(quota.policies().size());
    for (PolicySnapshot policy : quota.policies()) {
      if (!policy.learned()) { // a rate learned from 429s has no count or reset to gauge
        refs.add(new PolicyRef(policy.name(),
            new GaugeKey(TagNames.policy(policy.name()), policy.unit().token())));
      }
    }
    return refs;
  }

  /**
   * Drops the partitions the pacer forgot, as the gauges' last read of the pacer shows them
   * (once per read: a scrape pays for it, never a response); forced, reads the pacer and also
   * takes in the partitions it holds. The gauges follow.
   */
  private void sweep(Pacer monitored, boolean force) {
    Read last = read;
    if (!force && last == swept) {
      return;
    }
    if (!sweeping.compareAndSet(false, true)) {
      return;
    }
    try {
      if (force) {
        last = refresh(monitored, monitored.ticker().read());
      }
      swept = last;
      long before = last.seq(); // what updates after the read say is newer
      Map<String, QuotaSnapshot> fresh = last.quotas();
      if (force) {
        for (QuotaSnapshot quota : fresh.values()) {
          List<PolicyRef> refs = refs(quota);
          TagState state = refs.isEmpty() ? partitions.other() : partitions.of(quota.partition());
          if (state.gauged) {
            synchronized (state) {
              if (state.members.size() < PARTITIONS_PER_TAG) {
                state.members.putIfAbsent(quota.partition(), new Member(refs, before));
              }
            }
          }
        }
      }
      for (TagState state : partitions.all()) {
        synchronized (state) {
          boolean changed = force;
          for (Iterator<Map.Entry<String, Member>> it = state.members.entrySet().iterator();
              it.hasNext(); ) {
            Map.Entry<String, Member> e = it.next();
            if (e.getValue().seq > before) {
              continue; // updated since the pacer was read: newer than what was read
            }
            QuotaSnapshot quota = fresh.get(e.getKey());
            List<PolicyRef> refs = quota == null ? List.of() : refs(quota);
            if (refs.isEmpty()) {
              it.remove();
              changed = true;
            } else if (!refs.equals(e.getValue().refs)) {
              e.getValue().refs = refs;
              changed = true;
            }
          }
          if (changed) {
            reconcile(state);
          }
        }
      }
    } finally {
      sweeping.set(false);
    }
  }

  /**
   * Makes a tag's gauges those of its partitions' policies (its monitor held): removes the
   * gauges no partition holds any more, then adds the newest policies while there is room.
   */
  private void reconcile(TagState state) {
    Set<GaugeKey> held = new HashSet<>();
    List<Member> newestFirst = new ArrayList<>(state.members.values());
    Map<String, List<PolicyRef>> view = new HashMap<>();
    for (Map.Entry<String, Member> e : state.members.entrySet()) {
      view.put(e.getKey(), e.getValue().refs);
      for (PolicyRef ref : e.getValue().refs) {
        held.add(ref.key());
      }
    }
    state.view = Map.copyOf(view);
    for (Iterator<GaugePair> it = state.gauges.values().iterator(); it.hasNext(); ) {
      GaugePair gauge = it.next();
      if (!held.contains(gauge.key)) {
        it.remove();
        gauge.remove();
      }
    }
    for (int i = newestFirst.size() - 1; i >= 0; i--) {
      for (PolicyRef ref : newestFirst.get(i).refs) {
        if (state.gauges.size() >= maxPolicies) {
          return;
        }
        if (!state.gauges.containsKey(ref.key())) {
          GaugePair gauge = new GaugePair(state, ref.key(), failures);
          state.gauges.put(ref.key(), gauge);
          for (MeterRegistry registry : registries) {
            register(registry, gauge);
          }
        }
      }
    }
  }

  private void register(MeterRegistry registry, GaugePair gauge) {
    if (gauge.meters.containsKey(registry)) {
      return;
    }
    // The tag's map holds the pair strongly: Micrometer keeps only a weak reference to it.
    GaugeKey key = gauge.key;
    Tags t = tags.and("partition", gauge.owner.tag, "policy", key.policy(), "unit", key.unit());
    List<Meter> registered = new ArrayList<>(2);
    // A registry that throws gets no pair (it is not asked again for this one); the others do.
    failures.run(registry, "register the headway.quota gauges", r -> {
      registered.add(Gauge.builder("headway.quota.remaining", gauge, g -> value(g, false))
          .tags(t).baseUnit(key.unit())
          .description("Units left of a policy's quota, as the pacer estimates them")
          .register(r));
      registered.add(Gauge.builder("headway.quota.limit", gauge, g -> value(g, true))
          .tags(t).baseUnit(key.unit())
          .description("A policy's quota")
          .register(r));
    });
    gauge.meters.put(registry, List.copyOf(registered));
  }

  /** Of the tag's partitions holding the gauge's policy, the one with the least remaining. */
  private double value(GaugePair gauge, boolean limit) {
    Map<String, QuotaSnapshot> quotas = snapshots().quotas();
    PolicySnapshot least = null;
    for (Map.Entry<String, List<PolicyRef>> e : gauge.owner.view.entrySet()) {
      QuotaSnapshot quota = null;
      for (PolicyRef ref : e.getValue()) {
        if (!ref.key().equals(gauge.key)) {
          continue;
        }
        quota = quota != null ? quota : quotas.get(e.getKey());
        if (quota == null) {
          break;
        }
        for (PolicySnapshot p : quota.policies()) {
          if (p.name().equals(ref.name()) && p.unit().token().equals(gauge.key.unit())
              && !p.learned() && (least == null || less(p, least))) {
            least = p;
          }
        }
      }
    }
    if (least == null) {
      return Double.NaN;
    }
    var value = limit ? least.limit() : least.remaining();
    return value.isPresent() ? value.getAsLong() : Double.NaN;
  }

  private static boolean less(PolicySnapshot p, PolicySnapshot than) {
    return p.remaining().isPresent() && (than.remaining().isEmpty()
        || p.remaining().getAsLong() < than.remaining().getAsLong());
  }

  /** The pacer's partitions, read again after an event or once refreshInterval has passed. */
  private Read snapshots() {
    Pacer monitored = pacer.get();
    if (monitored == null) {
      return read;
    }
    long now = monitored.ticker().read();
    Read last = read;
    if (!stale && now - last.at() < refreshNanos) {
      return last;
    }
    return refresh(monitored, now);
  }

  private Read refresh(Pacer monitored, long now) {
    stale = false;
    long seq = updates.get();
    Map<String, QuotaSnapshot> fresh = new HashMap<>();
    for (QuotaSnapshot quota : monitored.partitions()) {
      fresh.put(quota.partition(), quota);
    }
    Read last = new Read(fresh, now, seq);
    read = last;
    return last;
  }

  /**
   * One read of the pacer's partitions: what it held at ticker time {@code at}, after the
   * updates numbered up to {@code seq}.
   */
  private record Read(Map<String, QuotaSnapshot> quotas, long at, long seq) {}

  /** What one partition of a tag holds, as of an update numbered {@code seq}. */
  static final class Member {
    List<PolicyRef> refs;
    long seq;

    Member(List<PolicyRef> refs, long seq) {
      this.refs = refs;
      this.seq = seq;
    }
  }

  /** A policy of a partition: its name in the pacer, and the gauge it shows in. */
  record PolicyRef(String name, GaugeKey key) {}

  /** A gauge pair's identity within its tag: the policy's tag value and the unit. */
  record GaugeKey(String policy, String unit) {}

  /** A gauge pair (and its state object) and the meters it is registered as. */
  static final class GaugePair {
    final TagState owner;
    final GaugeKey key;
    final Map<MeterRegistry, List<Meter>> meters = new ConcurrentHashMap<>();
    final RegistryFailures failures;

    GaugePair(TagState owner, GaugeKey key, RegistryFailures failures) {
      this.owner = owner;
      this.key = key;
      this.failures = failures;
    }

    void remove() {
      for (Map.Entry<MeterRegistry, List<Meter>> e : meters.entrySet()) {
        failures.run(e.getKey(), "remove a headway.quota gauge", registry -> {
          for (Meter meter : e.getValue()) {
            registry.remove(meter);
          }
        });
      }
      meters.clear();
    }
  }
}
