package dev.headway.micrometer;

import dev.headway.Pacer;
import dev.headway.PacerEvent;
import dev.headway.PacerListener;
import dev.headway.PolicySnapshot;
import dev.headway.QuotaSnapshot;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Publishes what a {@link Pacer} does and knows as Micrometer meters. It is both the pacer's
 * {@link PacerListener} (for waits, refusals, throttled responses, retries and warnings) and a
 * {@link MeterBinder}; {@link #monitor(Pacer)} lets its quota gauges read the pacer's live
 * snapshots:
 *
 * <pre>{@code
 * HeadwayMetrics metrics = HeadwayMetrics.create();
 * Pacer pacer = Pacer.builder().listener(metrics).build();
 * metrics.monitor(pacer).bindTo(registry);
 * }</pre>
 *
 * <p>Meters (names in Micrometer's dotted form; each registry renders them in its own
 * convention, e.g. {@code headway_quota_remaining} for Prometheus):
 *
 * <table>
 *   <caption>Meters</caption>
 *   <tr><th>name</th><th>type</th><th>tags</th><th>what</th></tr>
 *   <tr><td>{@code headway.quota.remaining}</td><td>gauge</td>
 *       <td>{@code partition}, {@code policy}, {@code unit}</td>
 *       <td>units left, as the pacer estimates them ({@link PolicySnapshot#remaining()}); NaN
 *       when unknown; of the partitions that share the tag, the least</td></tr>
 *   <tr><td>{@code headway.quota.limit}</td><td>gauge</td>
 *       <td>{@code partition}, {@code policy}, {@code unit}</td>
 *       <td>the policy's quota (of the partition with the least remaining); NaN when
 *       unknown</td></tr>
 *   <tr><td>{@code headway.pacer.wait}</td><td>timer</td>
 *       <td>{@code partition}, {@code policy}, {@code outcome}</td>
 *       <td>waits of {@code acquire} and {@code acquireAsync}, and the time actually waited
 *       ({@link PacerEvent.Waited}): its count is the number of waits, its total the time
 *       waited; {@code outcome} is {@code acquired}, {@code rejected}, {@code cancelled} or
 *       {@code interrupted} (a wait cut short counts with the time until it ended)</td></tr>
 *   <tr><td>{@code headway.pacer.rejections}</td><td>counter</td>
 *       <td>{@code partition}, {@code policy}</td>
 *       <td>requests refused at once because the wait exceeded {@code maxWait}
 *       ({@link PacerEvent.Rejected})</td></tr>
 *   <tr><td>{@code headway.pacer.refusals}</td><td>counter</td>
 *       <td>{@code partition}, {@code policy}</td>
 *       <td>{@code tryAcquire} calls that got no permit ({@link PacerEvent.Refused})</td></tr>
 *   <tr><td>{@code headway.pacer.throttled}</td><td>counter</td>
 *       <td>{@code partition}, {@code status}</td>
 *       <td>throttled responses received: 429s, 503s with {@code Retry-After}, quota 403s
 *       ({@link PacerEvent.Throttled})</td></tr>
 *   <tr><td>{@code headway.pacer.retries}</td><td>counter</td><td>{@code partition}</td>
 *       <td>retries advised ({@link PacerEvent.Retried}; a retry whose wait is then cut short
 *       still counts)</td></tr>
 *   <tr><td>{@code headway.signal.warnings}</td><td>counter</td>
 *       <td>{@code partition}, {@code kind}</td>
 *       <td>malformed, capped or dropped rate-limit values ({@link PacerEvent.SignalWarned})</td>
 *       </tr>
 * </table>
 *
 * <p>Tags are bounded, whatever the servers send. The {@code partition} tag of a partition is
 * its key if the key is an origin ({@code https://api.example.com:443}); any other key (a path
 * prefix, a credential, a custom resolver's key) shows only its origin, if it starts with one,
 * then {@code #} and 8 hex digits of the key's SHA-256, e.g.
 * {@code https://api.telegram.org:443#1f3a9c0e} or {@code #5d41402a}, so that a secret in a path
 * or a key never reaches a tag ({@link Builder#partitionTag} opts out). The partitions a server
 * splits off with {@code pk} share the tag of the partition they came from. The first
 * {@link Builder#maxPartitions maxPartitions} tags get their own value; later ones are counted
 * under {@code partition=other} and get no gauges. A {@code policy} tag is the policy's name
 * (longer than 64 characters or not printable ASCII: its first 40 printable characters,
 * {@code #} and a hash); it is {@code none} when no single policy decided, and on counters and
 * timers the first {@link Builder#maxPoliciesPerPartition maxPoliciesPerPartition} names of a
 * partition tag keep their own value, later ones count as {@code policy=other}. Quota gauges
 * follow what the pacer holds now: a partition tag has a gauge pair for each (policy, unit) of
 * its 16 most recently updated partitions, at most {@code maxPoliciesPerPartition}, and a gauge
 * is removed when the pacer forgets its policy (seen at the partition's next update) or its
 * partition (seen at the first update after a scrape: a gauge of a partition the pacer evicted
 * reads NaN until then). Gauges read the pacer's {@link Pacer#partitions()} at most once per
 * {@link Builder#refreshInterval refreshInterval} of the pacer's ticker, and again after any
 * event.
 *
 * <p>One instance per pacer; it may be bound to several registries. Thread-safe.
 */
public final class HeadwayMetrics implements MeterBinder, PacerListener {
  /** The {@code partition} tag of partitions past {@link Builder#maxPartitions}. */
  public static final String OTHER_PARTITION = "other";
  /** The {@code policy} tag when no single policy decided. */
  public static final String NO_POLICY = "none";
  /** The {@code policy} tag of counters and timers past {@link Builder#maxPoliciesPerPartition}. */
  public static final String OTHER_POLICY = "other";

  /** How many partitions of one tag (e.g. an origin and its pk partitions) have gauges. */
  static final int PARTITIONS_PER_TAG = 16;
  /** How many partition keys' tags are remembered (then forgotten all at once, and recomputed). */
  private static final int TAG_CACHE = 4_096;

  private final Tags tags;
  private final int maxPartitions;
  private final int maxPolicies;
  private final long refreshNanos;
  private final Function<String, String> partitionTag;
  private final AtomicReference<@Nullable Pacer> pacer = new AtomicReference<>();
  private final List<MeterRegistry> registries = new CopyOnWriteArrayList<>();
  private final Map<String, TagState> tagStates = new ConcurrentHashMap<>();
  private final TagState otherTag;
  private volatile boolean tagsFull;
  private final Map<String, TagState> tagCache = new ConcurrentHashMap<>();
  private final AtomicLong updates = new AtomicLong();
  private final AtomicBoolean sweeping = new AtomicBoolean();
  private volatile @Nullable Read swept;
  private volatile Read read = new Read(Map.of(), 0, 0);
  private volatile boolean stale = true;

  private HeadwayMetrics(Builder builder) {
    this.tags = builder.tags;
    this.maxPartitions = builder.maxPartitions;
    this.maxPolicies = builder.maxPolicies;
    this.refreshNanos = builder.refreshInterval.toNanos();
    this.partitionTag = builder.partitionTag;
    this.otherTag = new TagState(OTHER_PARTITION, false);
    this.tagsFull = maxPartitions == 0;
  }

  /**
   * Returns metrics with the defaults of {@link Builder}.
   *
   * @return new metrics; add them to a pacer as a listener and bind them to a registry
   */
  public static HeadwayMetrics create() {
    return builder().build();
  }

  /**
   * Returns a builder.
   *
   * @return a new builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Makes the quota gauges read {@code pacer}, the pacer this instance listens to, and registers
   * gauges for the partitions it already knows. Call it once, after building the pacer.
   *
   * @param pacer the pacer whose quota the gauges read
   * @return this
   * @throws IllegalStateException if another pacer is already monitored
   */
  public HeadwayMetrics monitor(Pacer pacer) {
    Objects.requireNonNull(pacer, "pacer");
    if (!this.pacer.compareAndSet(null, pacer) && this.pacer.get() != pacer) {
      throw new IllegalStateException("already monitoring another pacer: one HeadwayMetrics per"
          + " pacer (give each a tag to tell them apart)");
    }
    stale = true;
    sweep(pacer, true);
    return this;
  }

  /** Registers this instance's meters with {@code registry}, now and as partitions appear. */
  @Override
  public void bindTo(MeterRegistry registry) {
    Objects.requireNonNull(registry, "registry");
    synchronized (registries) {
      if (registries.contains(registry)) {
        return;
      }
      registries.add(registry);
    }
    for (TagState state : tagStates.values()) {
      synchronized (state) {
        for (GaugePair gauge : state.gauges.values()) {
          register(registry, gauge);
        }
      }
    }
  }

  /** Records one event of the pacer; never throws. */
  @Override
  public void onEvent(PacerEvent event) {
    stale = true;
    TagState state = tagState(event.partition());
    String partition = state.tag;
    if (event instanceof PacerEvent.Waited waited) {
      Tags t = tags.and("partition", partition, "policy", policy(state, waited.policy()),
          "outcome", waited.outcome().name().toLowerCase(Locale.ROOT));
      for (MeterRegistry registry : registries) {
        Timer.builder("headway.pacer.wait").tags(t)
            .description("Waits for a permit, and the time actually waited")
            .register(registry).record(waited.waited());
      }
    } else if (event instanceof PacerEvent.Refused refused) {
      count("headway.pacer.refusals", "tryAcquire calls that got no permit",
          tags.and("partition", partition, "policy", policy(state, refused.policy())));
    } else if (event instanceof PacerEvent.Rejected rejected) {
      count("headway.pacer.rejections", "Requests refused because the wait exceeded maxWait",
          tags.and("partition", partition, "policy", policy(state, rejected.policy())));
    } else if (event instanceof PacerEvent.Throttled throttled) {
      count("headway.pacer.throttled", "Throttled responses received (429, 503, quota 403)",
          tags.and("partition", partition, "status", Integer.toString(throttled.status())));
    } else if (event instanceof PacerEvent.Retried) {
      count("headway.pacer.retries", "Retries advised after throttled responses",
          tags.and("partition", partition));
    } else if (event instanceof PacerEvent.SignalWarned warned) {
      count("headway.signal.warnings", "Malformed, capped or dropped rate-limit values",
          tags.and("partition", partition, "kind", warned.warning().kind().name()));
    } else if (event instanceof PacerEvent.QuotaUpdated updated) {
      update(state, updated.quota());
      Pacer monitored = pacer.get();
      if (monitored != null) {
        // Raised outside the pacer's monitors: reading every partition here cannot deadlock.
        sweep(monitored, false);
      }
    }
  }

  private void count(String name, String description, Tags t) {
    for (MeterRegistry registry : registries) {
      Counter.builder(name).tags(t).description(description).register(registry).increment();
    }
  }

  /** The policy tag of a counter or timer: one of the tag's first maxPolicies names, or other. */
  private String policy(TagState state, Optional<String> policy) {
    if (policy.isEmpty()) {
      return NO_POLICY;
    }
    String name = TagNames.policy(policy.get());
    Set<String> names = state.eventPolicies;
    if (names.contains(name)) {
      return name;
    }
    synchronized (names) {
      if (names.contains(name) || names.size() < maxPolicies && names.add(name)) {
        return name;
      }
    }
    return OTHER_POLICY;
  }

  /** The partition's tag and its meters' state: its own while fewer than maxPartitions. */
  private TagState tagState(String partition) {
    String base = TagNames.base(partition);
    TagState cached = tagCache.get(base);
    if (cached != null) {
      return cached;
    }
    String tag = tagOf(base);
    TagState state = tagStates.get(tag);
    if (state == null && !tagsFull) {
      synchronized (tagStates) {
        state = tagStates.get(tag);
        if (state == null && tagStates.size() < maxPartitions) {
          state = new TagState(tag, true);
          tagStates.put(tag, state);
        }
        tagsFull = tagStates.size() >= maxPartitions;
      }
    }
    if (state == null) {
      return otherTag; // not cached: the keys past the bound are many; recomputed each time
    }
    if (tagCache.size() >= TAG_CACHE) {
      tagCache.clear();
    }
    tagCache.put(base, state);
    return state;
  }

  /** The tag of a partition key as the resolver made it (a pk partition's base). */
  private String tagOf(String base) {
    try {
      String tag = partitionTag.apply(base);
      if (tag != null) {
        return tag;
      }
    } catch (RuntimeException e) {
      // a user's function failed: the default rule, never the raw key
    }
    return TagNames.hashedUnlessOrigin(base);
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
          TagState state = refs.isEmpty() ? otherTag : tagState(quota.partition());
          if (state.gauged) {
            synchronized (state) {
              if (state.members.size() < PARTITIONS_PER_TAG) {
                state.members.putIfAbsent(quota.partition(), new Member(refs, before));
              }
            }
          }
        }
      }
      for (TagState state : tagStates.values()) {
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
          GaugePair gauge = new GaugePair(state, ref.key());
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
    Meter remaining = Gauge.builder("headway.quota.remaining", gauge, g -> value(g, false))
        .tags(t).baseUnit(key.unit())
        .description("Units left of a policy's quota, as the pacer estimates them")
        .register(registry);
    Meter limit = Gauge.builder("headway.quota.limit", gauge, g -> value(g, true))
        .tags(t).baseUnit(key.unit())
        .description("A policy's quota")
        .register(registry);
    gauge.meters.put(registry, List.of(remaining, limit));
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

  /** One partition tag: the policy names of its counters, its partitions and its gauges. */
  private static final class TagState {
    final String tag;
    final boolean gauged;
    final Set<String> eventPolicies = ConcurrentHashMap.newKeySet();
    /** Its partitions, least recently updated first; guarded by this. */
    final LinkedHashMap<String, Member> members = new LinkedHashMap<>(32, 0.75f, true);
    /** Its gauge pairs; guarded by this. */
    final Map<GaugeKey, GaugePair> gauges = new LinkedHashMap<>();
    /** What each partition holds, for the gauges to read without the monitor. */
    volatile Map<String, List<PolicyRef>> view = Map.of();

    TagState(String tag, boolean gauged) {
      this.tag = tag;
      this.gauged = gauged;
    }
  }

  /** What one partition of a tag holds, as of an update numbered {@code seq}. */
  private static final class Member {
    List<PolicyRef> refs;
    long seq;

    Member(List<PolicyRef> refs, long seq) {
      this.refs = refs;
      this.seq = seq;
    }
  }

  /** A policy of a partition: its name in the pacer, and the gauge it shows in. */
  private record PolicyRef(String name, GaugeKey key) {}

  /** A gauge pair's identity within its tag: the policy's tag value and the unit. */
  private record GaugeKey(String policy, String unit) {}

  /** A gauge pair (and its state object) and the meters it is registered as. */
  private static final class GaugePair {
    final TagState owner;
    final GaugeKey key;
    final Map<MeterRegistry, List<Meter>> meters = new ConcurrentHashMap<>();

    GaugePair(TagState owner, GaugeKey key) {
      this.owner = owner;
      this.key = key;
    }

    void remove() {
      for (Map.Entry<MeterRegistry, List<Meter>> e : meters.entrySet()) {
        for (Meter meter : e.getValue()) {
          e.getKey().remove(meter);
        }
      }
      meters.clear();
    }
  }

  /** Configures {@link HeadwayMetrics}. Not thread-safe. */
  public static final class Builder {
    private Tags tags = Tags.empty();
    private int maxPartitions = 100;
    private int maxPolicies = 16;
    private Duration refreshInterval = Duration.ofSeconds(1);
    private Function<String, String> partitionTag = TagNames::hashedUnlessOrigin;

    private Builder() {}

    /**
     * Adds tags to every meter, e.g. {@code Tags.of("client", "github")} to tell several pacers
     * apart. Default: none.
     *
     * @param tags the tags to add to those already given
     * @return this builder
     */
    public Builder tags(Iterable<Tag> tags) {
      this.tags = this.tags.and(Objects.requireNonNull(tags, "tags"));
      return this;
    }

    /**
     * Sets how many {@code partition} tag values there are at most (each with its gauges); later
     * partitions are counted under {@code partition=other}. Partitions a server splits off with
     * {@code pk} share their partition's tag and count for nothing here. Default 100: enough for
     * the APIs one application calls, and a bound when partitions are per user or per
     * credential.
     *
     * @param maxPartitions the most partition tags; 0 counts every partition under
     *     {@code partition=other}
     * @return this builder
     * @throws IllegalArgumentException if less than 0
     */
    public Builder maxPartitions(int maxPartitions) {
      if (maxPartitions < 0) {
        throw new IllegalArgumentException(
            "maxPartitions must be at least 0 but was " + maxPartitions);
      }
      this.maxPartitions = maxPartitions;
      return this;
    }

    /**
     * Sets how many policies of one partition tag have quota gauges at a time, and how many
     * policy names its counters and timers keep (later ones count as {@code policy=other}).
     * Servers name their policies: this is what bounds the {@code policy} tag. Default 16, the
     * number of policies the pacer keeps per partition.
     *
     * @param maxPolicies the most policies per partition tag; 0 for no quota gauges and
     *     {@code policy=other} on every counter and timer that names a policy
     * @return this builder
     * @throws IllegalArgumentException if less than 0
     */
    public Builder maxPoliciesPerPartition(int maxPolicies) {
      if (maxPolicies < 0) {
        throw new IllegalArgumentException(
            "maxPoliciesPerPartition must be at least 0 but was " + maxPolicies);
      }
      this.maxPolicies = maxPolicies;
      return this;
    }

    /**
     * Sets how a partition key becomes its {@code partition} tag. It receives the key of the
     * partition as the resolver made it (a server's {@code pk} partition gives the key it was
     * split from). The default shows an origin whole and any other key as its origin (if it
     * starts with one), {@code #} and 8 hex digits of its SHA-256, so that a secret in a path
     * or a custom key never reaches a tag. Give {@code key -> key} to see keys whole, only if
     * they hold no secret: tags go wherever your metrics go. A function that returns
     * {@code null} or throws gets the default.
     *
     * @param partitionTag maps a partition key to its tag value
     * @return this builder
     */
    public Builder partitionTag(Function<String, String> partitionTag) {
      this.partitionTag = Objects.requireNonNull(partitionTag, "partitionTag");
      return this;
    }

    /**
     * Sets how old, at most, the quota gauges' values may be when no event happened since they
     * were read: reading them all costs one {@link Pacer#partitions()}. Measured on the pacer's
     * ticker. Default 1 s.
     *
     * @param refreshInterval the longest the quota gauges' values may be stale; not negative
     * @return this builder
     * @throws IllegalArgumentException if negative
     */
    public Builder refreshInterval(Duration refreshInterval) {
      Objects.requireNonNull(refreshInterval, "refreshInterval");
      if (refreshInterval.isNegative()) {
        throw new IllegalArgumentException(
            "refreshInterval must not be negative but was " + refreshInterval);
      }
      this.refreshInterval = refreshInterval;
      return this;
    }

    /**
     * Returns the metrics.
     *
     * @return new metrics with this builder's settings
     */
    public HeadwayMetrics build() {
      return new HeadwayMetrics(this);
    }
  }
}
