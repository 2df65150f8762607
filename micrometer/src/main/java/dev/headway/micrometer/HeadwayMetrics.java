package dev.headway.micrometer;

import dev.headway.Pacer;
import dev.headway.PacerEvent;
import dev.headway.PacerListener;
import dev.headway.PolicySnapshot;
import dev.headway.QuotaSnapshot;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
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
 *       when unknown</td></tr>
 *   <tr><td>{@code headway.quota.limit}</td><td>gauge</td>
 *       <td>{@code partition}, {@code policy}, {@code unit}</td>
 *       <td>the policy's quota; NaN when unknown</td></tr>
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
 * <p>{@code policy} is {@code none} when no single policy decided. Tag cardinality is bounded:
 * the first {@link Builder#maxPartitions maxPartitions} partitions seen get their own
 * {@code partition} tag; later ones are counted under {@code partition=other} and get no gauges.
 * Policies per partition are bounded by the signal parser (at most 64). Gauges read the pacer's
 * {@link Pacer#partitions()} at most once per {@link Builder#refreshInterval refreshInterval} of
 * the pacer's ticker, and again after any event; a gauge of a partition the pacer has evicted
 * reads NaN.
 *
 * <p>One instance per pacer; it may be bound to several registries. Thread-safe.
 */
public final class HeadwayMetrics implements MeterBinder, PacerListener {
  /** The {@code partition} tag of partitions past {@link Builder#maxPartitions}. */
  public static final String OTHER_PARTITION = "other";
  /** The {@code policy} tag when no single policy decided. */
  public static final String NO_POLICY = "none";

  private final Tags tags;
  private final int maxPartitions;
  private final long refreshNanos;
  private final AtomicReference<@Nullable Pacer> pacer = new AtomicReference<>();
  private final List<MeterRegistry> registries = new CopyOnWriteArrayList<>();
  private final Set<String> taggedPartitions = ConcurrentHashMap.newKeySet();
  private final Map<PolicyKey, PolicyKey> gauges = new ConcurrentHashMap<>();
  private volatile Map<String, QuotaSnapshot> snapshots = Map.of();
  private volatile long snapshotsAt;
  private volatile boolean stale = true;

  private HeadwayMetrics(Builder builder) {
    this.tags = builder.tags;
    this.maxPartitions = builder.maxPartitions;
    this.refreshNanos = builder.refreshInterval.toNanos();
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
    for (QuotaSnapshot quota : pacer.partitions()) {
      registerGauges(quota);
    }
    return this;
  }

  /** Registers this instance's meters with {@code registry}, now and as partitions appear. */
  @Override
  public void bindTo(MeterRegistry registry) {
    Objects.requireNonNull(registry, "registry");
    if (registries.contains(registry)) {
      return;
    }
    registries.add(registry);
    for (PolicyKey key : gauges.keySet()) {
      registerGauges(registry, key);
    }
  }

  /** Records one event of the pacer; never throws. */
  @Override
  public void onEvent(PacerEvent event) {
    stale = true;
    String partition = partitionTag(event.partition());
    if (event instanceof PacerEvent.Waited waited) {
      Tags t = tags.and("partition", partition, "policy", policy(waited.policy()), "outcome",
          waited.outcome().name().toLowerCase(Locale.ROOT));
      for (MeterRegistry registry : registries) {
        Timer.builder("headway.pacer.wait").tags(t)
            .description("Waits for a permit, and the time actually waited")
            .register(registry).record(waited.waited());
      }
    } else if (event instanceof PacerEvent.Refused refused) {
      count("headway.pacer.refusals", "tryAcquire calls that got no permit",
          tags.and("partition", partition, "policy", policy(refused.policy())));
    } else if (event instanceof PacerEvent.Rejected rejected) {
      count("headway.pacer.rejections", "Requests refused because the wait exceeded maxWait",
          tags.and("partition", partition, "policy", policy(rejected.policy())));
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
      registerGauges(updated.quota());
    }
  }

  private void count(String name, String description, Tags t) {
    for (MeterRegistry registry : registries) {
      Counter.builder(name).tags(t).description(description).register(registry).increment();
    }
  }

  private static String policy(Optional<String> policy) {
    return policy.orElse(NO_POLICY);
  }

  /** Returns the partition's tag: itself while fewer than maxPartitions are tagged. */
  private String partitionTag(String partition) {
    if (taggedPartitions.contains(partition)) {
      return partition;
    }
    synchronized (taggedPartitions) {
      if (taggedPartitions.contains(partition)) {
        return partition;
      }
      if (taggedPartitions.size() < maxPartitions) {
        taggedPartitions.add(partition);
        return partition;
      }
    }
    return OTHER_PARTITION;
  }

  private void registerGauges(QuotaSnapshot quota) {
    if (partitionTag(quota.partition()).equals(OTHER_PARTITION)) {
      return;
    }
    for (PolicySnapshot policy : quota.policies()) {
      if (policy.learned()) {
        continue; // a rate learned from 429s has no count or reset to gauge
      }
      PolicyKey key = new PolicyKey(quota.partition(), policy.name(), policy.unit().token());
      if (gauges.putIfAbsent(key, key) == null) {
        for (MeterRegistry registry : registries) {
          registerGauges(registry, key);
        }
      }
    }
  }

  private void registerGauges(MeterRegistry registry, PolicyKey key) {
    // The map holds each key strongly: Micrometer keeps only a weak reference to a gauge's state.
    PolicyKey strong = gauges.get(key);
    Tags t = tags.and("partition", key.partition(), "policy", key.policy(), "unit", key.unit());
    Gauge.builder("headway.quota.remaining", strong, k -> value(k, PolicySnapshot::remaining))
        .tags(t).baseUnit(key.unit())
        .description("Units left of a policy's quota, as the pacer estimates them")
        .register(registry);
    Gauge.builder("headway.quota.limit", strong, k -> value(k, PolicySnapshot::limit))
        .tags(t).baseUnit(key.unit())
        .description("A policy's quota")
        .register(registry);
  }

  private double value(PolicyKey key, java.util.function.Function<PolicySnapshot, OptionalLong> f) {
    QuotaSnapshot quota = snapshots().get(key.partition());
    if (quota == null) {
      return Double.NaN;
    }
    Optional<PolicySnapshot> policy = quota.policy(key.policy());
    if (policy.isEmpty()) {
      return Double.NaN;
    }
    OptionalLong value = f.apply(policy.get());
    return value.isPresent() ? value.getAsLong() : Double.NaN;
  }

  /** The pacer's partitions, read again after an event or once refreshInterval has passed. */
  private Map<String, QuotaSnapshot> snapshots() {
    Pacer monitored = pacer.get();
    if (monitored == null) {
      return Map.of();
    }
    long now = monitored.ticker().read();
    if (!stale && now - snapshotsAt < refreshNanos) {
      return snapshots;
    }
    stale = false;
    Map<String, QuotaSnapshot> fresh = new HashMap<>();
    for (QuotaSnapshot quota : monitored.partitions()) {
      fresh.put(quota.partition(), quota);
    }
    snapshots = fresh;
    snapshotsAt = now;
    return fresh;
  }

  /** One gauge pair's identity (and its state object). */
  private record PolicyKey(String partition, String policy, String unit) {}

  /** Configures {@link HeadwayMetrics}. Not thread-safe. */
  public static final class Builder {
    private Tags tags = Tags.empty();
    private int maxPartitions = 100;
    private Duration refreshInterval = Duration.ofSeconds(1);

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
     * Sets how many partitions get their own {@code partition} tag (and gauges); later ones are
     * counted under {@code partition=other}. Default 100: enough for the APIs one application
     * calls, and a bound when partitions are per user or per credential.
     *
     * @param maxPartitions the most partitions tagged by name; 0 counts them all under
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
