package dev.headway.internal.sf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.headway.internal.sf.BareItem.BooleanItem;
import dev.headway.internal.sf.BareItem.ByteSequenceItem;
import dev.headway.internal.sf.BareItem.DateItem;
import dev.headway.internal.sf.BareItem.DecimalItem;
import dev.headway.internal.sf.BareItem.DisplayStringItem;
import dev.headway.internal.sf.BareItem.IntegerItem;
import dev.headway.internal.sf.BareItem.StringItem;
import dev.headway.internal.sf.BareItem.TokenItem;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** {@link StructuredFields} beyond the shared vectors: rate-limit shapes and hostile input. */
class StructuredFieldsTest {

  // ---- shapes the rate-limit fields use ----

  @Test
  void rateLimitFieldItemWithParametersInOrder() throws Exception {
    List<Member> list = StructuredFields.parseList("\"default\";r=50;t=30");

    assertThat(list).hasSize(1);
    Item item = (Item) list.get(0);
    assertThat(item.value()).isEqualTo(new StringItem("default"));
    assertThat(item.parameters().asMap().keySet()).containsExactly("r", "t");
    assertThat(item.parameters().get("r")).isEqualTo(new IntegerItem(50));
    assertThat(item.parameters().get("t")).isEqualTo(new IntegerItem(30));
  }

  @Test
  void severalPoliciesJoinedFromFieldLines() throws Exception {
    List<Member> list = StructuredFields.parseList(
        "\"burst\";q=100;w=60;pk=:cHsdsRa894==:, \"day\";q=1000;qu=\"requests\";w=86400");

    assertThat(list).hasSize(2);
    Item burst = (Item) list.get(0);
    assertThat(burst.parameters().get("pk"))
        .isEqualTo(new ByteSequenceItem(java.util.Base64.getDecoder().decode("cHsdsRa894==")));
    Item day = (Item) list.get(1);
    assertThat(day.parameters().get("qu")).isEqualTo(new StringItem("requests"));
    assertThat(day.parameters().get("w")).isEqualTo(new IntegerItem(86400));
  }

  @Test
  void everyBareItemType() throws Exception {
    assertThat(StructuredFields.parseItem("-42").value()).isEqualTo(new IntegerItem(-42));
    assertThat(StructuredFields.parseItem("4.5").value()).isEqualTo(new DecimalItem(4.5));
    assertThat(StructuredFields.parseItem("\"a\\\"b\\\\\"").value())
        .isEqualTo(new StringItem("a\"b\\"));
    assertThat(StructuredFields.parseItem("text/html").value())
        .isEqualTo(new TokenItem("text/html"));
    assertThat(StructuredFields.parseItem(":aGk=:").value())
        .isEqualTo(new ByteSequenceItem("hi".getBytes(StandardCharsets.US_ASCII)));
    assertThat(StructuredFields.parseItem("?0").value()).isEqualTo(new BooleanItem(false));
    assertThat(StructuredFields.parseItem("@1700000000").value())
        .isEqualTo(new DateItem(1_700_000_000L));
    assertThat(StructuredFields.parseItem("%\"caf%c3%a9\"").value())
        .isEqualTo(new DisplayStringItem("caf\u00e9"));
  }

  @Test
  void decimalsAreTheNearestDouble() throws Exception {
    for (String text : List.of("0.1", "123456789012.123", "999999999999.999", "-0.001", "7.77")) {
      assertThat(((DecimalItem) StructuredFields.parseItem(text).value()).value())
          .as(text)
          .isEqualTo(Double.parseDouble(text));
    }
  }

  @Test
  void integerBoundsAreFifteenDigits() throws Exception {
    assertThat(StructuredFields.parseItem("-999999999999999").value())
        .isEqualTo(new IntegerItem(-999_999_999_999_999L));
    assertThatThrownBy(() -> StructuredFields.parseItem("1000000000000000"))
        .isInstanceOf(StructuredFieldException.class)
        .hasMessageContaining("15 digits");
  }

  @Test
  void dictionaryDuplicateKeyKeepsLastValueAtFirstPosition() throws Exception {
    Map<String, Member> dict = StructuredFields.parseDictionary("a=1, b=2, a=3;x, c");

    assertThat(dict.keySet()).containsExactly("a", "b", "c");
    assertThat(dict.get("a")).isEqualTo(
        new Item(new IntegerItem(3), StructuredFields.parseItem("0;x").parameters()));
    assertThat(dict.get("c")).isEqualTo(new Item(new BooleanItem(true), Parameters.empty()));
  }

  @Test
  void parameterDuplicateKeyKeepsLastValueAtFirstPosition() throws Exception {
    Item item = StructuredFields.parseItem("1;a=1;b=2;a=3");

    assertThat(item.parameters().asMap().keySet()).containsExactly("a", "b");
    assertThat(item.parameters().get("a")).isEqualTo(new IntegerItem(3));
  }

  @Test
  void parameterDuplicatesBeyondTheHashIndexThresholdKeepOrderAndLastValue() throws Exception {
    // 12 distinct keys (past the linear-scan limit), each repeated with a later value.
    StringBuilder value = new StringBuilder("1");
    for (int round = 0; round < 2; round++) {
      for (int k = 0; k < 12; k++) {
        value.append(";k").append(k).append('=').append(round * 100 + k);
      }
    }
    value.append(";k3=?0;k11");
    Parameters parameters = StructuredFields.parseItem(value.toString()).parameters();

    assertThat(parameters.size()).isEqualTo(12);
    assertThat(parameters.asMap().keySet()).containsExactly("k0", "k1", "k2", "k3", "k4", "k5",
        "k6", "k7", "k8", "k9", "k10", "k11");
    assertThat(parameters.get("k0")).isEqualTo(new IntegerItem(100));
    assertThat(parameters.get("k3")).isEqualTo(new BooleanItem(false));
    assertThat(parameters.get("k11")).isEqualTo(new BooleanItem(true));
    assertThat(parameters.key(10)).isEqualTo("k10");
    assertThat(parameters.value(10)).isEqualTo(new IntegerItem(110));
    assertThat(parameters.get("k12")).isNull();
    assertThatThrownBy(() -> parameters.key(12)).isInstanceOf(IndexOutOfBoundsException.class);
  }

  @Test
  void parametersEqualAsMapsDoInAnyOrder() throws Exception {
    Parameters ab = StructuredFields.parseItem("1;a=1;b=\"x\"").parameters();
    Parameters ba = StructuredFields.parseItem("1;b=\"x\";a=1").parameters();
    Parameters other = StructuredFields.parseItem("1;a=1;b=\"y\"").parameters();

    assertThat(ab).isEqualTo(ba).hasSameHashCodeAs(ba).isNotEqualTo(other);
    assertThat(ab.hashCode()).isEqualTo(ab.asMap().hashCode());
    assertThat(ab).hasToString(";a=1;b=\"x\"");
    assertThat(Parameters.of(new java.util.LinkedHashMap<>(ab.asMap()))).isEqualTo(ab);
    assertThat(StructuredFields.parseItem("1").parameters()).isEqualTo(Parameters.empty());
  }

  @Test
  void repeatedShortStringsTokensAndKeysParseToTheirOwnText() throws Exception {
    // The caches must never hand back another text: parse many distinct short values twice.
    for (int round = 0; round < 2; round++) {
      for (int i = 0; i < 2_000; i++) {
        String name = "p" + i;
        Item item = StructuredFields.parseItem("\"" + name + "\";" + name + "=" + name);
        assertThat(item.value()).isEqualTo(new StringItem(name));
        assertThat(item.parameters().key(0)).isEqualTo(name);
        assertThat(item.parameters().get(name)).isEqualTo(new TokenItem(name));
      }
    }
    String long33 = "x".repeat(33);
    assertThat(StructuredFields.parseItem("\"" + long33 + "\"").value())
        .isEqualTo(new StringItem(long33));
    assertThat(StructuredFields.parseItem(long33).value()).isEqualTo(new TokenItem(long33));
  }

  @Test
  void threadsSharingTheCachesEachGetTheirOwnText() throws Exception {
    // 256 cache slots, 4 threads x 3,000 distinct names: slots are overwritten constantly.
    java.util.concurrent.ExecutorService pool =
        java.util.concurrent.Executors.newFixedThreadPool(4);
    try {
      List<java.util.concurrent.Future<Integer>> results = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        int thread = t;
        results.add(pool.submit(() -> {
          int checked = 0;
          for (int round = 0; round < 5; round++) {
            for (int i = 0; i < 3_000; i++) {
              String name = "t" + thread + "n" + i;
              Item item = (Item) StructuredFields.parseList(
                  "\"" + name + "\";" + name + "=" + name + ";r=" + i).get(0);
              if (!item.value().equals(new StringItem(name))
                  || !item.parameters().key(0).equals(name)
                  || !item.parameters().get(name).equals(new TokenItem(name))
                  || !item.parameters().get("r").equals(new IntegerItem(i))) {
                throw new AssertionError(name + " parsed as " + item);
              }
              checked++;
            }
          }
          return checked;
        }));
      }
      for (java.util.concurrent.Future<Integer> result : results) {
        assertThat(result.get()).isEqualTo(15_000);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void innerListsWithParameters() throws Exception {
    List<Member> list = StructuredFields.parseList("( 1 2;p );q=?0, ()");

    InnerList first = (InnerList) list.get(0);
    assertThat(first.items()).extracting(Item::value)
        .containsExactly(new IntegerItem(1), new IntegerItem(2));
    assertThat(first.items().get(1).parameters().get("p")).isEqualTo(new BooleanItem(true));
    assertThat(first.parameters().get("q")).isEqualTo(new BooleanItem(false));
    assertThat(((InnerList) list.get(1)).items()).isEmpty();
  }

  @Test
  void emptyAndBlankValuesAreEmptyListsAndDictionaries() throws Exception {
    assertThat(StructuredFields.parseList("")).isEmpty();
    assertThat(StructuredFields.parseList("   ")).isEmpty();
    assertThat(StructuredFields.parseDictionary("  ")).isEmpty();
    assertThatThrownBy(() -> StructuredFields.parseItem("  "))
        .isInstanceOf(StructuredFieldException.class);
  }

  @Test
  void resultsAreUnmodifiable() throws Exception {
    List<Member> list = StructuredFields.parseList("1, 2");
    List<Member> single = StructuredFields.parseList("\"default\";r=1");
    Map<String, Member> dict = StructuredFields.parseDictionary("a=1");
    Item item = StructuredFields.parseItem("1;a=2");

    assertThatThrownBy(() -> list.add(list.get(0)))
        .isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> dict.remove("a")).isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> single.remove(0)).isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> item.parameters().asMap().clear())
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void errorMessageSaysWhatAndWhere() {
    assertThatThrownBy(() -> StructuredFields.parseList("1, 2 x"))
        .isInstanceOf(StructuredFieldException.class)
        .hasMessage("expected ',' but found 'x' at offset 5");
  }

  // ---- hostile input ----

  @Test
  void hundredKilobyteValuesParse() throws Exception {
    String text = "x".repeat(100_000);

    assertThat(StructuredFields.parseItem("\"" + text + "\"").value())
        .isEqualTo(new StringItem(text));
    assertThat(StructuredFields.parseItem(text).value()).isEqualTo(new TokenItem(text));
    assertThat(((ByteSequenceItem) StructuredFields.parseItem(":" + "AAAA".repeat(25_000) + ":")
        .value()).value()).hasSize(75_000);
    assertThat(((StringItem) StructuredFields.parseItem("\"" + "\\\"".repeat(50_000) + "\"")
        .value()).value()).hasSize(50_000);
    assertThat(((DisplayStringItem) StructuredFields.parseItem(
        "%\"" + "%c3%a9".repeat(16_000) + "\"").value()).value()).hasSize(16_000);
  }

  @Test
  void hundredKilobyteGarbageFails() {
    for (String garbage : List.of("\u0000".repeat(100_000), "\"" + "x".repeat(100_000),
        ":" + "A".repeat(100_000), "(" + "1 ".repeat(50_000), "a=" + "1,".repeat(50_000),
        "%\"" + "%".repeat(100_000), "\u00ff".repeat(100_000))) {
      assertThatThrownBy(() -> StructuredFields.parseList(garbage))
          .isInstanceOf(StructuredFieldException.class);
      assertThatThrownBy(() -> StructuredFields.parseItem(garbage))
          .isInstanceOf(StructuredFieldException.class);
    }
  }

  @Test
  void tenThousandListMembers() throws Exception {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < 10_000; i++) {
      sb.append(i == 0 ? "" : ", ").append('"').append("p").append(i).append("\";q=").append(i);
    }

    List<Member> list = StructuredFields.parseList(sb.toString());

    assertThat(list).hasSize(10_000);
    Item last = (Item) list.get(9_999);
    assertThat(last.value()).isEqualTo(new StringItem("p9999"));
    assertThat(last.parameters().get("q")).isEqualTo(new IntegerItem(9_999));
  }

  @Test
  void tenThousandDictionaryMembersAndParameters() throws Exception {
    StringBuilder dict = new StringBuilder();
    StringBuilder params = new StringBuilder("1");
    for (int i = 0; i < 10_000; i++) {
      dict.append(i == 0 ? "" : ",").append("k").append(i).append('=').append(i);
      params.append(";k").append(i % 100).append('=').append(i);
    }

    assertThat(StructuredFields.parseDictionary(dict.toString())).hasSize(10_000);
    Parameters parameters = StructuredFields.parseItem(params.toString()).parameters();
    assertThat(parameters.asMap()).hasSize(100);
    assertThat(parameters.get("k0")).isEqualTo(new IntegerItem(9_900));
  }

  @Test
  void fortyDigitNumbersFail() {
    String forty = "1234567890".repeat(4);
    for (String value : List.of(forty, "-" + forty, "1." + forty, forty + ".5", "@" + forty,
        "1;q=" + forty)) {
      assertThatThrownBy(() -> StructuredFields.parseItem(value))
          .as(value)
          .isInstanceOf(StructuredFieldException.class);
    }
    assertThatThrownBy(() -> StructuredFields.parseList("1, " + forty))
        .isInstanceOf(StructuredFieldException.class);
  }

  @Test
  void megabytePathologicalInputsParseOrFail() throws Exception {
    int n = 1 << 20;
    // Each is linear by construction; a quadratic parser would not finish this test suite.
    assertThat(StructuredFields.parseList("(" + "1 ".repeat(n / 2) + ")")).hasSize(1);
    assertThat(StructuredFields.parseItem("a" + ";a".repeat(n / 2)).parameters().asMap())
        .hasSize(1);
    assertThat(StructuredFields.parseDictionary("a" + ",a".repeat(n / 2))).hasSize(1);
    assertThat(StructuredFields.parseList("1" + " ,\t1".repeat(n / 4))).hasSize(n / 4 + 1);
    assertThatThrownBy(() -> StructuredFields.parseList(":".repeat(n) + "x"))
        .isInstanceOf(StructuredFieldException.class);
    assertThatThrownBy(() -> StructuredFields.parseItem(":" + "=".repeat(n) + ":"))
        .isInstanceOf(StructuredFieldException.class);
    assertThatThrownBy(() -> StructuredFields.parseList("(".repeat(n)))
        .isInstanceOf(StructuredFieldException.class);
  }

  @Test
  void randomInputOnlyEverThrowsStructuredFieldException() {
    Random random = new Random(20_240_901L);
    String syntax = " \t,;=()\"\\:?@%*-._/0123456789abcdefxyzABZ!~";
    List<String> seeds = List.of("\"default\";r=50;t=30", "a=1, b=(1 2);x=?1, c",
        ":aGVsbG8=:;p=%\"f%c3%bc\"", "(\"a\" b);q=1.5, @1659578233", "text/html;q=0.5");
    int parsed = 0;
    for (int i = 0; i < 20_000; i++) {
      String input;
      switch (i % 3) {
        case 0 -> input = randomChars(random, syntax, random.nextInt(40));
        case 1 -> input = randomAnyChars(random, random.nextInt(40));
        default -> input = mutate(random, seeds.get(random.nextInt(seeds.size())), syntax);
      }
      parsed += parseAllWays(input);
    }
    // The generator is not trivially all-garbage: some inputs are valid.
    assertThat(parsed).isGreaterThan(1_000);
  }

  private static int parseAllWays(String input) {
    int ok = 0;
    try {
      StructuredFields.parseList(input);
      ok++;
    } catch (StructuredFieldException expected) {
      // malformed: fine
    }
    try {
      StructuredFields.parseDictionary(input);
      ok++;
    } catch (StructuredFieldException expected) {
      // malformed: fine
    }
    try {
      StructuredFields.parseItem(input);
      ok++;
    } catch (StructuredFieldException expected) {
      // malformed: fine
    }
    return ok;
  }

  private static String randomChars(Random random, String alphabet, int length) {
    StringBuilder sb = new StringBuilder(length);
    for (int i = 0; i < length; i++) {
      sb.append(alphabet.charAt(random.nextInt(alphabet.length())));
    }
    return sb.toString();
  }

  private static String randomAnyChars(Random random, int length) {
    StringBuilder sb = new StringBuilder(length);
    for (int i = 0; i < length; i++) {
      // every UTF-16 code unit, lone surrogates included, biased to ASCII
      sb.append((char) (random.nextBoolean() ? random.nextInt(128) : random.nextInt(0x10000)));
    }
    return sb.toString();
  }

  private static String mutate(Random random, String seed, String alphabet) {
    List<Character> chars = new ArrayList<>();
    for (char c : seed.toCharArray()) {
      chars.add(c);
    }
    int edits = 1 + random.nextInt(3);
    for (int e = 0; e < edits; e++) {
      int at = chars.isEmpty() ? 0 : random.nextInt(chars.size());
      char c = alphabet.charAt(random.nextInt(alphabet.length()));
      switch (random.nextInt(3)) {
        case 0 -> chars.add(at, c);
        case 1 -> {
          if (!chars.isEmpty()) {
            chars.remove(at);
          }
        }
        default -> {
          if (!chars.isEmpty()) {
            chars.set(at, c);
          }
        }
      }
    }
    StringBuilder sb = new StringBuilder();
    chars.forEach(sb::append);
    return sb.toString();
  }
}
