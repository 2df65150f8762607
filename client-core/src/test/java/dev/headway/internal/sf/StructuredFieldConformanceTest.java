package dev.headway.internal.sf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Runs every parsing vector of the shared structured-field test suite
 * (httpwg/structured-field-tests, RFC 9651) against {@link StructuredFields}.
 *
 * <p>The vectors are copied into {@code src/test/resources/structured-field-tests/} with their
 * licence ({@code LICENSE.md}, {@code NOTICE.md}), so every clone runs all
 * {@value #EXPECTED_VECTORS}. The system property {@code headway.sfTests} (or the environment
 * variable {@code HEADWAY_SF_TESTS}) may name another checkout of the suite to run instead.
 * Missing vectors are a failure, never a skip: a conformance test that finds nothing proves
 * nothing. Only the top-level {@code *.json} files are parsing vectors.
 */
class StructuredFieldConformanceTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  /** The number of parsing vectors in the copied suite. */
  static final int EXPECTED_VECTORS = 1591;

  @TestFactory
  Stream<DynamicTest> parsingVectors() throws IOException {
    Optional<Path> dir = vectorDirectory();
    assertThat(dir).as("the structured-field test vectors: expected in"
        + " client-core/src/test/resources/structured-field-tests/ (restore them with git"
        + " checkout, or copy the *.json files of github.com/httpwg/structured-field-tests"
        + " there)").isPresent();
    boolean configured = System.getProperty("headway.sfTests",
        System.getenv("HEADWAY_SF_TESTS")) != null;
    List<Path> files;
    try (Stream<Path> listing = Files.list(dir.get())) {
      files = listing.filter(p -> p.getFileName().toString().endsWith(".json"))
          .filter(Files::isRegularFile)
          .sorted()
          .toList();
    }
    List<DynamicTest> tests = new ArrayList<>();
    AtomicInteger executed = new AtomicInteger();
    AtomicInteger passed = new AtomicInteger();
    for (Path file : files) {
      JsonNode vectors = JSON.readTree(file.toFile());
      assertThat(vectors.isArray()).as("%s is an array of vectors", file).isTrue();
      for (JsonNode vector : vectors) {
        String name = file.getFileName() + ": " + vector.get("name").asText();
        tests.add(DynamicTest.dynamicTest(name, () -> {
          executed.incrementAndGet();
          run(vector);
          passed.incrementAndGet();
        }));
      }
    }
    int total = tests.size();
    tests.add(DynamicTest.dynamicTest("summary: every vector executed and passed", () -> {
      System.out.printf("structured-field-tests: %d files, %d vectors executed, %d passed%n",
          files.size(), executed.get(), passed.get());
      if (configured) {
        assertThat(total).as("vectors found").isGreaterThan(0);
      } else {
        assertThat(total).as("vectors found in the copied suite").isEqualTo(EXPECTED_VECTORS);
      }
      assertThat(executed.get()).as("vectors executed").isEqualTo(total);
      assertThat(passed.get()).as("vectors passed").isEqualTo(total);
    }));
    return tests.stream();
  }

  private static Optional<Path> vectorDirectory() {
    String configured = System.getProperty("headway.sfTests", System.getenv("HEADWAY_SF_TESTS"));
    if (configured != null && !configured.isBlank()) {
      Path p = Paths.get(configured);
      return Files.isDirectory(p) ? Optional.of(p) : Optional.empty();
    }
    URL notice = StructuredFieldConformanceTest.class
        .getResource("/structured-field-tests/NOTICE.md");
    if (notice == null || !"file".equals(notice.getProtocol())) {
      return Optional.empty();
    }
    try {
      return Optional.of(Paths.get(notice.toURI()).getParent());
    } catch (URISyntaxException e) {
      return Optional.empty();
    }
  }

  private static void run(JsonNode vector) throws Exception {
    List<String> lines = new ArrayList<>();
    vector.get("raw").forEach(line -> lines.add(line.asText()));
    String raw = String.join(", ", lines);
    String type = vector.get("header_type").asText();
    boolean mustFail = vector.path("must_fail").asBoolean(false);
    boolean canFail = vector.path("can_fail").asBoolean(false);
    if (mustFail) {
      assertThatThrownBy(() -> parse(type, raw))
          .as("must fail: %s", raw)
          .isInstanceOf(StructuredFieldException.class);
      return;
    }
    Object expected = expected(type, vector.get("expected"));
    Object actual;
    try {
      actual = parse(type, raw);
    } catch (StructuredFieldException e) {
      if (canFail) {
        return;
      }
      throw new AssertionError("failed to parse [" + raw + "]: " + e.getMessage(), e);
    }
    assertThat(actual).as("parsing [%s]", raw).isEqualTo(expected);
  }

  /** Parses and normalises into lists (ordered) so that order is part of equality. */
  private static Object parse(String type, String raw) throws StructuredFieldException {
    switch (type) {
      case "item":
        return normalise(StructuredFields.parseItem(raw));
      case "list":
        List<Object> list = new ArrayList<>();
        for (Member m : StructuredFields.parseList(raw)) {
          list.add(normalise(m));
        }
        return list;
      case "dictionary":
        List<Object> dict = new ArrayList<>();
        for (Map.Entry<String, Member> e : StructuredFields.parseDictionary(raw).entrySet()) {
          dict.add(List.of(e.getKey(), normalise(e.getValue())));
        }
        return dict;
      default:
        throw new IllegalArgumentException("unknown header_type " + type);
    }
  }

  private static Object normalise(Member member) {
    if (member instanceof InnerList inner) {
      List<Object> items = new ArrayList<>();
      inner.items().forEach(i -> items.add(normalise(i)));
      return List.of("inner", items, normalise(inner.parameters()));
    }
    Item item = (Item) member;
    return List.of("item", normalise(item.value()), normalise(item.parameters()));
  }

  private static Object normalise(BareItem bare) {
    // -0.0 and 0.0 compare numerically equal
    if (bare instanceof BareItem.DecimalItem d && d.value() == 0) {
      return new BareItem.DecimalItem(0);
    }
    return bare;
  }

  private static List<Object> normalise(Parameters parameters) {
    List<Object> out = new ArrayList<>();
    parameters.asMap().forEach((k, v) -> out.add(List.of(k, normalise(v))));
    return out;
  }

  private static Object expected(String type, JsonNode node) {
    switch (type) {
      case "item":
        return expectedMember(node);
      case "list":
        List<Object> list = new ArrayList<>();
        node.forEach(m -> list.add(expectedMember(m)));
        return list;
      case "dictionary":
        List<Object> dict = new ArrayList<>();
        node.forEach(e -> dict.add(List.of(e.get(0).asText(), expectedMember(e.get(1)))));
        return dict;
      default:
        throw new IllegalArgumentException("unknown header_type " + type);
    }
  }

  /** An item is [bare, params]; an inner list is [[items...], params]. */
  private static Object expectedMember(JsonNode node) {
    if (node.get(0).isArray()) {
      List<Object> items = new ArrayList<>();
      node.get(0).forEach(i -> items.add(expectedMember(i)));
      return List.of("inner", items, expectedParameters(node.get(1)));
    }
    return List.of("item", expectedBare(node.get(0)), expectedParameters(node.get(1)));
  }

  private static List<Object> expectedParameters(JsonNode node) {
    List<Object> out = new ArrayList<>();
    node.forEach(p -> out.add(List.of(p.get(0).asText(), expectedBare(p.get(1)))));
    return out;
  }

  private static BareItem expectedBare(JsonNode node) {
    if (node.isIntegralNumber()) {
      return new BareItem.IntegerItem(node.longValue());
    }
    if (node.isNumber()) {
      double d = node.doubleValue();
      return new BareItem.DecimalItem(d == 0 ? 0 : d);
    }
    if (node.isTextual()) {
      return new BareItem.StringItem(node.asText());
    }
    if (node.isBoolean()) {
      return new BareItem.BooleanItem(node.booleanValue());
    }
    if (node.isObject()) {
      JsonNode value = node.get("value");
      switch (node.get("__type").asText()) {
        case "token":
          return new BareItem.TokenItem(value.asText());
        case "binary":
          return new BareItem.ByteSequenceItem(base32(value.asText()));
        case "date":
          return new BareItem.DateItem(value.longValue());
        case "displaystring":
          return new BareItem.DisplayStringItem(value.asText());
        default:
          break;
      }
    }
    throw new UncheckedIOException(new IOException("unexpected expected value " + node));
  }

  /** RFC 4648 section 6 base32, padding ignored. */
  static byte[] base32(String text) {
    String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    String data = text.replace("=", "");
    byte[] out = new byte[data.length() * 5 / 8];
    long bits = 0;
    int bitCount = 0;
    int o = 0;
    for (int i = 0; i < data.length(); i++) {
      int v = alphabet.indexOf(data.charAt(i));
      if (v < 0) {
        fail("invalid base32 in vector: " + text);
      }
      bits = (bits << 5) | v;
      bitCount += 5;
      if (bitCount >= 8) {
        bitCount -= 8;
        out[o++] = (byte) (bits >> bitCount);
        bits &= (1L << bitCount) - 1;
      }
    }
    return out;
  }
}
