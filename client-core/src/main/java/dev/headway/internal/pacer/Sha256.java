package dev.headway.internal.pacer;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The SHA-256 of a text, as lower-case hex: names a long or sensitive partition key by a short,
 * stable digest of the whole of it. Thread-safe.
 */
public final class Sha256 {
  private Sha256() {}

  /**
   * Returns the first {@code digits} hex digits (at most 64) of the SHA-256 of {@code text} in
   * UTF-8.
   */
  public static String hex(String text, int digits) {
    MessageDigest sha;
    try {
      sha = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required of every Java platform", e);
    }
    byte[] hash = sha.digest(text.getBytes(StandardCharsets.UTF_8));
    return HexFormat.of().formatHex(hash, 0, (digits + 1) / 2).substring(0, digits);
  }
}
