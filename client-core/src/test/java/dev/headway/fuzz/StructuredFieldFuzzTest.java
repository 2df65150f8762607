package dev.headway.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.headway.internal.sf.BareItem;
import dev.headway.internal.sf.InnerList;
import dev.headway.internal.sf.Item;
import dev.headway.internal.sf.Member;
import dev.headway.internal.sf.Parameters;
import dev.headway.internal.sf.StructuredFieldException;
import dev.headway.internal.sf.StructuredFields;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Fuzzes the RFC 9651 structured-field parser ({@link StructuredFields}).
 *
 * <p>Properties, for every input:
 *
 * <ul>
 *   <li>parsing as a List, a Dictionary or an Item either returns a value or throws
 *       {@link StructuredFieldException}: any other exception (or error) is a finding;
 *   <li>a parsed value serialises (RFC 9651 section 4.1, {@link SfSerializer}) to text that parses
 *       back to an equal value and serialises to the same text again (the canonical form is a
 *       fixed point);
 *   <li>a value built from the fuzzer's choices ({@link #generatedValuesRoundTrip}), valid by
 *       construction, serialises to text the parser accepts and reads back equal;
 *   <li>bytes allocated while parsing stay within a linear bound of the input's length
 *       ({@link AllocationMeter}).
 * </ul>
 *
 * <p>Without {@code JAZZER_FUZZ} (every {@code mvn verify}) each target runs once per file of
 * {@code src/test/resources/dev/headway/fuzz/StructuredFieldFuzzTestInputs/<method>/} and the
 * empty input: a regression test. See docs/fuzzing.md for long runs.
 */
class StructuredFieldFuzzTest {

  /**
   * The input, read as Latin-1 (every byte one character, so control characters, DEL and
   * non-ASCII all reach the parser), parsed as each of the three top-level types.
   */
  @FuzzTest(maxDuration = "2m")
  @DictionaryEntries({"\"default\"", ";r=", ";t=", ";q=", ";w=", ";pk=", ";qu=", ":cHJv:",
      "?1", "?0", "@1659578233", "%\"caf%c3%a9\"", "(", ")", ", ", "=", "\\\"", "1.5", "-0.0",
      "999999999999999", "9999999999999999", "123456789012.123", "*token:/x", "\t"})
  void parseAndRoundTrip(byte[] data) {
    String input = new String(data, StandardCharsets.ISO_8859_1);
    Object[] parsed = new Object[3];
    AllocationMeter.runLinear(() -> {
      parsed[0] = orNull(() -> StructuredFields.parseList(input));
      parsed[1] = orNull(() -> StructuredFields.parseDictionary(input));
      parsed[2] = orNull(() -> StructuredFields.parseItem(input));
    }, input.length(), 3, () -> "parsing " + quote(input) + " as a list, a dictionary and an item");
    @SuppressWarnings("unchecked")
    List<Member> list = (List<Member>) parsed[0];
    @SuppressWarnings("unchecked")
    Map<String, Member> dictionary = (Map<String, Member>) parsed[1];
    Item item = (Item) parsed[2];
    if (list != null) {
      String text = SfSerializer.list(list);
      List<Member> again = parse(() -> StructuredFields.parseList(text), text);
      assertThat(again).as("list %s re-parsed from %s", quote(input), quote(text))
          .isEqualTo(list);
      assertThat(SfSerializer.list(again)).as("canonical list of %s", quote(input))
          .isEqualTo(text);
    }
    if (dictionary != null) {
      String text = SfSerializer.dictionary(dictionary);
      Map<String, Member> again = parse(() -> StructuredFields.parseDictionary(text), text);
      assertThat(again).as("dictionary %s re-parsed from %s", quote(input), quote(text))
          .isEqualTo(dictionary);
      assertThat(SfSerializer.dictionary(again)).as("canonical dictionary of %s", quote(input))
          .isEqualTo(text);
    }
    if (item != null) {
      String text = SfSerializer.item(item);
      Item again = parse(() -> StructuredFields.parseItem(text), text);
      assertThat(again).as("item %s re-parsed from %s", quote(input), quote(text))
          .isEqualTo(item);
      assertThat(SfSerializer.item(again)).as("canonical item of %s", quote(input))
          .isEqualTo(text);
    }
  }

  /**
   * The value parsed, or null if the parser rejected the input with its documented exception.
   * Anything else it throws propagates: a finding.
   */
  private static <T> T orNull(SfParse<T> parse) {
    try {
      return parse.run();
    } catch (StructuredFieldException expected) {
      return null;
    }
  }

  /**
   * Values valid by construction: a List, a Dictionary and an Item built from the fuzzer's
   * choices over every bare item type, serialised, must parse back equal.
   */
  @FuzzTest(maxDuration = "2m")
  void generatedValuesRoundTrip(FuzzedDataProvider data) {
    switch (data.consumeInt(0, 2)) {
      case 0: {
        List<Member> members = new ArrayList<>();
        int n = data.consumeInt(0, 6);
        for (int i = 0; i < n; i++) {
          members.add(member(data));
        }
        String text = SfSerializer.list(members);
        assertThat(parse(() -> StructuredFields.parseList(text), text))
            .as("list %s", quote(text)).isEqualTo(List.copyOf(members));
        break;
      }
      case 1: {
        LinkedHashMap<String, Member> members = new LinkedHashMap<>();
        int n = data.consumeInt(0, 6);
        for (int i = 0; i < n; i++) {
          members.put(key(data), member(data));
        }
        String text = SfSerializer.dictionary(members);
        Map<String, Member> parsed = parse(() -> StructuredFields.parseDictionary(text), text);
        assertThat(parsed).as("dictionary %s", quote(text)).isEqualTo(members);
        assertThat(List.copyOf(parsed.keySet())).as("order of %s", quote(text))
            .isEqualTo(List.copyOf(members.keySet()));
        break;
      }
      default: {
        Item item = item(data);
        String text = SfSerializer.item(item);
        assertThat(parse(() -> StructuredFields.parseItem(text), text))
            .as("item %s", quote(text)).isEqualTo(item);
      }
    }
  }

  private static Member member(FuzzedDataProvider data) {
    if (data.consumeInt(0, 3) == 0) {
      List<Item> items = new ArrayList<>();
      int n = data.consumeInt(0, 4);
      for (int i = 0; i < n; i++) {
        items.add(item(data));
      }
      return new InnerList(List.copyOf(items), parameters(data));
    }
    return item(data);
  }

  private static Item item(FuzzedDataProvider data) {
    return new Item(bareItem(data), parameters(data));
  }

  private static Parameters parameters(FuzzedDataProvider data) {
    LinkedHashMap<String, BareItem> map = new LinkedHashMap<>();
    int n = data.consumeInt(0, data.consumeBoolean() ? 3 : 12); // past 8 the parser indexes keys
    for (int i = 0; i < n; i++) {
      map.put(key(data), bareItem(data));
    }
    return Parameters.of(map);
  }

  private static final String KEY_FIRST = "abcdefghijklmnopqrstuvwxyz*";
  private static final String KEY_REST = KEY_FIRST + "0123456789_-.";
  private static final String TOKEN_FIRST =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ*";
  private static final String TOKEN_REST = TOKEN_FIRST + "0123456789!#$%&'+-.^_`|~:/";

  private static String key(FuzzedDataProvider data) {
    return word(data, KEY_FIRST, KEY_REST, 40);
  }

  private static String word(FuzzedDataProvider data, String first, String rest, int max) {
    StringBuilder sb = new StringBuilder().append(data.pickValue(first.toCharArray()));
    int n = data.consumeInt(0, max);
    for (int i = 0; i < n; i++) {
      sb.append(data.pickValue(rest.toCharArray()));
    }
    return sb.toString();
  }

  private static BareItem bareItem(FuzzedDataProvider data) {
    switch (data.consumeInt(0, 7)) {
      case 0:
        return new BareItem.IntegerItem(
            data.consumeLong(-999_999_999_999_999L, 999_999_999_999_999L));
      case 1: {
        long thousandths = data.consumeLong(-999_999_999_999_999L, 999_999_999_999_999L);
        return new BareItem.DecimalItem(thousandths / 1000.0);
      }
      case 2: {
        StringBuilder sb = new StringBuilder();
        int n = data.consumeInt(0, 60);
        for (int i = 0; i < n; i++) {
          sb.append((char) data.consumeInt(0x20, 0x7e));
        }
        return new BareItem.StringItem(sb.toString());
      }
      case 3:
        return new BareItem.TokenItem(word(data, TOKEN_FIRST, TOKEN_REST, 40));
      case 4:
        return new BareItem.ByteSequenceItem(data.consumeBytes(data.consumeInt(0, 40)));
      case 5:
        return new BareItem.BooleanItem(data.consumeBoolean());
      case 6:
        return new BareItem.DateItem(
            data.consumeLong(-999_999_999_999_999L, 999_999_999_999_999L));
      default: {
        // Any Unicode text (no lone surrogates: the parser requires valid UTF-8).
        StringBuilder sb = new StringBuilder();
        int n = data.consumeInt(0, 20);
        for (int i = 0; i < n; i++) {
          int cp = data.consumeInt(0, 0x10FFFF);
          if (cp >= 0xD800 && cp <= 0xDFFF) {
            cp = 'x';
          }
          sb.appendCodePoint(cp);
        }
        return new BareItem.DisplayStringItem(sb.toString());
      }
    }
  }

  /** A parse of the serialiser's own output, which must succeed. */
  private static <T> T parse(SfParse<T> parse, String text) {
    try {
      return parse.run();
    } catch (StructuredFieldException e) {
      throw new AssertionError("serialised value " + quote(text) + " does not parse: "
          + e.getMessage(), e);
    }
  }

  @FunctionalInterface
  private interface SfParse<T> {
    T run() throws StructuredFieldException;
  }

  static String quote(String s) {
    StringBuilder sb = new StringBuilder("\"");
    int limit = Math.min(s.length(), 300);
    for (int i = 0; i < limit; i++) {
      char c = s.charAt(i);
      if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\') {
        sb.append(String.format("\\u%04x", (int) c));
      } else {
        sb.append(c);
      }
    }
    if (s.length() > limit) {
      sb.append("...(").append(s.length()).append(" chars)");
    }
    return sb.append('"').toString();
  }
}
