package dev.headway.fuzz;

import dev.headway.internal.sf.BareItem;
import dev.headway.internal.sf.InnerList;
import dev.headway.internal.sf.Item;
import dev.headway.internal.sf.Member;
import dev.headway.internal.sf.Parameters;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;

/**
 * Serialises parsed structured fields back to text (RFC 9651 section 4.1), so that the fuzz tests
 * can check that parsing and serialising agree: the main code only parses, so this serialiser
 * lives with the tests. Written from the RFC's algorithms, step by step. Stateless.
 */
final class SfSerializer {
  private SfSerializer() {}

  /** Section 4.1.1: members joined with {@code ", "}. */
  static String list(List<Member> members) {
    StringBuilder out = new StringBuilder();
    for (Member member : members) {
      if (out.length() > 0) {
        out.append(", ");
      }
      member(out, member);
    }
    return out.toString();
  }

  /** Section 4.1.2: {@code key=member}, or {@code key;params} for a true item. */
  static String dictionary(Map<String, Member> members) {
    StringBuilder out = new StringBuilder();
    for (Map.Entry<String, Member> entry : members.entrySet()) {
      if (out.length() > 0) {
        out.append(", ");
      }
      out.append(entry.getKey());
      Member member = entry.getValue();
      if (member instanceof Item item && item.value() instanceof BareItem.BooleanItem b
          && b.value()) {
        parameters(out, item.parameters());
      } else {
        out.append('=');
        member(out, member);
      }
    }
    return out.toString();
  }

  /** Section 4.1.3. */
  static String item(Item item) {
    StringBuilder out = new StringBuilder();
    item(out, item);
    return out.toString();
  }

  private static void member(StringBuilder out, Member member) {
    if (member instanceof InnerList inner) {
      out.append('(');
      for (int i = 0; i < inner.items().size(); i++) {
        if (i > 0) {
          out.append(' ');
        }
        item(out, inner.items().get(i));
      }
      out.append(')');
      parameters(out, inner.parameters());
    } else {
      item(out, (Item) member);
    }
  }

  private static void item(StringBuilder out, Item item) {
    bareItem(out, item.value());
    parameters(out, item.parameters());
  }

  /** Section 4.1.1.2: {@code ;key} for true, else {@code ;key=value}. */
  private static void parameters(StringBuilder out, Parameters parameters) {
    for (int i = 0; i < parameters.size(); i++) {
      out.append(';').append(parameters.key(i));
      BareItem value = parameters.value(i);
      if (!(value instanceof BareItem.BooleanItem b && b.value())) {
        out.append('=');
        bareItem(out, value);
      }
    }
  }

  private static void bareItem(StringBuilder out, BareItem value) {
    if (value instanceof BareItem.IntegerItem i) {
      out.append(i.value());
    } else if (value instanceof BareItem.DecimalItem d) {
      out.append(decimal(d.value()));
    } else if (value instanceof BareItem.StringItem s) {
      out.append('"');
      for (int i = 0; i < s.value().length(); i++) {
        char c = s.value().charAt(i);
        if (c == '"' || c == '\\') {
          out.append('\\');
        }
        out.append(c);
      }
      out.append('"');
    } else if (value instanceof BareItem.TokenItem t) {
      out.append(t.value());
    } else if (value instanceof BareItem.ByteSequenceItem b) {
      out.append(':').append(Base64.getEncoder().encodeToString(b.value())).append(':');
    } else if (value instanceof BareItem.BooleanItem b) {
      out.append(b.value() ? "?1" : "?0");
    } else if (value instanceof BareItem.DateItem d) {
      out.append('@').append(d.epochSeconds());
    } else if (value instanceof BareItem.DisplayStringItem d) {
      out.append("%\"");
      for (byte b : d.value().getBytes(StandardCharsets.UTF_8)) {
        int c = b & 0xff;
        if (c == '%' || c == '"' || c < 0x20 || c > 0x7e) {
          out.append('%').append(Character.forDigit(c >> 4, 16))
              .append(Character.forDigit(c & 15, 16));
        } else {
          out.append((char) c);
        }
      }
      out.append('"');
    } else {
      throw new AssertionError("unknown bare item " + value);
    }
  }

  /**
   * Section 4.1.5: rounded to three fractional digits (half to even), trailing zeros dropped but
   * at least one fractional digit kept. A negative zero keeps its sign, so that it parses back to
   * the same double.
   */
  static String decimal(double value) {
    BigDecimal rounded = new BigDecimal(value).setScale(3, RoundingMode.HALF_EVEN);
    String text = rounded.stripTrailingZeros().toPlainString();
    if (text.indexOf('.') < 0) {
      text = text + ".0";
    }
    if (Double.doubleToRawLongBits(value) == Long.MIN_VALUE) {
      text = "-0.0";
    }
    return text;
  }
}
