package dev.headway.internal.signal;

import dev.headway.QuotaReset;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The rarely used state of one {@link SignalCollector}, allocated on its first use so that the
 * collector of an ordinary response stays small: the resets reported without a count (and the
 * rules that join them: first per policy and partition key wins, at most
 * {@link SignalCollector#MAX_ITEMS}, none past {@code SanityCaps.maxReset()}), the documented
 * delay, and the counts of what was dropped behind the collector's summary warnings. Not
 * thread-safe.
 */
final class RareSignals {
  @Nullable List<QuotaReset> resets;
  @Nullable Duration documentedDelay;
  int droppedItems;
  /** The field of the first policy or limit dropped past {@link SignalCollector#MAX_ITEMS}. */
  String droppedItemsField = SignalCollector.UNKNOWN_FIELD;
  int droppedForCache;

  /** Counts a policy, limit or reset dropped past the bound, remembering the first field. */
  void dropItem(String field) {
    if (droppedItems++ == 0) {
      droppedItemsField = field;
    }
  }

  /**
   * Keeps {@code reset} (an accepted name, not from a cached response) unless one of the same
   * policy and partition key is kept already or it is past {@code maxReset} (then it warns
   * through {@code sink}).
   */
  void addReset(SignalCollector sink, QuotaReset reset, String field, Duration maxReset) {
    if (resets == null) {
      resets = new ArrayList<>(2);
    }
    List<QuotaReset> resets = this.resets;
    for (int i = 0; i < resets.size(); i++) {
      QuotaReset existing = resets.get(i);
      if (existing.policy().equals(reset.policy())
          && existing.partitionKey().equals(reset.partitionKey())) {
        return;
      }
    }
    if (resets.size() >= SignalCollector.MAX_ITEMS) {
      dropItem(field);
      return;
    }
    if (Capping.resetBelievable(sink, reset, field, maxReset)) {
      resets.add(reset);
    }
  }

  /**
   * Returns the resets kept, in order, except those of a policy (and partition key) that also
   * has a limit in {@code sink}; immutable.
   */
  List<QuotaReset> resets(SignalCollector sink) {
    List<QuotaReset> resets = this.resets;
    if (resets == null) {
      return List.of();
    }
    List<QuotaReset> kept = new ArrayList<>(resets.size());
    for (int i = 0; i < resets.size(); i++) {
      QuotaReset reset = resets.get(i);
      if (!sink.hasLimit(reset.policy(), reset.partitionKey())) {
        kept.add(reset);
      }
    }
    return List.copyOf(kept);
  }
}
