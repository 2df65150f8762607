package dev.headway.internal.sf;

import java.util.Arrays;
import java.util.Base64;

/**
 * A bare item of an RFC 9651 structured field: one of the eight value types. Each prints as it
 * is written in a field ({@code 42}, {@code 1.5}, {@code "text"}, {@code token}, {@code :AQI=:},
 * {@code ?1}, {@code @1700000000}, {@code %"caf%c3%a9"}), so that messages quote values the way
 * the server sent them.
 */
public sealed interface BareItem {

  /** An sf-integer: at most 15 digits. */
  record IntegerItem(long value) implements BareItem {
    @Override
    public String toString() {
      return Long.toString(value);
    }
  }

  /** An sf-decimal: at most 12 integer and 3 fractional digits, exact in a double. */
  record DecimalItem(double value) implements BareItem {
    @Override
    public String toString() {
      String text = java.math.BigDecimal.valueOf(value).stripTrailingZeros().toPlainString();
      return text.contains(".") ? text : text + ".0";
    }
  }

  /** An sf-string (ASCII, unescaped). */
  record StringItem(String value) implements BareItem {
    @Override
    public String toString() {
      return '"' + value.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
    }
  }

  /** An sf-token. */
  record TokenItem(String value) implements BareItem {
    @Override
    public String toString() {
      return value;
    }
  }

  /** An sf-binary byte sequence. */
  record ByteSequenceItem(byte[] value) implements BareItem {
    @Override
    public boolean equals(Object o) {
      return o instanceof ByteSequenceItem other && Arrays.equals(value, other.value);
    }

    @Override
    public int hashCode() {
      return Arrays.hashCode(value);
    }

    @Override
    public String toString() {
      return ":" + Base64.getEncoder().encodeToString(value) + ":";
    }
  }

  /** An sf-boolean. */
  record BooleanItem(boolean value) implements BareItem {
    @Override
    public String toString() {
      return value ? "?1" : "?0";
    }
  }

  /** An sf-date (RFC 9651): seconds since the epoch. */
  record DateItem(long epochSeconds) implements BareItem {
    @Override
    public String toString() {
      return "@" + epochSeconds;
    }
  }

  /** An sf-displaystring (RFC 9651): Unicode text. */
  record DisplayStringItem(String value) implements BareItem {
    @Override
    public String toString() {
      StringBuilder out = new StringBuilder("%\"");
      for (byte b : value.getBytes(java.nio.charset.StandardCharsets.UTF_8)) {
        int c = b & 0xff;
        if (c == '%' || c == '"' || c < 0x20 || c > 0x7e) {
          out.append('%').append(Character.forDigit(c >> 4, 16))
              .append(Character.forDigit(c & 0xf, 16));
        } else {
          out.append((char) c);
        }
      }
      return out.append('"').toString();
    }
  }
}
