package dev.headway.internal.sf;

/**
 * The readers of the scalar parts of a structured field that rate-limit fields use on every
 * response: keys (RFC 9651 section 4.2.3.3), numbers (4.2.4), strings (4.2.5), tokens (4.2.6),
 * booleans (4.2.8) and dates (4.2.9), together with the constants and shared caches that keep
 * them from allocating (see {@link StructuredFields} for how the caches work). Each reader
 * starts at the parser's cursor, consumes its item and leaves the cursor just after it.
 * Byte sequences and display strings are read by {@link EncodedItemReaders}.
 */
final class ItemReaders {
  private static final int INTEGER_CACHE_SIZE = 1024;
  private static final BareItem.IntegerItem[] INTEGERS =
      new BareItem.IntegerItem[INTEGER_CACHE_SIZE];
  private static final String[] ONE_LETTER_KEYS = new String[26];
  static final BareItem.BooleanItem TRUE = new BareItem.BooleanItem(true);
  static final BareItem.BooleanItem FALSE = new BareItem.BooleanItem(false);
  private static final double[] POWERS_OF_TEN = {1, 10, 100, 1000};

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
  }

  private ItemReaders() {}

  private static String printable(char c) {
    return StructuredFields.printable(c);
  }

  /** Section 4.2.3.3. */
  static String key(StructuredFields p) throws StructuredFieldException {
    if (p.pos == p.len) {
      throw p.fail("expected a key but found the end of the value");
    }
    char first = p.in.charAt(p.pos);
    if ((first < 'a' || first > 'z') && first != '*') {
      throw p.fail("a key cannot start with '" + printable(first) + "'");
    }
    int start = p.pos++;
    int hash = first;
    while (p.pos < p.len) {
      char c = p.in.charAt(p.pos);
      if (c >= 128 || !KEY_CHARS[c]) {
        break;
      }
      hash = 31 * hash + c;
      p.pos++;
    }
    int length = p.pos - start;
    if (length == 1 && first != '*') {
      return ONE_LETTER_KEYS[first - 'a'];
    }
    if (length > MAX_CACHED_LENGTH) {
      return p.in.substring(start, p.pos);
    }
    int slot = slot(hash);
    String cached = KEY_CACHE[slot];
    if (cached != null && cached.length() == length && p.in.startsWith(cached, start)) {
      return cached;
    }
    String key = p.in.substring(start, p.pos);
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
  static BareItem number(StructuredFields p) throws StructuredFieldException {
    boolean negative = false;
    if (p.in.charAt(p.pos) == '-') {
      negative = true;
      p.pos++;
    }
    if (p.pos == p.len) {
      throw p.fail("expected a digit but found the end of the value");
    }
    char first = p.in.charAt(p.pos);
    if (first < '0' || first > '9') {
      throw p.fail("expected a digit but found '" + printable(first) + "'");
    }
    long digitsValue = 0;
    int digits = 0;
    int integerDigits = -1; // set when the '.' is seen
    while (p.pos < p.len) {
      char c = p.in.charAt(p.pos);
      if (c >= '0' && c <= '9') {
        if (digits == 15) {
          throw p.fail(integerDigits < 0 ? "integer has more than 15 digits"
              : "decimal has more than 16 characters");
        }
        digitsValue = digitsValue * 10 + (c - '0');
        digits++;
      } else if (c == '.' && integerDigits < 0) {
        if (digits > 12) {
          throw p.fail("decimal has more than 12 integer digits");
        }
        integerDigits = digits;
      } else {
        break;
      }
      p.pos++;
    }
    if (integerDigits < 0) {
      if (!negative && digitsValue < INTEGER_CACHE_SIZE) {
        return INTEGERS[(int) digitsValue];
      }
      return new BareItem.IntegerItem(negative ? -digitsValue : digitsValue);
    }
    int fractionDigits = digits - integerDigits;
    if (fractionDigits == 0) {
      throw p.fail("decimal ends with '.'");
    }
    if (fractionDigits > 3) {
      throw p.fail("decimal has more than 3 fractional digits");
    }
    double value = digitsValue / POWERS_OF_TEN[fractionDigits];
    return new BareItem.DecimalItem(negative ? -value : value);
  }

  /** Section 4.2.5; the common string without escapes is one substring. */
  static BareItem string(StructuredFields p) throws StructuredFieldException {
    p.pos++; // '"'
    int start = p.pos;
    int hash = 0;
    while (p.pos < p.len) {
      char c = p.in.charAt(p.pos);
      if (c == '"') {
        BareItem.StringItem item = cachedString(p, start, p.pos, hash);
        p.pos++;
        return item;
      }
      if (c == '\\') {
        break;
      }
      if (c < 0x20 || c > 0x7e) {
        throw p.fail("invalid character '" + printable(c) + "' in string");
      }
      hash = 31 * hash + c;
      p.pos++;
    }
    StringBuilder sb = new StringBuilder(p.pos - start + 16).append(p.in, start, p.pos);
    while (p.pos < p.len) {
      char c = p.in.charAt(p.pos++);
      if (c == '\\') {
        if (p.pos == p.len) {
          break;
        }
        char escaped = p.in.charAt(p.pos++);
        if (escaped != '"' && escaped != '\\') {
          p.pos--;
          throw p.fail("invalid escape '\\" + printable(escaped) + "' in string");
        }
        sb.append(escaped);
      } else if (c == '"') {
        return new BareItem.StringItem(sb.toString());
      } else if (c < 0x20 || c > 0x7e) {
        p.pos--;
        throw p.fail("invalid character '" + printable(c) + "' in string");
      } else {
        sb.append(c);
      }
    }
    throw p.fail("string is not closed");
  }

  /** The string item of the unescaped text {@code [start, end)}, from the cache if short. */
  private static BareItem.StringItem cachedString(
      StructuredFields p, int start, int end, int hash) {
    int length = end - start;
    if (length > MAX_CACHED_LENGTH) {
      return new BareItem.StringItem(p.in.substring(start, end));
    }
    int slot = slot(hash);
    BareItem.StringItem cached = STRING_CACHE[slot];
    if (cached != null && cached.value().length() == length
        && p.in.startsWith(cached.value(), start)) {
      return cached;
    }
    BareItem.StringItem item = new BareItem.StringItem(p.in.substring(start, end));
    STRING_CACHE[slot] = item;
    return item;
  }

  /** Section 4.2.6. */
  static BareItem token(StructuredFields p) {
    int start = p.pos;
    int hash = 0;
    p.pos++;
    while (p.pos < p.len) {
      char c = p.in.charAt(p.pos);
      if (c >= 128 || !TOKEN_CHARS[c]) {
        break;
      }
      p.pos++;
    }
    int length = p.pos - start;
    if (length > MAX_CACHED_LENGTH) {
      return new BareItem.TokenItem(p.in.substring(start, p.pos));
    }
    for (int i = start; i < p.pos; i++) {
      hash = 31 * hash + p.in.charAt(i);
    }
    int slot = slot(hash);
    BareItem.TokenItem cached = TOKEN_CACHE[slot];
    if (cached != null && cached.value().length() == length
        && p.in.startsWith(cached.value(), start)) {
      return cached;
    }
    BareItem.TokenItem item = new BareItem.TokenItem(p.in.substring(start, p.pos));
    TOKEN_CACHE[slot] = item;
    return item;
  }

  /** Section 4.2.8. */
  static BareItem bool(StructuredFields p) throws StructuredFieldException {
    p.pos++; // '?'
    if (p.pos < p.len) {
      char c = p.in.charAt(p.pos);
      if (c == '1') {
        p.pos++;
        return TRUE;
      }
      if (c == '0') {
        p.pos++;
        return FALSE;
      }
    }
    throw p.fail("boolean must be ?0 or ?1");
  }

  /** Section 4.2.9. */
  static BareItem date(StructuredFields p) throws StructuredFieldException {
    p.pos++; // '@'
    if (p.pos == p.len) {
      throw p.fail("date has no digits");
    }
    char c = p.in.charAt(p.pos);
    if (c != '-' && (c < '0' || c > '9')) {
      throw p.fail("date must be an integer but found '" + printable(c) + "'");
    }
    BareItem number = number(p);
    if (number instanceof BareItem.IntegerItem integer) {
      return new BareItem.DateItem(integer.value());
    }
    throw p.fail("date must be an integer, not a decimal");
  }
}
