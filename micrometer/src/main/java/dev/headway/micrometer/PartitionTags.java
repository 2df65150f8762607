package dev.headway.micrometer;

import dev.headway.micrometer.QuotaGauges.GaugeKey;
import dev.headway.micrometer.QuotaGauges.GaugePair;
import dev.headway.micrometer.QuotaGauges.Member;
import dev.headway.micrometer.QuotaGauges.PolicyRef;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The partition tags of one {@link HeadwayMetrics}: which {@code partition} tag each partition
 * key has (the builder's function of its base key, or the default rule when that fails) and the
 * state of each tag ({@link TagState}). The first {@code maxPartitions} tags get their own state;
 * later partitions share the ungauged state of {@link HeadwayMetrics#OTHER_PARTITION}. It
 * remembers the tags of up to 4,096 base keys, then forgets them all at once.
 *
 * <p>Thread-safe: the tags and the cache are concurrent maps, and a tag is added under the
 * monitor of the tags' map, so there are never more than {@code maxPartitions}. A
 * {@link TagState}'s own fields are guarded as its Javadoc says.
 */
final class PartitionTags {
  /** How many partition keys' tags are remembered (then forgotten all at once, and recomputed). */
  private static final int TAG_CACHE = 4_096;

  private final int maxPartitions;
  private final Function<String, String> partitionTag;
  private final Map<String, TagState> tagStates = new ConcurrentHashMap<>();
  private final TagState otherTag = new TagState(HeadwayMetrics.OTHER_PARTITION, false);
  private volatile boolean tagsFull;
  private final Map<String, TagState> tagCache = new ConcurrentHashMap<>();

  PartitionTags(int maxPartitions, Function<String, String> partitionTag) {
    this.maxPartitions = maxPartitions;
    this.partitionTag = partitionTag;
    this.tagsFull = maxPartitions == 0;
  }

  /** The state of the tags past {@code maxPartitions}: it has no gauges. */
  TagState other() {
    return otherTag;
  }

  /** The states of the tags of their own (not {@link #other()}), a live view. */
  Collection<TagState> all() {
    return tagStates.values();
  }

  /** The partition's tag and its meters' state: its own while fewer than maxPartitions. */
  TagState of(String partition) {
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

  /**
   * One partition tag: the policy names of its counters, its partitions and its gauges. The
   * policy names are a concurrent set, added to under its own monitor ({@link HeadwayMetrics});
   * the partitions and gauge pairs are guarded by this object's monitor ({@link QuotaGauges});
   * the view is volatile, replaced whole under that monitor and read without it.
   */
  static final class TagState {
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
}
