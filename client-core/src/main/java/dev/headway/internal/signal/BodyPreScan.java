package dev.headway.internal.signal;

/**
 * The byte-level pre-scan of a body that {@link BodyReader} runs before Jackson sees it:
 * whether a body of a status without hints still names {@code "throttleStatus"}, and whether
 * arrays and objects nest deeper than {@link BodyReader#MAX_DEPTH}. Linear in the body length,
 * allocation-free, stateless.
 */
final class BodyPreScan {
  private BodyPreScan() {}

  /**
   * Returns whether arrays and objects nest deeper than {@link BodyReader#MAX_DEPTH} (strings
   * skipped).
   */
  static boolean tooDeep(byte[] body, int length) {
    int depth = 0;
    boolean inString = false;
    for (int i = 0; i < length; i++) {
      byte b = body[i];
      if (inString) {
        if (b == '\\') {
          i++;
        } else if (b == '"') {
          inString = false;
        }
      } else if (b == '"') {
        inString = true;
      } else if (b == '{' || b == '[') {
        if (++depth > BodyReader.MAX_DEPTH) {
          return true;
        }
      } else if (b == '}' || b == ']') {
        depth--;
      }
    }
    return false;
  }

  static boolean contains(byte[] haystack, int length, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return true;
    }
    return false;
  }
}
