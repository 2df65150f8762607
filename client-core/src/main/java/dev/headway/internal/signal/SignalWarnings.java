package dev.headway.internal.signal;

import dev.headway.SignalWarning;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Owns the warnings of one response and their bounds: at most {@link SignalCollector#MAX_WARNINGS}
 * in all and {@link SignalCollector#MAX_WARNINGS_PER_FIELD} of one field are kept, in order; the
 * rest are counted and summarised by {@link #summarise()} (one warning per field, then one for
 * the whole response), so that a hostile response cannot grow the signal. Allocated by its
 * {@link SignalCollector} on the first warning. Not thread-safe.
 */
final class SignalWarnings {
  private final List<SignalWarning> kept = new ArrayList<>(2);
  /** Warnings left out past {@link SignalCollector#MAX_WARNINGS}. */
  private int suppressed;
  /** Warnings left out per field past the per-field limit, in order of fields. */
  private @Nullable Map<String, Integer> suppressedByField;

  /** Keeps a warning about {@code field}, or counts it when a bound is reached. */
  void add(String field, SignalWarning.Kind kind, String message) {
    if (kept.size() >= SignalCollector.MAX_WARNINGS) {
      suppressed++;
      return;
    }
    int ofField = 0;
    for (int i = 0; i < kept.size(); i++) {
      if (kept.get(i).field().equals(field)) {
        ofField++;
      }
    }
    if (ofField >= SignalCollector.MAX_WARNINGS_PER_FIELD) {
      Map<String, Integer> byField = suppressedByField;
      if (byField == null) {
        byField = new LinkedHashMap<>();
        suppressedByField = byField;
      }
      byField.merge(field, 1, Integer::sum);
      return;
    }
    kept.add(new SignalWarning(field, kind, message));
  }

  /**
   * Adds the summary of what was left out: one warning per field past its limit while the total
   * has room (a field's summary past the total is counted with the rest), then one for the
   * warnings past the total; never more than {@link SignalCollector#MAX_WARNINGS} + 1 in all.
   * Call once, after every other warning.
   */
  void summarise() {
    if (suppressedByField != null) {
      for (var e : suppressedByField.entrySet()) {
        if (kept.size() >= SignalCollector.MAX_WARNINGS) {
          suppressed += e.getValue();
          continue;
        }
        kept.add(new SignalWarning(e.getKey(), SignalWarning.Kind.DROPPED, "and "
            + e.getValue() + " more problems with this field not listed"));
      }
    }
    if (suppressed > 0) {
      kept.add(new SignalWarning("*", SignalWarning.Kind.DROPPED,
          suppressed + " more warnings suppressed"));
    }
  }

  /** Returns the warnings kept, in order; immutable. */
  List<SignalWarning> list() {
    return List.copyOf(kept);
  }
}
