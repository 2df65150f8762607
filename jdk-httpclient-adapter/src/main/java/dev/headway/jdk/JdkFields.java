package dev.headway.jdk;

import dev.headway.HttpFields;
import java.net.http.HttpHeaders;
import java.util.List;
import java.util.Map;

/**
 * Copies {@code java.net.http} headers into {@link HttpFields}, every line in order, with one
 * small object besides the fields themselves: the map is walked with {@link Map#forEach} (no
 * entry views) and each name's values by index (no iterators).
 */
final class JdkFields {
  private JdkFields() {}

  /** Returns {@code headers} as fields; the shared empty fields if there are none. */
  static HttpFields of(HttpHeaders headers) {
    Map<String, List<String>> map = headers.map();
    if (map.isEmpty()) {
      return HttpFields.empty();
    }
    HttpFields.Builder builder = HttpFields.builder(map.size());
    map.forEach((name, values) -> {
      for (int i = 0, n = values.size(); i < n; i++) {
        builder.add(name, values.get(i));
      }
    });
    return builder.build();
  }
}
