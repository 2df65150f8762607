package dev.headway.micrometer;

import dev.headway.Pacer;
import dev.headway.PacerEvent;
import dev.headway.PacerListener;
import dev.headway.PolicySnapshot;
import dev.headway.micrometer.PartitionTags.TagState;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

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
 *       <td>requests refused because their wait would exceed {@code maxWait}, at once or
 *       after waiting (those also count in {@code headway.pacer.wait}, {@code outcome=rejected})
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
 *   <tr><td>{@code headway.pacer.retries.refused}</td><td>counter</td>
 *       <td>{@code partition}, {@code status}</td>
 *       <td>retries not sent because the partition's retry budget was spent: the caller got the
 *       throttled or failed response at once ({@link PacerEvent.RetryRefused})</td></tr>
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

  private final Tags tags;
  private final int maxPolicies;
  private final List<MeterRegistry> registries = new CopyOnWriteArrayList<>();
  private final PartitionTags partitions;
  private final QuotaGauges gauges;
  private final RegistryFailures failures = new RegistryFailures();

  private HeadwayMetrics(Builder builder) {
    this.tags = builder.tags;
    this.maxPolicies = builder.maxPolicies;
    this.partitions = new PartitionTags(builder.maxPartitions, builder.partitionTag);
    // Saturated: an interval of centuries (past a long of nanoseconds) is "only after events".
    long refreshNanos = builder.refreshInterval.compareTo(Duration.ofNanos(Long.MAX_VALUE)) >= 0
        ? Long.MAX_VALUE : builder.refreshInterval.toNanos();
    this.gauges = new QuotaGauges(tags, maxPolicies, refreshNanos, registries, partitions,
        failures);
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
    Objects.requireNonNull(pacer, "pacer must not be null");
    gauges.monitor(pacer);
    return this;
  }

  /** Registers this instance's meters with {@code registry}, now and as partitions appear. */
  @Override
  public void bindTo(MeterRegistry registry) {
    Objects.requireNonNull(registry, "registry must not be null");
    synchronized (registries) {
      if (registries.contains(registry)) {
        return;
      }
      registries.add(registry);
    }
    gauges.bindTo(registry);
  }

  /** Records one event of the pacer; never throws. */
  @Override
  public void onEvent(PacerEvent event) {
    gauges.eventSeen();
    TagState state = partitions.of(event.partition());
    String partition = state.tag;
    if (event instanceof PacerEvent.Waited waited) {
      Tags t = tags.and("partition", partition, "policy", policy(state, waited.policy()),
          "outcome", waited.outcome().name().toLowerCase(Locale.ROOT));
      failures.each(registries, "record headway.pacer.wait",
          registry -> Timer.builder("headway.pacer.wait").tags(t)
              .description("Waits for a permit, and the time actually waited")
              .register(registry).record(waited.waited()));
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
    } else if (event instanceof PacerEvent.RetryRefused refused) {
      count("headway.pacer.retries.refused",
          "Retries not sent because the partition's retry budget was spent",
          tags.and("partition", partition, "status", Integer.toString(refused.status())));
    } else if (event instanceof PacerEvent.SignalWarned warned) {
      count("headway.signal.warnings", "Malformed, capped or dropped rate-limit values",
          tags.and("partition", partition, "kind", warned.warning().kind().name()));
    } else if (event instanceof PacerEvent.QuotaUpdated updated) {
      gauges.quotaUpdated(state, updated.quota());
    }
  }

  private void count(String name, String description, Tags t) {
    failures.each(registries, "count " + name,
        registry -> Counter.builder(name).tags(t).description(description).register(registry)
            .increment());
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
      this.tags = this.tags.and(Objects.requireNonNull(tags, "tags must not be null"));
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
      this.partitionTag = Objects.requireNonNull(partitionTag, "partitionTag must not be null");
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
      Objects.requireNonNull(refreshInterval, "refreshInterval must not be null");
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
