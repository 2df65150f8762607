package dev.headway.internal.sf;

import java.util.Arrays;
import java.util.Base64;

/** A bare item of an RFC 9651 structured field: one of the eight value types. */
public sealed interface BareItem {

  /** An sf-integer: at most 15 digits. */
  record IntegerItem(long value) implements BareItem {}

  /** An sf-decimal: at most 12 integer and 3 fractional digits, exact in a double. */
  record DecimalItem(double value) implements BareItem {}

  /** An sf-string (ASCII, unescaped). */
  record StringItem(String value) implements BareItem {}

  /** An sf-token. */
  record TokenItem(String value) implements BareItem {}

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
  record BooleanItem(boolean value) implements BareItem {}

  /** An sf-date (RFC 9651): seconds since the epoch. */
  record DateItem(long epochSeconds) implements BareItem {}

  /** An sf-displaystring (RFC 9651): Unicode text. */
  record DisplayStringItem(String value) implements BareItem {}
}
