package dev.headway.internal.sf;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
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
 */
public final class StructuredFields {
  private static final int INTEGER_CACHE_SIZE = 1024;
  private static final BareItem.IntegerItem[] INTEGERS =
      new BareItem.IntegerItem[INTEGER_CACHE_SIZE];
  private static final String[] ONE_LETTER_KEYS = new String[26];
  private static final BareItem.BooleanItem TRUE = new BareItem.BooleanItem(true);
  private static final BareItem.BooleanItem FALSE = new BareItem.BooleanItem(false);
  private static final double[] POWERS_OF_TEN = {1, 10, 100, 1000};

  /** Parameter sets with more keys than this find duplicate keys through a hash index. */
  static final int INDEX_THRESHOLD = 8;
  /** Strings, tokens and keys up to this many characters are looked up in the caches. */
  private static final int MAX_CACHED_LENGTH = 32;
  private static final int CACHE_SLOTS = 256;
  private static final BareItem.StringItem[] STRING_CACHE = new BareItem.StringItem[CACHE_SLOTS];
  private static final BareItem.TokenItem[] TOKEN_CACHE = new BareItem.TokenItem[CACHE_SLOTS];
  private static final String[] KEY_CACHE = new String[CACHE_SLOTS];

  /** Characters allowed after the first one of a token: tchar, ":" and "/" (section 3.3.4). */
  private static final boolean[] TOKEN_CHARS = new boolean[128];
  /** Characters allowed after the first one of a key: lcalpha, DIGIT, "_", "-", ".", "*". */
  private static final boolean[] KEY_CHARS = new boolean[128];
  /** The value of each base64 alphabet character, -1 for any other character. */
  private static final byte[] BASE64 = new byte[128];

  static {
    for (int i = 0; i < INTEGER_CACHE_SIZE; i++) {
      INTEGERS[i] = new BareItem.IntegerItem(i);
    }
    for (int i = 0; i < 26; i++) {
      ONE_LETTER_KEYS[i] = String.valueOf((char) ('a' + i)).intern();
    }
    for (char c = '0'; c <= '9'; c++) {
      TOKEN_CHARS[c] = true;
      KEY_CHARS[c] = true;
    }
    for (char c = 'a'; c <= 'z'; c++) {
      TOKEN_CHARS[c] = true;
      KEY_CHARS[c] = true;
    }
    for (char c = 'A'; c <= 'Z'; c++) {
      TOKEN_CHARS[c] = true;
    }
    for (char c : "!#$%&'*+-.^_`|~:/".toCharArray()) {
      TOKEN_CHARS[c] = true;
    }
    for (char c : "_-.*".toCharArray()) {
      KEY_CHARS[c] = true;
    }
    Arrays.fill(BASE64, (byte) -1);
    String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (int i = 0; i < alphabet.length(); i++) {
      BASE64[alphabet.charAt(i)] = (byte) i;
    }
  }

  private final String in;
  private final int len;
  private int pos;

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
      String key = key();
      Member member;
      if (pos < len && in.charAt(pos) == '=') {
        pos++;
        member = itemOrInnerList();
      } else {
        member = new Item(TRUE, parameters());
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
      return number();
    }
    if (c == '"') {
      return string();
    }
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '*') {
      return token();
    }
    switch (c) {
      case ':':
        return byteSequence();
      case '?':
        return bool();
      case '@':
        return date();
      case '%':
        return displayString();
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
      String key = key();
      BareItem value = TRUE;
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

  /** Section 4.2.3.3. */
  private String key() throws StructuredFieldException {
    if (pos == len) {
      throw fail("expected a key but found the end of the value");
    }
    char first = in.charAt(pos);
    if ((first < 'a' || first > 'z') && first != '*') {
      throw fail("a key cannot start with '" + printable(first) + "'");
    }
    int start = pos++;
    int hash = first;
    while (pos < len) {
      char c = in.charAt(pos);
      if (c >= 128 || !KEY_CHARS[c]) {
        break;
      }
      hash = 31 * hash + c;
      pos++;
    }
    int length = pos - start;
    if (length == 1 && first != '*') {
      return ONE_LETTER_KEYS[first - 'a'];
    }
    if (length > MAX_CACHED_LENGTH) {
      return in.substring(start, pos);
    }
    int slot = slot(hash);
    String cached = KEY_CACHE[slot];
    if (cached != null && cached.length() == length && in.startsWith(cached, start)) {
      return cached;
    }
    String key = in.substring(start, pos);
    KEY_CACHE[slot] = key;
    return key;
  }

  /** The cache slot of a text whose {@code String.hashCode()}-style hash is {@code hash}. */
  private static int slot(int hash) {
    return (hash ^ (hash >>> 16)) & (CACHE_SLOTS - 1);
  }

  /**
   * Section 4.2.4. The RFC's length limits (15 characters for an integer, 12 integer digits and
   * 16 characters for a decimal) are checked digit by digit; together they mean at most 15
   * digits in all, so the digits fit a {@code long} exactly and a decimal is that long divided
   * by a power of ten: one correctly rounded division, the same double as parsing the text.
   */
  private BareItem number() throws StructuredFieldException {
    boolean negative = false;
    if (in.charAt(pos) == '-') {
      negative = true;
      pos++;
    }
    if (pos == len) {
      throw fail("expected a digit but found the end of the value");
    }
    char first = in.charAt(pos);
    if (first < '0' || first > '9') {
      throw fail("expected a digit but found '" + printable(first) + "'");
    }
    long digitsValue = 0;
    int digits = 0;
    int integerDigits = -1; // set when the '.' is seen
    while (pos < len) {
      char c = in.charAt(pos);
      if (c >= '0' && c <= '9') {
        if (digits == 15) {
          throw fail(integerDigits < 0 ? "integer has more than 15 digits"
              : "decimal has more than 16 characters");
        }
        digitsValue = digitsValue * 10 + (c - '0');
        digits++;
      } else if (c == '.' && integerDigits < 0) {
        if (digits > 12) {
          throw fail("decimal has more than 12 integer digits");
        }
        integerDigits = digits;
      } else {
        break;
      }
      pos++;
    }
    if (integerDigits < 0) {
      if (!negative && digitsValue < INTEGER_CACHE_SIZE) {
        return INTEGERS[(int) digitsValue];
      }
      return new BareItem.IntegerItem(negative ? -digitsValue : digitsValue);
    }
    int fractionDigits = digits - integerDigits;
    if (fractionDigits == 0) {
      throw fail("decimal ends with '.'");
    }
    if (fractionDigits > 3) {
      throw fail("decimal has more than 3 fractional digits");
    }
    double value = digitsValue / POWERS_OF_TEN[fractionDigits];
    return new BareItem.DecimalItem(negative ? -value : value);
  }

  /** Section 4.2.5; the common string without escapes is one substring. */
  private BareItem string() throws StructuredFieldException {
    pos++; // '"'
    int start = pos;
    int hash = 0;
    while (pos < len) {
      char c = in.charAt(pos);
      if (c == '"') {
        BareItem.StringItem item = cachedString(start, pos, hash);
        pos++;
        return item;
      }
      if (c == '\\') {
        break;
      }
      if (c < 0x20 || c > 0x7e) {
        throw fail("invalid character '" + printable(c) + "' in string");
      }
      hash = 31 * hash + c;
      pos++;
    }
    StringBuilder sb = new StringBuilder(pos - start + 16).append(in, start, pos);
    while (pos < len) {
      char c = in.charAt(pos++);
      if (c == '\\') {
        if (pos == len) {
          break;
        }
        char escaped = in.charAt(pos++);
        if (escaped != '"' && escaped != '\\') {
          pos--;
          throw fail("invalid escape '\\" + printable(escaped) + "' in string");
        }
        sb.append(escaped);
      } else if (c == '"') {
        return new BareItem.StringItem(sb.toString());
      } else if (c < 0x20 || c > 0x7e) {
        pos--;
        throw fail("invalid character '" + printable(c) + "' in string");
      } else {
        sb.append(c);
      }
    }
    throw fail("string is not closed");
  }

  /** The string item of the unescaped text {@code [start, end)}, from the cache if short. */
  private BareItem.StringItem cachedString(int start, int end, int hash) {
    int length = end - start;
    if (length > MAX_CACHED_LENGTH) {
      return new BareItem.StringItem(in.substring(start, end));
    }
    int slot = slot(hash);
    BareItem.StringItem cached = STRING_CACHE[slot];
    if (cached != null && cached.value().length() == length
        && in.startsWith(cached.value(), start)) {
      return cached;
    }
    BareItem.StringItem item = new BareItem.StringItem(in.substring(start, end));
    STRING_CACHE[slot] = item;
    return item;
  }

  /** Section 4.2.6. */
  private BareItem token() {
    int start = pos;
    int hash = 0;
    pos++;
    while (pos < len) {
      char c = in.charAt(pos);
      if (c >= 128 || !TOKEN_CHARS[c]) {
        break;
      }
      pos++;
    }
    int length = pos - start;
    if (length > MAX_CACHED_LENGTH) {
      return new BareItem.TokenItem(in.substring(start, pos));
    }
    for (int i = start; i < pos; i++) {
      hash = 31 * hash + in.charAt(i);
    }
    int slot = slot(hash);
    BareItem.TokenItem cached = TOKEN_CACHE[slot];
    if (cached != null && cached.value().length() == length
        && in.startsWith(cached.value(), start)) {
      return cached;
    }
    BareItem.TokenItem item = new BareItem.TokenItem(in.substring(start, pos));
    TOKEN_CACHE[slot] = item;
    return item;
  }

  /**
   * Section 4.2.7. Base64 with the standard alphabet; "=" only at the end, at most two, and
   * then making the length a multiple of four. As the RFC recommends, missing padding and
   * non-zero pad bits are accepted.
   */
  private BareItem byteSequence() throws StructuredFieldException {
    pos++; // ':'
    int start = pos;
    while (pos < len && in.charAt(pos) != ':') {
      pos++;
    }
    if (pos == len) {
      throw fail("byte sequence is not closed");
    }
    int end = pos;
    int padding = 0;
    while (end - padding > start && in.charAt(end - padding - 1) == '=') {
      padding++;
    }
    int length = end - start;
    int dataLength = length - padding;
    if (padding > 2 || (padding > 0 && length % 4 != 0)) {
      throw fail("byte sequence has invalid padding");
    }
    if (dataLength % 4 == 1) {
      throw fail("byte sequence has an invalid length");
    }
    byte[] out = new byte[dataLength / 4 * 3 + Math.max(0, dataLength % 4 - 1)];
    int bits = 0;
    int bitCount = 0;
    int o = 0;
    for (int i = start; i < start + dataLength; i++) {
      char c = in.charAt(i);
      int v = c < 128 ? BASE64[c] : -1;
      if (v < 0) {
        pos = i;
        throw fail("invalid character '" + printable(c) + "' in byte sequence");
      }
      bits = (bits << 6) | v;
      bitCount += 6;
      if (bitCount >= 8) {
        bitCount -= 8;
        out[o++] = (byte) (bits >> bitCount);
        bits &= (1 << bitCount) - 1;
      }
    }
    pos = end + 1;
    return new BareItem.ByteSequenceItem(out);
  }

  /** Section 4.2.8. */
  private BareItem bool() throws StructuredFieldException {
    pos++; // '?'
    if (pos < len) {
      char c = in.charAt(pos);
      if (c == '1') {
        pos++;
        return TRUE;
      }
      if (c == '0') {
        pos++;
        return FALSE;
      }
    }
    throw fail("boolean must be ?0 or ?1");
  }

  /** Section 4.2.9. */
  private BareItem date() throws StructuredFieldException {
    pos++; // '@'
    if (pos == len) {
      throw fail("date has no digits");
    }
    char c = in.charAt(pos);
    if (c != '-' && (c < '0' || c > '9')) {
      throw fail("date must be an integer but found '" + printable(c) + "'");
    }
    BareItem number = number();
    if (number instanceof BareItem.IntegerItem integer) {
      return new BareItem.DateItem(integer.value());
    }
    throw fail("date must be an integer, not a decimal");
  }

  /** Section 4.2.10; lowercase percent-encoding only, and the bytes must be valid UTF-8. */
  private BareItem displayString() throws StructuredFieldException {
    if (pos + 1 >= len || in.charAt(pos + 1) != '"') {
      throw fail("display string must start with %\"");
    }
    pos += 2;
    int start = pos;
    while (pos < len) {
      char c = in.charAt(pos);
      if (c == '"') {
        String value = in.substring(start, pos);
        pos++;
        return new BareItem.DisplayStringItem(value);
      }
      if (c == '%') {
        break;
      }
      if (c < 0x20 || c > 0x7e) {
        throw fail("invalid character '" + printable(c) + "' in display string");
      }
      pos++;
    }
    byte[] bytes = new byte[Math.max(16, 2 * (pos - start))];
    int n = 0;
    for (int i = start; i < pos; i++) {
      bytes[n++] = (byte) in.charAt(i);
    }
    while (pos < len) {
      char c = in.charAt(pos);
      if (c < 0x20 || c > 0x7e) {
        throw fail("invalid character '" + printable(c) + "' in display string");
      }
      if (c == '"') {
        pos++;
        try {
          return new BareItem.DisplayStringItem(
              StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes, 0, n)).toString());
        } catch (CharacterCodingException e) {
          throw fail("display string is not valid UTF-8");
        }
      }
      if (n == bytes.length) {
        bytes = Arrays.copyOf(bytes, 2 * n);
      }
      if (c == '%') {
        int high = pos + 1 < len ? lowerHex(in.charAt(pos + 1)) : -1;
        int low = pos + 2 < len ? lowerHex(in.charAt(pos + 2)) : -1;
        if (high < 0 || low < 0) {
          throw fail("display string escape must be '%' and two lowercase hex digits");
        }
        bytes[n++] = (byte) (high << 4 | low);
        pos += 3;
      } else {
        bytes[n++] = (byte) c;
        pos++;
      }
    }
    throw fail("display string is not closed");
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

  private void skipSp() {
    while (pos < len && in.charAt(pos) == ' ') {
      pos++;
    }
  }

  private void skipOws() {
    while (pos < len) {
      char c = in.charAt(pos);
      if (c != ' ' && c != '\t') {
        return;
      }
      pos++;
    }
  }

  private StructuredFieldException fail(String message) {
    return new StructuredFieldException(message, pos);
  }

  /** A character for an error message: itself if printable ASCII, else its code point. */
  private static String printable(char c) {
    return c >= 0x20 && c < 0x7f ? String.valueOf(c) : String.format("\\u%04x", (int) c);
  }
}
