package dev.headway.redis;

import dev.headway.internal.store.StoreNames;
import dev.headway.store.QuotaKey;
import java.nio.charset.StandardCharsets;

/**
 * The Redis key names of one {@link QuotaKey}: {@code <prefix>{<partition>|<policy>}:<part>}.
 * The partition is named as {@link StoreNames#hashedUnlessOrigin} names it (an origin whole,
 * anything more only as a hash), or whole when the store was built with readable keys.
 * The braces are a Redis Cluster hash tag (every key of one quota lands on one slot, as a script
 * needs); {@code %}, braces, {@code |} and bytes outside printable ASCII in the names are
 * percent-encoded so that names cannot collide or break out of the tag.
 */
final class KeyNames {
  static final String[] PARTS = {"count", "leases", "hold", "rate", "instances"};

  private KeyNames() {}

  /** The key names of {@code key}, its partition hashed unless it is an origin. */
  static String[] of(String prefix, QuotaKey key) {
    return of(prefix, key, false);
  }

  /** The key names of {@code key}; its partition whole if {@code readable}. */
  static String[] of(String prefix, QuotaKey key, boolean readable) {
    String partition = readable ? key.partition() : StoreNames.hashedUnlessOrigin(key.partition());
    String tag = prefix + "{" + escape(partition) + "|" + escape(key.policy()) + "}:";
    String[] names = new String[PARTS.length];
    for (int i = 0; i < PARTS.length; i++) {
      names[i] = tag + PARTS[i];
    }
    return names;
  }

  static String escape(String name) {
    StringBuilder out = new StringBuilder(name.length());
    for (byte b : name.getBytes(StandardCharsets.UTF_8)) {
      int c = b & 0xff;
      if (c <= 0x20 || c >= 0x7f || c == '%' || c == '{' || c == '}' || c == '|') {
        out.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
            .append(Character.toUpperCase(Character.forDigit(c & 0xf, 16)));
      } else {
        out.append((char) c);
      }
    }
    return out.toString();
  }
}
