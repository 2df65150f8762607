package dev.headway;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * An immutable, case-insensitive multimap of HTTP field lines (request or response headers).
 *
 * <p>Names are compared ignoring ASCII case; every field line of a name is kept, in the order it
 * was added. Adapters build one from their client's header type; tests build one with
 * {@link #of(String...)}.
 *
 * <p>Immutable and thread-safe.
 */
public final class HttpFields {
  private static final HttpFields EMPTY = new HttpFields(Map.of());

  /** Lower-cased name to the field values in arrival order. */
  private final Map<String, List<String>> fields;

  private HttpFields(Map<String, List<String>> fields) {
    this.fields = fields;
  }

  /** Returns an instance with no fields. */
  public static HttpFields empty() {
    return EMPTY;
  }

  /**
   * Returns fields from alternating names and values: {@code of("Retry-After", "20", "Date", d)}.
   *
   * @throws IllegalArgumentException if the number of arguments is odd
   */
  public static HttpFields of(String... namesAndValues) {
    if (namesAndValues.length % 2 != 0) {
      throw new IllegalArgumentException(
          "namesAndValues must have an even length but was " + namesAndValues.length);
    }
    Builder builder = builder();
    for (int i = 0; i < namesAndValues.length; i += 2) {
      builder.add(namesAndValues[i], namesAndValues[i + 1]);
    }
    return builder.build();
  }

  /** Returns fields copied from a map of names to values, such as {@code HttpHeaders.map()}. */
  public static HttpFields of(Map<String, ? extends List<String>> map) {
    Builder builder = builder();
    map.forEach((name, values) -> values.forEach(value -> builder.add(name, value)));
    return builder.build();
  }

  /** Returns a new, empty builder. */
  public static Builder builder() {
    return new Builder();
  }

  /** Returns every value of the field {@code name}, in order; empty if it is absent. */
  public List<String> values(String name) {
    List<String> values = fields.get(lower(name));
    return values == null ? List.of() : values;
  }

  /** Returns the first value of the field {@code name}, if present. */
  public Optional<String> firstValue(String name) {
    List<String> values = fields.get(lower(name));
    return values == null ? Optional.empty() : Optional.of(values.get(0));
  }

  /** Returns whether the field {@code name} is present. */
  public boolean contains(String name) {
    return fields.containsKey(lower(name));
  }

  /** Returns the lower-cased names of all fields present, in the order they were first added. */
  public Set<String> names() {
    return fields.keySet();
  }

  /** Returns the number of distinct field names. */
  public int size() {
    return fields.size();
  }

  /** Returns an unmodifiable view: lower-cased names to their values. */
  public Map<String, List<String>> asMap() {
    return fields;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof HttpFields other && fields.equals(other.fields);
  }

  @Override
  public int hashCode() {
    return fields.hashCode();
  }

  @Override
  public String toString() {
    return fields.toString();
  }

  static String lower(String name) {
    // Fast path: header names are usually lower-case already (HTTP/2) or short.
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (c >= 'A' && c <= 'Z') {
        return name.toLowerCase(Locale.ROOT);
      }
    }
    return name;
  }

  /** Builds {@link HttpFields}. Not thread-safe. */
  public static final class Builder {
    private final Map<String, List<String>> fields = new LinkedHashMap<>();

    private Builder() {}

    /** Adds one field line; names are case-insensitive, values are kept as given. */
    public Builder add(String name, String value) {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(value, "value");
      fields.computeIfAbsent(lower(name), k -> new ArrayList<>(1)).add(value);
      return this;
    }

    /** Returns the immutable fields added so far. */
    public HttpFields build() {
      if (fields.isEmpty()) {
        return EMPTY;
      }
      Map<String, List<String>> copy = new LinkedHashMap<>(fields.size() * 2);
      fields.forEach((k, v) -> copy.put(k, List.copyOf(v)));
      return new HttpFields(Collections.unmodifiableMap(copy));
    }
  }
}
