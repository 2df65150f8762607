package dev.headway.internal.sf;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The readers of the two encoded bare items of RFC 9651: byte sequences (section 4.2.7, base64
 * between colons) and display strings (section 4.2.10, percent-encoded UTF-8). Rate-limit
 * fields rarely carry them, so they are kept apart from the everyday {@link ItemReaders}. Each
 * reader starts at the parser's cursor, consumes its item and leaves the cursor just after it.
 */
final class EncodedItemReaders {
  /** The value of each base64 alphabet character, -1 for any other character. */
  private static final byte[] BASE64 = new byte[128];

  static {
    Arrays.fill(BASE64, (byte) -1);
    String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (int i = 0; i < alphabet.length(); i++) {
      BASE64[alphabet.charAt(i)] = (byte) i;
    }
  }

  private EncodedItemReaders() {}

  private static String printable(char c) {
    return StructuredFields.printable(c);
  }

  /**
   * Section 4.2.7. Base64 with the standard alphabet; "=" only at the end, at most two, and
   * then making the length a multiple of four. As the RFC recommends, missing padding and
   * non-zero pad bits are accepted.
   */
  static BareItem byteSequence(StructuredFields p) throws StructuredFieldException {
    p.pos++; // ':'
    int start = p.pos;
    while (p.pos < p.len && p.in.charAt(p.pos) != ':') {
      p.pos++;
    }
    if (p.pos == p.len) {
      throw p.fail("byte sequence is not closed");
    }
    int end = p.pos;
    int padding = 0;
    while (end - padding > start && p.in.charAt(end - padding - 1) == '=') {
      padding++;
    }
    int length = end - start;
    int dataLength = length - padding;
    if (padding > 2 || (padding > 0 && length % 4 != 0)) {
      throw p.fail("byte sequence has invalid padding");
    }
    if (dataLength % 4 == 1) {
      throw p.fail("byte sequence has an invalid length");
    }
    byte[] out = new byte[dataLength / 4 * 3 + Math.max(0, dataLength % 4 - 1)];
    int bits = 0;
    int bitCount = 0;
    int o = 0;
    for (int i = start; i < start + dataLength; i++) {
      char c = p.in.charAt(i);
      int v = c < 128 ? BASE64[c] : -1;
      if (v < 0) {
        p.pos = i;
        throw p.fail("invalid character '" + printable(c) + "' in byte sequence");
      }
      bits = (bits << 6) | v;
      bitCount += 6;
      if (bitCount >= 8) {
        bitCount -= 8;
        out[o++] = (byte) (bits >> bitCount);
        bits &= (1 << bitCount) - 1;
      }
    }
    p.pos = end + 1;
    return new BareItem.ByteSequenceItem(out);
  }

  /** Section 4.2.10; lowercase percent-encoding only, and the bytes must be valid UTF-8. */
  static BareItem displayString(StructuredFields p) throws StructuredFieldException {
    if (p.pos + 1 >= p.len || p.in.charAt(p.pos + 1) != '"') {
      throw p.fail("display string must start with %\"");
    }
    p.pos += 2;
    int start = p.pos;
    while (p.pos < p.len) {
      char c = p.in.charAt(p.pos);
      if (c == '"') {
        String value = p.in.substring(start, p.pos);
        p.pos++;
        return new BareItem.DisplayStringItem(value);
      }
      if (c == '%') {
        break;
      }
      if (c < 0x20 || c > 0x7e) {
        throw p.fail("invalid character '" + printable(c) + "' in display string");
      }
      p.pos++;
    }
    byte[] bytes = new byte[Math.max(16, 2 * (p.pos - start))];
    int n = 0;
    for (int i = start; i < p.pos; i++) {
      bytes[n++] = (byte) p.in.charAt(i);
    }
    while (p.pos < p.len) {
      char c = p.in.charAt(p.pos);
      if (c < 0x20 || c > 0x7e) {
        throw p.fail("invalid character '" + printable(c) + "' in display string");
      }
      if (c == '"') {
        p.pos++;
        try {
          return new BareItem.DisplayStringItem(
              StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes, 0, n)).toString());
        } catch (CharacterCodingException e) {
          throw p.fail("display string is not valid UTF-8");
        }
      }
      if (n == bytes.length) {
        bytes = Arrays.copyOf(bytes, 2 * n);
      }
      if (c == '%') {
        int high = p.pos + 1 < p.len ? lowerHex(p.in.charAt(p.pos + 1)) : -1;
        int low = p.pos + 2 < p.len ? lowerHex(p.in.charAt(p.pos + 2)) : -1;
        if (high < 0 || low < 0) {
          throw p.fail("display string escape must be '%' and two lowercase hex digits");
        }
        bytes[n++] = (byte) (high << 4 | low);
        p.pos += 3;
      } else {
        bytes[n++] = (byte) c;
        p.pos++;
      }
    }
    throw p.fail("display string is not closed");
  }

  private static int lowerHex(char c) {
    if (c >= '0' && c <= '9') {
      return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
      return c - 'a' + 10;
    }
    return -1;
  }
}
