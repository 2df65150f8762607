package dev.headway;

import java.util.AbstractSet;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * An immutable, case-insensitive multimap of HTTP field lines (request or response headers).
 *
 * <p>Names are compared ignoring ASCII case; every field line of a name is kept, in the order it
 * was added. Adapters build one from their client's header type; tests build one with
 * {@link #of(String...)}.
 *
 * <p>{@link #toString()} never shows a credential: the value of a field whose name is
 * {@code authorization}, {@code proxy-authorization}, {@code cookie} or {@code set-cookie}, or
 * contains (in any case) {@code auth}, {@code token}, {@code secret}, {@code key},
 * {@code signature}, {@code password}, {@code credential}, {@code session} or {@code cookie}, is
 * shown as {@code <redacted>}; the field's name and its number of lines are kept. The accessors
 * return every value as it is.
 *
 * <p>Immutable and thread-safe.
 */
public final class HttpFields {
  private static final HttpFields EMPTY = new HttpFields(new String[0], 0);

  /**
   * Above this many field lines, look-ups go through the map built by {@link #asMap()} instead
   * of scanning the lines: a scan is cheaper for the dozen or so lines of a usual response, and
   * the map bounds the work a response with thousands of lines can cause.
   */
  private static final int SCAN_LIMIT = 32;

  /**
   * The field lines: lower-cased names at even indexes, each followed by its value. Only the first
   * {@code length} entries are used; never modified once this instance is visible.
   */
  private final String[] lines;

  private final int length;

  /** {@link #asMap()}, built when first asked for (at once for more than a few lines). */
  private volatile @Nullable Map<String, List<String>> map;

  private HttpFields(String[] lines, int length) {
    this.lines = lines;
    this.length = length;
    if (length > 2 * SCAN_LIMIT) {
      this.map = group(lines, length); // built now: every look-up of so many lines uses it
    }
  }

  /**
   * Returns an instance with no fields.
   *
   * @return the shared empty instance
   */
  public static HttpFields empty() {
    return EMPTY;
  }

  /**
   * Returns fields from alternating names and values: {@code of("Retry-After", "20", "Date", d)}.
   *
   * @param namesAndValues field names at even indexes, each followed by its value
   * @return the fields, in the order given
   * @throws IllegalArgumentException if the number of arguments is odd
   */
  public static HttpFields of(String... namesAndValues) {
    Objects.requireNonNull(namesAndValues, "namesAndValues must not be null");
    if (namesAndValues.length % 2 != 0) {
      throw new IllegalArgumentException(
          "namesAndValues must have an even length but was " + namesAndValues.length);
    }
    Builder builder = builder(namesAndValues.length / 2);
    for (int i = 0; i < namesAndValues.length; i += 2) {
      builder.add(namesAndValues[i], namesAndValues[i + 1]);
    }
    return builder.build();
  }

  /**
   * Returns fields copied from a map of names to values, such as {@code HttpHeaders.map()}.
   *
   * @param map field names (in any case) to their values, in order
   * @return the fields, name by name in the map's iteration order
   */
  public static HttpFields of(Map<String, ? extends List<String>> map) {
    Objects.requireNonNull(map, "map must not be null");
    Builder builder = builder(map.size());
    map.forEach((name, values) -> values.forEach(value -> builder.add(name, value)));
    return builder.build();
  }

  /**
   * Returns a new, empty builder.
   *
   * @return a builder with room for a few field lines; it grows as needed
   */
  public static Builder builder() {
    return new Builder(8);
  }

  /**
   * Returns a new, empty builder sized for {@code expectedLines} field lines, for an adapter that
   * knows how many its client's headers hold: building then copies nothing twice.
   *
   * @param expectedLines how many field lines will be added; not negative
   * @return a builder with room for that many lines; it grows if more are added
   * @throws IllegalArgumentException if {@code expectedLines} is negative
   */
  public static Builder builder(int expectedLines) {
    if (expectedLines < 0) {
      throw new IllegalArgumentException(
          "expectedLines must not be negative but was " + expectedLines);
    }
    return new Builder(expectedLines);
  }

  /**
   * Returns the value of the field {@code name}: its lines joined with {@code ", "}, as RFC 9110
   * section 5.3 combines them; {@code null} if it is absent. Unlike {@link #values}, allocates
   * nothing for a field of one line (the common case): a dialect reading every response can use
   * it.
   *
   * @param name the field name, in any case
   * @return the combined value, or {@code null} if the field is absent
   */
  public @Nullable String joined(String name) {
    if (length > 2 * SCAN_LIMIT) {
      List<String> values = asMap().get(lower(name));
      return values == null ? null
          : values.size() == 1 ? values.get(0) : String.join(", ", values);
    }
    String key = lower(name);
    int first = indexOf(key, 0);
    if (first < 0) {
      return null;
    }
    int second = indexOf(key, first + 2);
    if (second < 0) {
      return lines[first + 1];
    }
    StringBuilder joined = new StringBuilder(lines[first + 1]);
    for (int i = second; i >= 0; i = indexOf(key, i + 2)) {
      joined.append(", ").append(lines[i + 1]);
    }
    return joined.toString();
  }

  /**
   * Returns every value of the field {@code name}, in order; empty if it is absent.
   *
   * @param name the field name, in any case
   * @return the values, one per field line; an immutable list
   */
  public List<String> values(String name) {
    if (length > 2 * SCAN_LIMIT) {
      List<String> values = asMap().get(lower(name));
      return values == null ? List.of() : values;
    }
    String key = lower(name);
    int first = indexOf(key, 0);
    if (first < 0) {
      return List.of();
    }
    int second = indexOf(key, first + 2);
    if (second < 0) {
      return List.of(lines[first + 1]);
    }
    List<String> values = new ArrayList<>(4);
    values.add(lines[first + 1]);
    for (int i = second; i >= 0; i = indexOf(key, i + 2)) {
      values.add(lines[i + 1]);
    }
    return Collections.unmodifiableList(values);
  }

  /**
   * Returns the first value of the field {@code name}, if present.
   *
   * @param name the field name, in any case
   * @return the value of its first field line, or empty if the field is absent
   */
  public Optional<String> firstValue(String name) {
    if (length > 2 * SCAN_LIMIT) {
      List<String> values = asMap().get(lower(name));
      return values == null ? Optional.empty() : Optional.of(values.get(0));
    }
    int i = indexOf(lower(name), 0);
    return i < 0 ? Optional.empty() : Optional.of(lines[i + 1]);
  }

  /**
   * Returns whether the field {@code name} is present.
   *
   * @param name the field name, in any case
   * @return true if at least one field line has that name
   */
  public boolean contains(String name) {
    if (length > 2 * SCAN_LIMIT) {
      return asMap().containsKey(lower(name));
    }
    return indexOf(lower(name), 0) >= 0;
  }

  /**
   * Returns the lower-cased names of all fields present, in the order they were first added.
   *
   * @return the names; an unmodifiable set, empty if there are no fields
   */
  public Set<String> names() {
    if (length > 2 * SCAN_LIMIT) {
      return asMap().keySet();
    }
    return new Names();
  }

  /**
   * Returns the number of distinct field names.
   *
   * @return the number of distinct names, not of field lines
   */
  public int size() {
    if (length > 2 * SCAN_LIMIT) {
      return asMap().size();
    }
    int distinct = 0;
    for (int i = 0; i < length; i += 2) {
      if (isFirst(i)) {
        distinct++;
      }
    }
    return distinct;
  }

  /**
   * Returns an unmodifiable view: lower-cased names to their values.
   *
   * @return the map, in the order names were first added; each list in line order
   */
  public Map<String, List<String>> asMap() {
    Map<String, List<String>> result = map;
    if (result == null) {
      result = group(lines, length);
      map = result;
    }
    return result;
  }

  private static Map<String, List<String>> group(String[] lines, int length) {
    Map<String, List<String>> grouped = new LinkedHashMap<>();
    for (int i = 0; i < length; i += 2) {
      grouped.computeIfAbsent(lines[i], k -> new ArrayList<>(1)).add(lines[i + 1]);
    }
    Map<String, List<String>> copy = new LinkedHashMap<>(grouped.size() * 2);
    grouped.forEach((k, v) -> copy.put(k, List.copyOf(v)));
    return Collections.unmodifiableMap(copy);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof HttpFields other && asMap().equals(other.asMap());
  }

  @Override
  public int hashCode() {
    return asMap().hashCode();
  }

  /**
   * Returns the fields as {@code {name=[value, ...], ...}}, names lower-cased, with the value of
   * every credential field (see the class description) shown as {@code <redacted>}: a
   * {@code toString} ends up in logs and exception messages.
   */
  @Override
  public String toString() {
    StringBuilder text = new StringBuilder("{");
    asMap().forEach((name, values) -> {
      if (text.length() > 1) {
        text.append(", ");
      }
      text.append(name).append("=[");
      boolean redact = redacted(name);
      for (int i = 0; i < values.size(); i++) {
        text.append(i == 0 ? "" : ", ").append(redact ? REDACTED : values.get(i));
      }
      text.append(']');
    });
    return text.append('}').toString();
  }

  private static final String REDACTED = "<redacted>";
  private static final String[] SENSITIVE_PARTS = {"auth", "token", "secret", "key", "signature",
      "password", "credential", "session", "cookie"};

  /**
   * Whether the value of the field {@code lowerName} is a credential that {@link #toString}
   * hides: see the class description.
   */
  static boolean redacted(String lowerName) {
    for (String part : SENSITIVE_PARTS) {
      if (lowerName.contains(part)) {
        return true; // authorization, proxy-authorization, cookie and set-cookie among them
      }
    }
    return false;
  }

  /** Returns the index of the first line at or after {@code from} named {@code key}, or -1. */
  private int indexOf(String key, int from) {
    for (int i = from; i < length; i += 2) {
      if (key.equals(lines[i])) {
        return i;
      }
    }
    return -1;
  }

  /** Returns whether the line at {@code index} is the first of its name. */
  private boolean isFirst(int index) {
    String name = lines[index];
    for (int i = 0; i < index; i += 2) {
      if (name.equals(lines[i])) {
        return false;
      }
    }
    return true;
  }

  static String lower(String name) {
    Objects.requireNonNull(name, "name must not be null");
    // Fast path: header names are usually lower-case already (HTTP/2) or short.
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (c >= 'A' && c <= 'Z') {
        return wellKnown(name);
      }
    }
    return name;
  }

  /**
   * Lower-case names of the fields most responses carry and of those the parser reads, by
   * length: an HTTP/1.1 response spells them {@code Content-Type}, and lower-casing each of them
   * again for every response would be most of what copying its headers costs.
   */
  private static final String[][] WELL_KNOWN = byLength(
      "date", "etag", "vary", "host", "server", "expires", "location", "connection",
      "keep-alive", "set-cookie", "user-agent", "content-type", "content-length", "cache-control",
      "last-modified", "transfer-encoding", "content-encoding", "authorization", "accept",
      "accept-encoding", "retry-after", "ratelimit", "ratelimit-policy", "ratelimit-limit",
      "ratelimit-remaining", "ratelimit-reset", "x-ratelimit-limit", "x-ratelimit-remaining",
      "x-ratelimit-reset", "x-ratelimit-used", "x-ratelimit-resource", "x-request-id",
      "x-content-type-options", "strict-transport-security", "access-control-allow-origin");

  private static String[][] byLength(String... names) {
    int longest = 0;
    for (String name : names) {
      longest = Math.max(longest, name.length());
    }
    String[][] table = new String[longest + 1][];
    for (int length = 0; length <= longest; length++) {
      int len = length;
      table[length] = Arrays.stream(names).filter(n -> n.length() == len).toArray(String[]::new);
    }
    return table;
  }

  /** Returns the lower-case form of {@code name}, shared if it is a well-known name. */
  private static String wellKnown(String name) {
    int length = name.length();
    if (length < WELL_KNOWN.length) {
      for (String known : WELL_KNOWN[length]) {
        if (known.regionMatches(true, 0, name, 0, length)) {
          return known;
        }
      }
    }
    return name.toLowerCase(Locale.ROOT);
  }

  /** The distinct names of a few lines, read from the lines without copying them. */
  private final class Names extends AbstractSet<String> {
    @Override
    public Iterator<String> iterator() {
      return new Iterator<>() {
        private int next = advance(0);

        private int advance(int from) {
          int i = from;
          while (i < length && !isFirst(i)) {
            i += 2;
          }
          return i;
        }

        @Override
        public boolean hasNext() {
          return next < length;
        }

        @Override
        public String next() {
          if (next >= length) {
            throw new NoSuchElementException();
          }
          String name = lines[next];
          next = advance(next + 2);
          return name;
        }
      };
    }

    @Override
    public int size() {
      return HttpFields.this.size();
    }

    @Override
    public boolean contains(Object o) {
      return o instanceof String name && indexOf(name, 0) >= 0;
    }
  }

  /** Builds {@link HttpFields}. Not thread-safe. */
  public static final class Builder {
    private String[] lines;
    private int length;
    /** Whether {@link #lines} was handed to a built instance and must be copied before a write. */
    private boolean shared;

    private Builder(int expectedLines) {
      this.lines = new String[2 * expectedLines];
    }

    /**
     * Adds one field line; names are case-insensitive, values are kept as given.
     *
     * @param name the field name, in any case; it is kept lower-cased
     * @param value the field value
     * @return this builder
     */
    public Builder add(String name, String value) {
      Objects.requireNonNull(name, "name must not be null");
      Objects.requireNonNull(value, "value must not be null");
      if (shared || length == lines.length) {
        lines = Arrays.copyOf(lines, Math.max(8, length * 2));
        shared = false;
      }
      lines[length] = lower(name);
      lines[length + 1] = value;
      length += 2;
      return this;
    }

    /**
     * Returns the immutable fields added so far.
     *
     * @return the fields; later additions to this builder do not change them
     */
    public HttpFields build() {
      if (length == 0) {
        return EMPTY;
      }
      shared = true;
      return new HttpFields(lines, length);
    }
  }
}
