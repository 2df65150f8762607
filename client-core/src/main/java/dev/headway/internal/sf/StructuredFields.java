package dev.headway.internal.sf;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Parses RFC 9651 structured field values (Lists, Dictionaries, Items). Several field lines of
 * one field are joined with {@code ", "} by the caller before parsing (RFC 9651 section 4.2).
 *
 * <p>Parsing is linear in the input's length and never throws anything but
 * {@link StructuredFieldException}. Thread-safe (stateless).
 *
 * <p>How it works: one cursor ({@code pos}) walks the input {@code String} once, left to
 * right, following the algorithms of RFC 9651 section 4.2 step by step. No step moves the
 * cursor backwards and no step looks further ahead than the token it consumes, so the total
 * work is proportional to the input length. Inner lists cannot nest (section 3.1.1), so there
 * is no recursion deeper than list, inner list, item. Every length the RFC bounds (integer
 * digits, decimal digits) is checked while scanning, so a 40-digit number fails at its 16th
 * digit rather than being accumulated. Characters outside printable ASCII match no rule and
 * fail wherever they appear, which is step 1 of section 4.2 (the value must be ASCII).
 *
 * <p>Allocation is kept to what the result needs, because every response's {@code RateLimit}
 * field goes through here: a one-member list is a {@code List.of}; parameters are one array of
 * alternating keys and values (allocated only when a {@code ;} is present; duplicate keys are
 * found by a linear scan, or through a hash index once a set passes eight keys, so that a
 * hostile value with thousands of keys stays linear); small integers, booleans and one-letter
 * keys (the {@code r}, {@code t}, {@code q}, {@code w} of rate-limit fields) are constants; and
 * short strings, tokens and keys ({@code "default"}, {@code pk}) come from small shared caches,
 * so that the same policy name sent on every response is not a new object each time (a
 * {@code StringBuilder} is used only when a string holds escapes).
 *
 * <p>The caches are direct-mapped arrays indexed by the text's hash. A slot is read and written
 * without locks: what it holds is immutable (final fields only), so a reader sees either a
 * complete entry or another one, and compares the text before using it. A miss costs what no
 * cache would.
 *
 * <p>This class owns the cursor and the structure: lists, dictionaries, inner lists, items and
 * their parameters. The scalar readers (keys, numbers, strings, tokens, booleans, dates) and
 * their caches live in {@code ItemReaders}; byte sequences and display strings in
 * {@code EncodedItemReaders}.
 */
public final class StructuredFields {
  /** Parameter sets with more keys than this find duplicate keys through a hash index. */
  static final int INDEX_THRESHOLD = 8;

  // The cursor, shared with the item readers (ItemReaders, EncodedItemReaders).
  final String in;
  final int len;
  int pos;

  private StructuredFields(String input) {
    this.in = input;
    this.len = input.length();
  }

  /**
   * Parses an sf-list (RFC 9651 section 4.2.1); an empty or all-space value is an empty list.
   *
   * @return the members in order, unmodifiable
   * @throws StructuredFieldException if {@code input} is not a valid list
   */
  public static List<Member> parseList(String input) throws StructuredFieldException {
    StructuredFields p = new StructuredFields(input);
    p.skipSp();
    List<Member> result = p.list();
    p.end();
    return result;
  }

  /**
   * Parses an sf-dictionary (RFC 9651 section 4.2.2); an empty or all-space value is an empty
   * dictionary. A repeated key keeps its last value at the position of its first occurrence.
   *
   * @return the members by key in order, unmodifiable
   * @throws StructuredFieldException if {@code input} is not a valid dictionary
   */
  public static Map<String, Member> parseDictionary(String input)
      throws StructuredFieldException {
    StructuredFields p = new StructuredFields(input);
    p.skipSp();
    Map<String, Member> result = p.dictionary();
    p.end();
    return result;
  }

  /**
   * Parses an sf-item (RFC 9651 section 4.2.3).
   *
   * @throws StructuredFieldException if {@code input} is not a valid item
   */
  public static Item parseItem(String input) throws StructuredFieldException {
    StructuredFields p = new StructuredFields(input);
    p.skipSp();
    Item result = p.item();
    p.end();
    return result;
  }

  /** Section 4.2, steps 6-7: only trailing SP may follow the value. */
  private void end() throws StructuredFieldException {
    skipSp();
    if (pos != len) {
      throw fail("unexpected character '" + printable(in.charAt(pos)) + "' after the value");
    }
  }

  /** Section 4.2.1. */
  private List<Member> list() throws StructuredFieldException {
    if (pos == len) {
      return List.of();
    }
    Member first = itemOrInnerList();
    skipOws();
    if (pos == len) {
      return List.of(first);
    }
    expectComma();
    ArrayList<Member> members = new ArrayList<>(4);
    members.add(first);
    while (true) {
      members.add(itemOrInnerList());
      skipOws();
      if (pos == len) {
        return Collections.unmodifiableList(members);
      }
      expectComma();
    }
  }

  /** Section 4.2.2. */
  private Map<String, Member> dictionary() throws StructuredFieldException {
    if (pos == len) {
      return Map.of();
    }
    LinkedHashMap<String, Member> members = new LinkedHashMap<>();
    while (true) {
      String key = ItemReaders.key(this);
      Member member;
      if (pos < len && in.charAt(pos) == '=') {
        pos++;
        member = itemOrInnerList();
      } else {
        member = new Item(ItemReaders.TRUE, parameters());
      }
      members.put(key, member);
      skipOws();
      if (pos == len) {
        return Collections.unmodifiableMap(members);
      }
      expectComma();
    }
  }

  /** The separator between list or dictionary members: "," OWS, then another member. */
  private void expectComma() throws StructuredFieldException {
    if (in.charAt(pos) != ',') {
      throw fail("expected ',' but found '" + printable(in.charAt(pos)) + "'");
    }
    pos++;
    skipOws();
    if (pos == len) {
      throw fail("trailing ','");
    }
  }

  /** Section 4.2.1.1. */
  private Member itemOrInnerList() throws StructuredFieldException {
    if (pos < len && in.charAt(pos) == '(') {
      return innerList();
    }
    return item();
  }

  /** Section 4.2.1.2. */
  private InnerList innerList() throws StructuredFieldException {
    pos++; // '('
    ArrayList<Item> items = null;
    while (pos < len) {
      skipSp();
      if (pos == len) {
        break;
      }
      if (in.charAt(pos) == ')') {
        pos++;
        List<Item> list = items == null ? List.of() : Collections.unmodifiableList(items);
        return new InnerList(list, parameters());
      }
      if (items == null) {
        items = new ArrayList<>(4);
      }
      items.add(item());
      if (pos == len) {
        break;
      }
      char c = in.charAt(pos);
      if (c != ' ' && c != ')') {
        throw fail("expected ' ' or ')' in inner list but found '" + printable(c) + "'");
      }
    }
    throw fail("inner list is not closed");
  }

  /** Section 4.2.3. */
  private Item item() throws StructuredFieldException {
    BareItem value = bareItem();
    return new Item(value, parameters());
  }

  /** Section 4.2.3.1. */
  private BareItem bareItem() throws StructuredFieldException {
    if (pos == len) {
      throw fail("expected an item but found the end of the value");
    }
    char c = in.charAt(pos);
    if (c == '-' || (c >= '0' && c <= '9')) {
      return ItemReaders.number(this);
    }
    if (c == '"') {
      return ItemReaders.string(this);
    }
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '*') {
      return ItemReaders.token(this);
    }
    switch (c) {
      case ':':
        return EncodedItemReaders.byteSequence(this);
      case '?':
        return ItemReaders.bool(this);
      case '@':
        return ItemReaders.date(this);
      case '%':
        return EncodedItemReaders.displayString(this);
      default:
        throw fail("unexpected character '" + printable(c) + "' at the start of an item");
    }
  }

  /** Section 4.2.3.2. */
  private Parameters parameters() throws StructuredFieldException {
    if (pos == len || in.charAt(pos) != ';') {
      return Parameters.empty();
    }
    Object[] entries = new Object[4]; // keys at even indexes, values at odd ones
    int size = 0;
    HashMap<String, Integer> index = null;
    do {
      pos++; // ';'
      skipSp();
      String key = ItemReaders.key(this);
      BareItem value = ItemReaders.TRUE;
      if (pos < len && in.charAt(pos) == '=') {
        pos++;
        value = bareItem();
      }
      int at = -1;
      if (index != null) {
        Integer known = index.get(key);
        at = known == null ? -1 : known;
      } else {
        for (int i = 0; i < size; i++) {
          if (entries[2 * i].equals(key)) {
            at = i;
            break;
          }
        }
      }
      if (at >= 0) {
        entries[2 * at + 1] = value; // last value, first position
        continue;
      }
      if (2 * size == entries.length) {
        entries = Arrays.copyOf(entries, 2 * entries.length);
      }
      entries[2 * size] = key;
      entries[2 * size + 1] = value;
      size++;
      if (index != null) {
        index.put(key, size - 1);
      } else if (size > INDEX_THRESHOLD) {
        index = new HashMap<>();
        for (int i = 0; i < size; i++) {
          index.put((String) entries[2 * i], i);
        }
      }
    } while (pos < len && in.charAt(pos) == ';');
    return Parameters.wrap(entries, size);
  }


  void skipSp() {
    while (pos < len && in.charAt(pos) == ' ') {
      pos++;
    }
  }

  void skipOws() {
    while (pos < len) {
      char c = in.charAt(pos);
      if (c != ' ' && c != '\t') {
        return;
      }
      pos++;
    }
  }

  StructuredFieldException fail(String message) {
    return new StructuredFieldException(message, pos);
  }

  /** A character for an error message: itself if printable ASCII, else its code point. */
  static String printable(char c) {
    return c >= 0x20 && c < 0x7f ? String.valueOf(c) : String.format("\\u%04x", (int) c);
  }
}