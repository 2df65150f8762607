package dev.headway.internal.sf;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The parameters of an item or inner list, in order; a repeated key keeps its last value at the
 * position of its first occurrence (RFC 9651 section 4.2.3.2). Immutable and thread-safe.
 *
 * <p>Stored as one array of alternating keys and values, not a map: rate-limit fields carry two
 * to four parameters, which a linear scan finds faster than a hash lookup, and the array costs a
 * fraction of a map's entries. {@link #get} is linear in the number of parameters; the parser
 * removes duplicate keys as it builds them (with a hash index once a set grows large), so a
 * hostile value with thousands of parameters still parses in linear time.
 */
public final class Parameters {
  private static final Parameters EMPTY = new Parameters(new Object[0], 0);

  /** Keys at even indexes, their values at the next odd index; {@code size} pairs are used. */
  private final @Nullable Object[] entries;
  private final int size;
  private volatile @Nullable Map<String, BareItem> map;

  private Parameters(@Nullable Object[] entries, int size) {
    this.entries = entries;
    this.size = size;
  }

  /** Returns parameters with no entries. */
  public static Parameters empty() {
    return EMPTY;
  }

  /** Returns parameters holding {@code map}'s entries in its iteration order. */
  public static Parameters of(LinkedHashMap<String, BareItem> map) {
    if (map.isEmpty()) {
      return EMPTY;
    }
    Object[] entries = new Object[2 * map.size()];
    int i = 0;
    for (Map.Entry<String, BareItem> e : map.entrySet()) {
      entries[i++] = Objects.requireNonNull(e.getKey(), "key must not be null");
      entries[i++] = Objects.requireNonNull(e.getValue(), "value must not be null");
    }
    return new Parameters(entries, map.size());
  }

  /**
   * Returns parameters over the first {@code size} key/value pairs of {@code entries}, which the
   * caller hands over (it must not change them afterwards) with distinct keys.
   */
  static Parameters wrap(@Nullable Object[] entries, int size) {
    return size == 0 ? EMPTY : new Parameters(entries, size);
  }

  /** Returns the value of {@code key}, or {@code null} if absent. */
  public @Nullable BareItem get(String key) {
    Object[] e = entries;
    for (int i = 0, n = 2 * size; i < n; i += 2) {
      Object k = e[i];
      if (k == key || key.equals(k)) {
        return (BareItem) e[i + 1];
      }
    }
    return null;
  }

  /** Returns the number of parameters. */
  public int size() {
    return size;
  }

  /** Returns the key of the parameter at {@code index}, in order. */
  public String key(int index) {
    return (String) entries[2 * Objects.checkIndex(index, size)];
  }

  /** Returns the value of the parameter at {@code index}, in order. */
  public BareItem value(int index) {
    return (BareItem) entries[2 * Objects.checkIndex(index, size) + 1];
  }

  /** Returns the entries in order, as an unmodifiable map (built on first use). */
  public Map<String, BareItem> asMap() {
    Map<String, BareItem> m = map;
    if (m == null) {
      if (size == 0) {
        m = Map.of();
      } else {
        LinkedHashMap<String, BareItem> copy = new LinkedHashMap<>(2 * size);
        for (int i = 0; i < size; i++) {
          copy.put(key(i), value(i));
        }
        m = Collections.unmodifiableMap(copy);
      }
      map = m;
    }
    return m;
  }

  /** Returns whether there are no parameters. */
  public boolean isEmpty() {
    return size == 0;
  }

  /** Equal to other parameters with the same keys and values, in any order (as maps are). */
  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof Parameters other) || other.size != size) {
      return false;
    }
    for (int i = 0; i < size; i++) {
      if (!value(i).equals(other.get(key(i)))) {
        return false;
      }
    }
    return true;
  }

  /** The hash code of {@link #asMap()}. */
  @Override
  public int hashCode() {
    int h = 0;
    for (int i = 0; i < size; i++) {
      h += key(i).hashCode() ^ value(i).hashCode();
    }
    return h;
  }

  /** The entries as a field writes them: {@code ;r=50;t=3;x} (a true Boolean without value). */
  @Override
  public String toString() {
    StringBuilder out = new StringBuilder();
    for (var e : asMap().entrySet()) {
      out.append(';').append(e.getKey());
      if (!(e.getValue() instanceof BareItem.BooleanItem b && b.value())) {
        out.append('=').append(e.getValue());
      }
    }
    return out.toString();
  }
}
