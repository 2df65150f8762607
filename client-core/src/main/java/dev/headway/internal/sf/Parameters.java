package dev.headway.internal.sf;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The parameters of an item or inner list, in order; a repeated key keeps its last value at the
 * position of its first occurrence (RFC 9651 section 4.2.3.2). Immutable.
 */
public final class Parameters {
  private static final Parameters EMPTY = new Parameters(Map.of());

  private final Map<String, BareItem> map;

  private Parameters(Map<String, BareItem> map) {
    this.map = map;
  }

  /** Returns parameters with no entries. */
  public static Parameters empty() {
    return EMPTY;
  }

  /** Returns parameters holding {@code map}'s entries in its iteration order. */
  public static Parameters of(LinkedHashMap<String, BareItem> map) {
    return map.isEmpty() ? EMPTY : new Parameters(Collections.unmodifiableMap(map));
  }

  /** Returns the value of {@code key}, or {@code null} if absent. */
  public @Nullable BareItem get(String key) {
    return map.get(key);
  }

  /** Returns the entries in order. */
  public Map<String, BareItem> asMap() {
    return map;
  }

  /** Returns whether there are no parameters. */
  public boolean isEmpty() {
    return map.isEmpty();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Parameters other && map.equals(other.map);
  }

  @Override
  public int hashCode() {
    return map.hashCode();
  }

  @Override
  public String toString() {
    return map.toString();
  }
}
