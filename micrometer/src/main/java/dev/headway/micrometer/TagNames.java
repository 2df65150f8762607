package dev.headway.micrometer;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How partition keys and policy names become tag values: an origin is shown, anything else of a
 * partition key only as a short hash; a policy name is shown unless it is long or unprintable.
 */
final class TagNames {
  /** Policy names up to this long, of printable ASCII, are their own tag value. */
  static final int MAX_POLICY_LENGTH = 64;
  /** A longer or unprintable name keeps this many of its printable characters, then a hash. */
  static final int POLICY_PREFIX = 40;
  /** How the pacer names the partition of a server's {@code pk}: the key, this, the pk. */
  static final String CHILD = "|pk=";
  /** scheme://host:port, as the pacer's origin resolver writes it (IPv6 hosts in brackets). */
  private static final Pattern ORIGIN = Pattern.compile(
      "[a-z][a-z0-9+.-]{0,15}://(\\[[0-9A-Fa-f:.]{2,45}]|[A-Za-z0-9._~%!$&'()*+,;=-]{0,253})"
          + ":[0-9]{1,5}");
  private static final char[] HEX = "0123456789abcdef".toCharArray();

  private TagNames() {}

  /** The partition key a server's {@code pk} partition was split from; {@code key} if none. */
  static String base(String key) {
    int i = key.lastIndexOf(CHILD);
    return i < 0 ? key : key.substring(0, i);
  }

  /**
   * The default partition tag: an origin ({@code scheme://host:port}, nothing more) is itself;
   * any other key is its leading origin, if it has one, then {@code #} and a hash of the whole
   * key, e.g. {@code https://api.telegram.org:443#5d41402a} or {@code #7b502c3a}.
   */
  static String hashedUnlessOrigin(String key) {
    Matcher origin = ORIGIN.matcher(key);
    if (origin.lookingAt()) {
      if (origin.end() == key.length()) {
        return key;
      }
      return key.substring(0, origin.end()) + "#" + hash(key);
    }
    return "#" + hash(key);
  }

  /**
   * A policy's tag value: its name if at most {@link #MAX_POLICY_LENGTH} characters of printable
   * ASCII (no space); otherwise its first {@link #POLICY_PREFIX} such characters, {@code #} and
   * a hash of the whole name.
   */
  static String policy(String name) {
    if (name.length() <= MAX_POLICY_LENGTH && printable(name)) {
      return name;
    }
    StringBuilder tag = new StringBuilder(POLICY_PREFIX + 9);
    for (int i = 0; i < name.length() && tag.length() < POLICY_PREFIX; i++) {
      char c = name.charAt(i);
      if (c > ' ' && c < 0x7f) {
        tag.append(c);
      }
    }
    return tag.append('#').append(hash(name)).toString();
  }

  private static boolean printable(String name) {
    if (name.isEmpty()) {
      return false;
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (c <= ' ' || c >= 0x7f) {
        return false;
      }
    }
    return true;
  }

  /** The first 32 bits of the SHA-256 of {@code text}'s UTF-8, in 8 hex digits. */
  static String hash(String text) {
    byte[] digest;
    try {
      digest = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform has SHA-256", e);
    }
    char[] hex = new char[8];
    for (int i = 0; i < 4; i++) {
      hex[2 * i] = HEX[(digest[i] >> 4) & 0xf];
      hex[2 * i + 1] = HEX[digest[i] & 0xf];
    }
    return new String(hex);
  }
}
